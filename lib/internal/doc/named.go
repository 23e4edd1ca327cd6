package doc

import (
	"fmt"
	"slices"
	"strings"
)

// A named format is a log layout known by a name: goaccess's predefined
// formats (in lower case), HAProxy's and Envoy's defaults and their
// compiled format strings, Varnish's varnishncsa. Each compiles into a
// LogFormat, cut by the same hand-written cutter as Apache's and nginx's,
// with the few things their logs add: header lines that are no entries,
// an optional syslog header, space-padded columns, and older, shorter
// forms of the same layout.

// named is a predefined format: its template (or the Apache LogFormat it
// is), the common names it offers, and what its lines may add.
type named struct {
	apache   string   // an Apache LogFormat: the format is that
	template string   // else the layout: {field} or {field:kind} between literals
	vocab    []Alias  // the common names, beyond the fields of those names
	shorter  []string // the fields after which an older, shorter line may end
	// bare: quoted fields a line may have as a bare "-". A form of the
	// template with each written as that literal (the form lacks the
	// fields, so they read "-"; a word would let a quoted line fit it
	// too) is tried after the template's forms, in its shorter forms too.
	bare    []string
	header  string // a line starting so is a header, not an entry
	squeeze bool   // runs of spaces separate columns (squid pads them)
	// nginxStart: the layout starts as nginx's combined (Traefik's CLF).
	nginxStart bool
	summary    string
}

// namedFormats are the predefined formats, by the names a format line
// gives them. Field names are each format's own documentation's names,
// lowercased, with '-', ':' and '(' as '_' (cs(User-Agent) is
// cs_user_agent, client:port is client_port).
var namedFormats = map[string]named{
	"combined": {apache: apacheNicknames["combined"], summary: "Apache/nginx combined (goaccess COMBINED)"},
	"common":   {apache: apacheNicknames["common"], summary: "Apache common (goaccess COMMON)"},
	"vcombined": {apache: `%v:%p %h %l %u %t "%r" %>s %O "%{Referer}i" "%{User-Agent}i"`,
		summary: "Apache vhost_combined (goaccess VCOMBINED)"},
	"vcommon":     {apache: `%v:%p %h %l %u %t "%r" %>s %b`, summary: "Apache common after vhost:port (goaccess VCOMMON)"},
	"varnishncsa": {apache: `%h %l %u %t "%r" %s %b "%{Referer}i" "%{User-agent}i"`, summary: "varnishncsa's default format"},
	"traefikclf": {
		template:   `{client_host} - {client_username} [{start_local:time=clf}] "{request:request}" {downstream_status:status} {downstream_content_size:size} "{request_referer}" "{request_user_agent}" {request_count:num} "{router_name}" "{service_url}" {duration_ms:num}ms`,
		vocab:      []Alias{{Name: "time", Of: "start_local"}, {Name: "status", Of: "downstream_status"}, {Name: "bytes", Of: "downstream_content_size"}, {Name: "duration", Of: "duration_ms", Div: 1e3}},
		nginxStart: true,
		summary:    "Traefik's CLF access log (goaccess TRAEFIKCLF)",
	},
	"awselb": {
		template: `{timestamp:time=rfc3339} {elb} {client_port} {backend_port} {request_processing_time:num} {backend_processing_time:num} {response_processing_time:num} {elb_status_code} {backend_status_code} {received_bytes:size} {sent_bytes:size} "{request:request}" "{user_agent}" {ssl_cipher} {ssl_protocol}`,
		vocab: []Alias{{Name: "time", Of: "timestamp"}, {Name: "status", Of: "elb_status_code"}, {Name: "bytes", Of: "sent_bytes"},
			{Name: "duration", Of: "request_processing_time", Plus: []string{"backend_processing_time", "response_processing_time"}}},
		summary: "AWS Classic Load Balancer access log (goaccess AWSELB)",
	},
	"awsalb": {
		template: `{type} {time:time=rfc3339} {elb} {client_port} {target_port} {request_processing_time:num} {target_processing_time:num} {response_processing_time:num} {elb_status_code:status} {target_status_code} {received_bytes:size} {sent_bytes:size} "{request:request}" "{user_agent}" {ssl_cipher} {ssl_protocol} {target_group_arn} "{trace_id}" "{domain_name}" "{chosen_cert_arn}" {matched_rule_priority} {request_creation_time} "{actions_executed}" "{redirect_url}" "{error_reason}" "{target_port_list}" "{target_status_code_list}" "{classification}" "{classification_reason}" {conn_trace_id}`,
		vocab: []Alias{{Name: "status", Of: "elb_status_code"}, {Name: "bytes", Of: "sent_bytes"},
			{Name: "duration", Of: "request_processing_time", Plus: []string{"target_processing_time", "response_processing_time"}}},
		shorter: []string{"error_reason", "target_status_code_list", "classification_reason"},
		summary: "AWS Application Load Balancer access log (goaccess AWSALB)",
	},
	"awss3": {
		template: `{bucket_owner} {bucket} [{time:time=clf}] {remote_ip} {requester} {request_id} {operation} {key} "{request_uri:request}" {http_status:status} {error_code} {bytes_sent:size} {object_size:size} {total_time:num} {turn_around_time:num} "{referer}" "{user_agent}" {version_id} {host_id} {signature_version} {cipher_suite} {authentication_type} {host_header} {tls_version} {access_point_arn} {acl_required}`,
		vocab:    []Alias{{Name: "status", Of: "http_status"}, {Name: "bytes", Of: "bytes_sent"}, {Name: "duration", Of: "total_time", Div: 1e3}},
		shorter:  []string{"turn_around_time", "version_id", "host_header", "tls_version", "access_point_arn"},
		// A batch delete's line (BATCH.DELETE.OBJECT, one a key of a
		// Multi-Object Delete) has no Request-URI, Referer or User-Agent of
		// its own: S3 writes each -, without the quotes.
		bare:    []string{"request_uri", "referer", "user_agent"},
		summary: "Amazon S3 server access log (goaccess AWSS3)",
	},
	"cloudstorage": {
		template: `"{time_micros:time=unixus}","{c_ip}","{c_ip_type}","{c_ip_region}","{cs_method}","{cs_uri}","{sc_status:status}","{cs_bytes:size}","{sc_bytes:size}","{time_taken_micros:num}","{cs_host}","{cs_referer}","{cs_user_agent}","{s_request_id}","{cs_operation}","{cs_bucket}","{cs_object}"`,
		vocab: []Alias{{Name: "time", Of: "time_micros"}, {Name: "status", Of: "sc_status"}, {Name: "bytes", Of: "sc_bytes"},
			{Name: "method", Of: "cs_method"}, {Name: "path", Of: "cs_uri"}, {Name: "duration", Of: "time_taken_micros", Div: 1e6}},
		header:  `"time_micros"`,
		summary: "Google Cloud Storage usage log (goaccess CLOUDSTORAGE)",
	},
	"squid": {
		template: `{time:time=unix} {elapsed:num} {remotehost} {code}/{status:status} {bytes:size} {method} {url} {rfc931} {peerstatus}/{peerhost} {type}`,
		vocab:    []Alias{{Name: "path", Of: "url"}, {Name: "duration", Of: "elapsed", Div: 1e3}},
		squeeze:  true,
		summary:  "Squid's native access.log (goaccess SQUID)",
	},
}

// namedFormat parses "format NAME", "format haproxy …" and "format envoy
// …"; ok is false for any other line.
func (p *parser) namedFormat(n int, line string) (bool, error) {
	rest, ok := cutWord(strings.TrimLeft(line, " \t"), "format")
	if !ok {
		return false, nil
	}
	rest = strings.TrimLeft(rest, " \t")
	name, arg, _ := strings.Cut(rest, " ")
	name = strings.TrimRight(name, "\t")
	arg = strings.TrimSpace(arg)
	nf, isNamed := namedFormats[name]
	w3c, isW3C := w3cFormats[name]
	if !isNamed && !isW3C && name != "haproxy" && name != "envoy" && name != "caddy" {
		return false, nil
	}
	if err := p.once(n, "format", &p.formatLine); err != nil {
		return true, err
	}
	if arg != "" {
		arg = strings.TrimSpace(arg[:afterQuotes(arg)] + stripComment(arg[afterQuotes(arg):]))
	}
	var l *LogFormat
	var err error
	switch {
	case name == "caddy":
		if arg != "" {
			return true, p.errorf(n, "format caddy takes nothing after it (%q); for other keys, use format json NAME=PATH…", arg)
		}
		p.caddy()
		return true, nil
	case isW3C:
		if arg != "" {
			return true, p.errorf(n, "format %s takes nothing after it (%q): its columns are the file's #Fields header's", name, arg)
		}
		w := w3c.w
		p.d.Format, p.d.W3C, p.d.Vocab = W3CLog, &w, w3c.vocab
		return true, nil
	case name == "haproxy":
		l, err = haproxyFormat(arg)
	case name == "envoy":
		l, err = envoyFormat(arg)
	case arg != "":
		return true, p.errorf(n, "format %s takes nothing after it (%q): its layout is fixed; for another, write its own format string (format apache \"…\", format nginx '…')", name, arg)
	default:
		l, err = nf.compile(name)
	}
	if err != nil {
		return true, p.errorf(n, "format %s: %v", name, err)
	}
	p.d.Format, p.d.LogFormat = Named, l
	return true, nil
}

// compile makes a predefined format's LogFormat.
func (nf named) compile(name string) (*LogFormat, error) {
	var l *LogFormat
	var err error
	if nf.apache != "" {
		elems, err := parseApache(nf.apache)
		if err != nil {
			return nil, err
		}
		if l, err = compileLogFormat("apache", nf.apache, elems); err != nil {
			return nil, err
		}
		l.Vocab = apacheVocab(l)
	} else {
		server := name
		if nf.nginxStart {
			server = "nginx" // its start is nginx's combined: the built-in cutter does it
		}
		if l, err = compileTemplate(server, nf.template); err != nil {
			return nil, err
		}
		l.Vocab = nf.vocab
	}
	l.Name, l.Header, l.Squeeze = name, nf.header, nf.squeeze
	if l.Variants, err = nf.shorterForms(l); err != nil {
		return nil, err
	}
	if len(nf.bare) > 0 {
		t, err := bareTemplate(nf.template, nf.bare)
		if err != nil {
			return nil, err
		}
		b, err := compileTemplate(name, t)
		if err != nil {
			return nil, err
		}
		b.Name = name
		bs, err := nf.shorterForms(b)
		if err != nil {
			return nil, err
		}
		l.Variants = append(append(l.Variants, b), bs...)
	}
	return l, nil
}

// bareTemplate returns template with each of the quoted fields bare
// names, "{field}" or "{field:kind}" between quotes, written as a bare -.
func bareTemplate(template string, bare []string) (string, error) {
	for _, f := range bare {
		i := strings.Index(template, `"{`+f+`}"`)
		if i < 0 {
			i = strings.Index(template, `"{`+f+`:`)
		}
		end := -1
		if i >= 0 {
			end = strings.Index(template[i:], `}"`)
		}
		if end < 0 {
			return "", fmt.Errorf("internal: bare field %s is not quoted in the template", f)
		}
		template = template[:i] + "-" + template[i+end+2:]
	}
	return template, nil
}

// shorterForms returns l's older, shorter forms: l ending after each of
// nf.shorter's fields.
func (nf named) shorterForms(l *LogFormat) ([]*LogFormat, error) {
	var forms []*LogFormat
	for _, f := range nf.shorter {
		i := slices.IndexFunc(l.Parts, func(p Part) bool { return p.Field == f })
		if i < 0 {
			return nil, fmt.Errorf("internal: shorter form after %s, which is no field", f)
		}
		v := *l
		v.Variants, v.Parts = nil, slices.Clone(l.Parts[:i+1])
		if k := strings.IndexAny(v.Parts[i].Lit, " \t"); k >= 0 {
			v.Parts[i].Lit = v.Parts[i].Lit[:k] // its closing quote, not the separator and the next field's opening one
		}
		forms = append(forms, &v)
	}
	return forms, nil
}

// templateKinds are the kinds a template's {field:kind} names.
var templateKinds = map[string]FieldKind{"status": Status, "size": Size, "num": Numeric, "request": Request, "text": Text}

// compileTemplate compiles a layout written as literals with {field} or
// {field:kind} between them; kind is status, size, num, request or
// time=LAYOUT.
func compileTemplate(server, src string) (*LogFormat, error) {
	var elems []element
	for i := 0; i < len(src); {
		if src[i] != '{' {
			var lit element
			lit, i = literalUpTo(src, i, '{')
			elems = append(elems, lit)
			continue
		}
		end := strings.IndexByte(src[i:], '}')
		if end < 0 {
			return nil, fmt.Errorf("%s has no closing }", src[i:])
		}
		field, kind, _ := strings.Cut(src[i+1:i+end], ":")
		i += end + 1
		p := Part{Field: field}
		if layout, ok := strings.CutPrefix(kind, "time="); ok {
			p.Kind, p.Layout = Stamp, layout
		} else if k, ok := templateKinds[kind]; ok || kind == "" {
			p.Kind = k
		} else {
			return nil, fmt.Errorf("{%s:%s}: no such kind", field, kind)
		}
		elems = append(elems, element{part: p})
	}
	return compileLogFormat(server, src, elems)
}

// caddy makes the document read Caddy's JSON access log: its keys as
// Caddy's documentation names them (request.* nested), by their last
// segment, and the common names.
func (p *parser) caddy() {
	p.d.Format = JSON
	p.d.Preset = "caddy"
	p.d.Keys = append(p.d.Keys, []Key{
		{"ts", "ts"}, {"level", "level"}, {"logger", "logger"}, {"msg", "msg"}, {"status", "status"}, {"size", "size"},
		{"duration", "duration"}, {"bytes_read", "bytes_read"}, {"user_id", "user_id"},
		{"remote_ip", "request.remote_ip"}, {"remote_port", "request.remote_port"}, {"client_ip", "request.client_ip"},
		{"proto", "request.proto"}, {"method", "request.method"}, {"host", "request.host"}, {"uri", "request.uri"},
		{"user_agent", "request.headers.User-Agent.0"}, {"referer", "request.headers.Referer.0"},
	}...)
	p.d.Vocab = []Alias{{Name: "time", Of: "ts"}, {Name: "bytes", Of: "size"}, {Name: "path", Of: "uri"}}
	if p.timeLine == 0 {
		p.d.TimeField, p.d.Layout = "ts", LayoutUnix
	}
}
