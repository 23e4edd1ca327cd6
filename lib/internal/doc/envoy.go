package doc

import (
	"fmt"
	"strings"
)

// EnvoyDefault is Envoy's default access log format (its documentation,
// "Default format string"): what "format envoy" compiles.
const EnvoyDefault = `[%START_TIME%] "%REQ(:METHOD)% %REQ(X-ENVOY-ORIGINAL-PATH?:PATH)% %PROTOCOL%" %RESPONSE_CODE% %RESPONSE_FLAGS% %BYTES_RECEIVED% %BYTES_SENT% %DURATION% %RESP(X-ENVOY-UPSTREAM-SERVICE-TIME)% "%REQ(X-FORWARDED-FOR)%" "%REQ(USER-AGENT)%" "%REQ(X-REQUEST-ID)%" "%REQ(:AUTHORITY)%" "%UPSTREAM_HOST%"`

// envoyKinds are the command operators whose values are checked; every
// other is text. Envoy's durations are milliseconds: their fields end in
// _ms (DURATION is duration_ms), so that duration is the common name's
// seconds.
var envoyKinds = map[string]FieldKind{
	"RESPONSE_CODE": Status, "BYTES_RECEIVED": Numeric, "BYTES_SENT": Numeric,
	"DURATION": Numeric, "REQUEST_DURATION": Numeric, "REQUEST_TX_DURATION": Numeric,
	"RESPONSE_DURATION": Numeric, "RESPONSE_TX_DURATION": Numeric, "UPSTREAM_REQUEST_ATTEMPT_COUNT": Numeric,
	"REQUEST_HEADERS_BYTES": Numeric, "RESPONSE_HEADERS_BYTES": Numeric, "RESPONSE_TRAILERS_BYTES": Numeric,
	"UPSTREAM_WIRE_BYTES_SENT": Numeric, "UPSTREAM_WIRE_BYTES_RECEIVED": Numeric,
	"DOWNSTREAM_WIRE_BYTES_SENT": Numeric, "DOWNSTREAM_WIRE_BYTES_RECEIVED": Numeric,
	"UPSTREAM_HEADER_BYTES_SENT": Numeric, "UPSTREAM_HEADER_BYTES_RECEIVED": Numeric,
	"DOWNSTREAM_HEADER_BYTES_SENT": Numeric, "DOWNSTREAM_HEADER_BYTES_RECEIVED": Numeric,
	"CONNECTION_ID": Numeric,
	// Ports: numbers, so that an address _WITHOUT_PORT before ":" and its
	// port reads an IPv6 address whole (Part.Addr).
	"DOWNSTREAM_REMOTE_PORT": Numeric, "DOWNSTREAM_DIRECT_REMOTE_PORT": Numeric, "DOWNSTREAM_LOCAL_PORT": Numeric,
	"UPSTREAM_LOCAL_PORT": Numeric, "UPSTREAM_REMOTE_PORT": Numeric,
}

// envoyVocab are Envoy's common names.
var envoyVocab = []Alias{
	{Name: "status", Of: "response_code"}, {Name: "bytes", Of: "bytes_sent"},
	{Name: "method", Of: "req_method"}, {Name: "path", Of: "req_path"},
	{Name: "duration", Of: "duration_ms", Div: 1e3},
}

// envoyFormat compiles "format envoy ['FORMAT']".
func envoyFormat(arg string) (*LogFormat, error) {
	name, src := "envoy", EnvoyDefault
	if arg != "" {
		s, err := quotedStrings(arg, nil)
		if err != nil {
			return nil, fmt.Errorf("%v; want the format string, quoted, e.g. format envoy '%s'", err, EnvoyDefault)
		}
		name, src = "envoy", strings.TrimRight(s, "\n")
	}
	elems, err := parseEnvoy(src)
	if err != nil {
		return nil, err
	}
	l, err := compileLogFormat("envoy", src, elems)
	if err != nil {
		return nil, err
	}
	l.Name = name
	l.Vocab = vocabFrom(l, envoyVocab)
	return l, nil
}

// parseEnvoy reads an Envoy format string: %OPERATOR%, %OPERATOR(ARG)%
// and %OPERATOR(ARG):LENGTH% are fields, anything else literal.
func parseEnvoy(src string) ([]element, error) {
	var elems []element
	for i := 0; i < len(src); {
		if src[i] != '%' {
			var lit element
			lit, i = literalUpTo(src, i, '%')
			elems = append(elems, lit)
			continue
		}
		if strings.HasPrefix(src[i:], "%%") {
			elems = append(elems, element{lit: "%"})
			i += 2
			continue
		}
		j := i + 1
		for j < len(src) && (isLetter(src[j]) || isDigit(src[j]) || src[j] == '_') {
			j++
		}
		op, arg := src[i+1:j], ""
		if j < len(src) && src[j] == '(' {
			end := strings.IndexByte(src[j:], ')')
			if end < 0 {
				return nil, fmt.Errorf("%s has no closing )", src[i:])
			}
			arg, j = src[j+1:j+end], j+end+1
		}
		if j < len(src) && src[j] == ':' { // :LENGTH, the longest value Envoy writes
			for j++; j < len(src) && isDigit(src[j]); j++ {
			}
		}
		if op == "" || j >= len(src) || src[j] != '%' {
			return nil, fmt.Errorf("%s is not an Envoy command operator (%%NAME%%, %%NAME(ARG)%% or %%NAME(ARG):N%%)", src[i:min(len(src), j+1)])
		}
		p, err := envoyPart(op, arg)
		if err != nil {
			return nil, err
		}
		elems = append(elems, element{part: p})
		i = j + 1
	}
	return elems, nil
}

// envoyPart names an operator's field: REQ(H), RESP(H) and TRAILER(H) are
// req_, resp_ and trailer_ + the header (of X?Y, the last), lowercased,
// ':' left out and '-' as '_'; START_TIME is start_time, its layout
// rfc3339 unless a FORMAT says otherwise; any other is its name in lower
// case, a duration's with _ms, and its argument after '_'.
func envoyPart(op, arg string) (Part, error) {
	switch op {
	case "REQ", "RESP", "TRAILER":
		if i := strings.LastIndexByte(arg, '?'); i >= 0 {
			arg = arg[i+1:]
		}
		return Part{Field: strings.ToLower(op) + "_" + headerField(strings.TrimPrefix(arg, ":"))}, nil
	case "START_TIME":
		p := Part{Field: "start_time", Kind: Stamp, Layout: LayoutRFC3339}
		if arg == "%s" {
			p.Layout = LayoutUnix
		} else if arg != "" {
			layout, err := strftimeLayout(envoyFraction(arg))
			if err != nil {
				return Part{}, err
			}
			p.Layout = layout
		}
		return p, nil
	}
	name := strings.ToLower(op)
	if strings.HasSuffix(op, "DURATION") {
		name += "_ms"
	}
	if arg != "" {
		name += "_" + sampleField(strings.ToLower(arg))
	}
	return Part{Field: name, Kind: envoyKinds[op]}, nil
}

// envoyFraction rewrites Envoy's %f and %Nf (a second's fraction) into
// Go's layout of as many digits, which strftimeLayout keeps as literal
// text: ".%3f" is ".000".
func envoyFraction(f string) string {
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		if f[i] == '%' && i+1 < len(f) && f[i+1] == 'f' {
			b.WriteString("000000000")
			i++
			continue
		}
		if f[i] == '%' && i+2 < len(f) && isDigit(f[i+1]) && f[i+2] == 'f' {
			b.WriteString(strings.Repeat("0", int(f[i+1]-'0')))
			i += 2
			continue
		}
		b.WriteByte(f[i])
	}
	return b.String()
}
