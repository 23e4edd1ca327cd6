package doc

import (
	"fmt"
	"strings"
)

// HAProxy's default log formats (the configuration manual, "option
// httplog", "option httpslog" (HAProxy 2.5 on: httplog, then the TLS
// connection's errors, SNI, version and ciphers) and "option tcplog";
// HAProxy's log.c has the same strings): what "format haproxy httplog",
// "httpslog" and "tcplog" compile.
const (
	haproxyHTTPLog  = `%ci:%cp [%tr] %ft %b/%s %TR/%Tw/%Tc/%Tr/%Ta %ST %B %CC %CS %tsc %ac/%fc/%bc/%sc/%rc %sq/%bq %hr %hs %{+Q}r`
	haproxyHTTPSLog = haproxyHTTPLog + ` %[fc_err]/%[ssl_fc_err,hex]/%[ssl_c_err]/%[ssl_c_ca_err]/%[ssl_fc_is_resumed] %[ssl_fc_sni]/%sslv/%sslc`
	haproxyTCPLog   = `%ci:%cp [%t] %ft %b/%s %Tw/%Tc/%Tt %B %ts %ac/%fc/%bc/%sc/%rc %sq/%bq`
)

// haproxyVars are HAProxy's log-format variables (the manual's "Custom
// log format" table), named as its default formats' descriptions name
// their fields; the timers keep their own names (TR, Tw, Tc, Tr, Ta, Tt,
// …), numbers of milliseconds, -1 for a phase that did not complete.
var haproxyVars = map[string]Part{
	"ci": {Field: "client_ip"}, "cp": {Field: "client_port", Kind: Numeric},
	"fi": {Field: "frontend_ip"}, "fp": {Field: "frontend_port", Kind: Numeric},
	"bi": {Field: "backend_source_ip"}, "bp": {Field: "backend_source_port", Kind: Numeric},
	"si": {Field: "server_ip"}, "sp": {Field: "server_port", Kind: Numeric},
	"t": {Field: "accept_date", Kind: Stamp, Layout: LayoutHAProxy}, "tr": {Field: "request_date", Kind: Stamp, Layout: LayoutHAProxy},
	"T": {Field: "accept_date_gmt", Kind: Stamp, Layout: LayoutCLF}, "Tl": {Field: "accept_date_local", Kind: Stamp, Layout: LayoutCLF},
	"trg": {Field: "request_date_gmt", Kind: Stamp, Layout: LayoutCLF}, "trl": {Field: "request_date_local", Kind: Stamp, Layout: LayoutCLF},
	"Ts": {Field: "timestamp", Kind: Stamp, Layout: LayoutUnix}, "ms": {Field: "accept_ms", Kind: Numeric},
	"f": {Field: "frontend_name"}, "ft": {Field: "frontend_name_transport"}, "b": {Field: "backend_name"}, "s": {Field: "server_name"},
	"TR": {Field: "TR", Kind: Numeric}, "Tw": {Field: "Tw", Kind: Numeric}, "Tc": {Field: "Tc", Kind: Numeric},
	"Tr": {Field: "Tr", Kind: Numeric}, "Ta": {Field: "Ta", Kind: Numeric}, "Tt": {Field: "Tt", Kind: Numeric},
	"Tq": {Field: "Tq", Kind: Numeric}, "Th": {Field: "Th", Kind: Numeric}, "Ti": {Field: "Ti", Kind: Numeric},
	"Td": {Field: "Td", Kind: Numeric}, "Tu": {Field: "Tu", Kind: Numeric},
	"ST": {Field: "status_code", Kind: Status}, "B": {Field: "bytes_read", Kind: Numeric}, "U": {Field: "bytes_uploaded", Kind: Numeric},
	"CC": {Field: "captured_request_cookie"}, "CS": {Field: "captured_response_cookie"},
	"ts": {Field: "termination_state"}, "tsc": {Field: "termination_state"},
	"ac": {Field: "actconn", Kind: Numeric}, "fc": {Field: "feconn", Kind: Numeric}, "bc": {Field: "beconn", Kind: Numeric},
	"sc": {Field: "srv_conn", Kind: Numeric}, "rc": {Field: "retries"}, // "+1" when redispatched: text
	"sq": {Field: "srv_queue", Kind: Numeric}, "bq": {Field: "backend_queue", Kind: Numeric},
	"hr": {Field: "captured_request_headers"}, "hs": {Field: "captured_response_headers"},
	"hrl": {Field: "captured_request_headers"}, "hsl": {Field: "captured_response_headers"},
	"r": {Field: "http_request", Kind: Request}, "HM": {Field: "http_method"}, "HU": {Field: "http_uri"},
	"HP": {Field: "http_path"}, "HPO": {Field: "http_path_only"}, "HQ": {Field: "http_query"}, "HV": {Field: "http_version"},
	"H": {Field: "hostname"}, "ID": {Field: "unique_id"}, "pid": {Field: "pid", Kind: Numeric}, "rt": {Field: "request_counter", Kind: Numeric},
	"lc": {Field: "frontend_log_counter", Kind: Numeric}, "sslc": {Field: "ssl_ciphers"}, "sslv": {Field: "ssl_version"},
}

// haproxyVocab are HAProxy's common names: bytes is bytes_read (the bytes
// sent to the client), duration the total active time Ta, else the
// session's Tt, in seconds.
var haproxyVocab = []Alias{
	{Name: "status", Of: "status_code"}, {Name: "bytes", Of: "bytes_read"},
	{Name: "method", Of: "http_method"}, {Name: "path", Of: "http_path"}, {Name: "path", Of: "http_uri"},
	{Name: "duration", Of: "Ta", Div: 1e3}, {Name: "duration", Of: "Tt", Div: 1e3},
}

// haproxyFormat compiles "format haproxy httplog|httpslog|tcplog|'LOG-FORMAT'".
// A syslog header (rsyslog's) may come before each line.
func haproxyFormat(arg string) (*LogFormat, error) {
	name, src := "haproxy "+arg, arg
	switch arg {
	case "httplog":
		src = haproxyHTTPLog
	case "httpslog":
		src = haproxyHTTPSLog
	case "tcplog":
		src = haproxyTCPLog
	case "":
		return nil, fmt.Errorf("wants httplog, httpslog, tcplog or the log-format string, quoted, e.g. format haproxy '%s'", haproxyHTTPLog)
	default:
		s, err := quotedStrings(arg, nil)
		if err != nil {
			return nil, fmt.Errorf("%v; want httplog, httpslog, tcplog or the log-format string, quoted", err)
		}
		name, src = "haproxy", s
	}
	elems, err := parseHAProxy(src)
	if err != nil {
		return nil, err
	}
	l, err := compileLogFormat("haproxy", src, elems)
	if err != nil {
		return nil, err
	}
	l.Name, l.Syslog = name, true
	l.Vocab = vocabFrom(l, haproxyVocab)
	// The captured headers are logged only when the frontend captures
	// some: without, HAProxy writes nothing and one separator. A line
	// with one {…} has the request's (HAProxy writes them first).
	for _, v := range [][]string{{"captured_request_headers", "captured_response_headers"}, {"captured_response_headers"}, {"captured_request_headers"}} {
		if w := l.without(v); w != nil {
			l.Variants = append(l.Variants, w)
		}
	}
	return l, nil
}

// parseHAProxy reads a log-format string into elements: %var, %{flags}var,
// %[sample] (a field named after the sample), %% and literals; a run of
// spaces is one separator, "\ " a literal space, as HAProxy reads them.
// %{+Q} puts the value between quotes, which become literals.
func parseHAProxy(src string) ([]element, error) {
	var elems []element
	for i := 0; i < len(src); {
		switch c := src[i]; {
		case c == ' ':
			for i < len(src) && src[i] == ' ' {
				i++
			}
			elems = append(elems, element{lit: " "})
			continue
		case c == '\\' && i+1 < len(src):
			elems = append(elems, element{lit: src[i+1 : i+2]})
			i += 2
			continue
		case c != '%':
			elems = append(elems, element{lit: src[i : i+1]})
			i++
			continue
		}
		start := i
		i++
		quoted := false
		if i < len(src) && src[i] == '{' {
			end := strings.IndexByte(src[i:], '}')
			if end < 0 {
				return nil, fmt.Errorf("%s has no closing }", src[start:])
			}
			quoted = strings.Contains(src[i:i+end], "+Q")
			i += end + 1
		}
		var p Part
		switch {
		case i < len(src) && src[i] == '%':
			elems = append(elems, element{lit: "%"})
			i++
			continue
		case i < len(src) && src[i] == '[':
			end := strings.IndexByte(src[i:], ']')
			if end < 0 {
				return nil, fmt.Errorf("%s has no closing ]", src[start:])
			}
			p = Part{Field: sampleField(src[i+1 : i+end])}
			i += end + 1
		default:
			j := i
			for j < len(src) && isLetter(src[j]) {
				j++
			}
			// The longest name HAProxy knows (%Tr before %T, %tsc before %ts).
			for ; j > i; j-- {
				if v, ok := haproxyVars[src[i:j]]; ok {
					p = v
					break
				}
			}
			if j == i {
				return nil, fmt.Errorf("%s is not a log-format variable this reader knows (HAProxy's table: %%ci %%cp %%tr %%ft %%b %%s %%TR %%Tw %%Tc %%Tr %%Ta %%ST %%B %%tsc …)", src[start:min(len(src), start+5)])
			}
			i = j
		}
		switch {
		case quoted:
			elems = append(elems, element{lit: `"`}, element{part: p}, element{lit: `"`})
			continue
		case p.Field == "captured_request_headers" || p.Field == "captured_response_headers":
			// HAProxy writes the braces: literals around the field, whose
			// headers (a User-Agent) may hold spaces.
			p.Delimited = true
			elems = append(elems, element{lit: "{"}, element{part: p}, element{lit: "}"})
			continue
		}
		elems = append(elems, element{part: p})
	}
	return elems, nil
}

// sampleField names a %[sample] field: the sample's name, letters and
// digits kept, anything else as '_' (%[ssl_fc_sni] is ssl_fc_sni,
// %[capture.req.hdr(0)] capture_req_hdr_0).
func sampleField(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case isLetter(c) || isDigit(c):
			b.WriteByte(c)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "_"):
			b.WriteByte('_')
		}
	}
	return strings.TrimSuffix(b.String(), "_")
}

// without returns the format without the named fields and the separator
// after each (what HAProxy writes for a capture it does not have), or nil
// when it has none of them.
func (l *LogFormat) without(fields []string) *LogFormat {
	w := *l
	w.Parts, w.Variants = nil, nil
	dropped := 0
	for _, p := range l.Parts {
		if !containsString(fields, p.Field) {
			w.Parts = append(w.Parts, p)
			continue
		}
		dropped++
		if n := len(w.Parts); n > 0 {
			lit := strings.TrimSuffix(w.Parts[n-1].Lit, "{") + strings.TrimPrefix(p.Lit, "}")
			for strings.Contains(lit, "  ") {
				lit = strings.ReplaceAll(lit, "  ", " ")
			}
			w.Parts[n-1].Lit = lit
		}
	}
	if dropped != len(fields) {
		return nil
	}
	return &w
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
