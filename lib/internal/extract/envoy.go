package extract

// envoyFields are the field indexes of Envoy's default format, in its
// order (doc's envoyDefault).
type envoyFields struct {
	start, method, path, protocol, code, flags int
	received, sent, duration, upstreamTime     int
	quoted                                     [5]int // x-forwarded-for, user-agent, x-request-id, :authority, upstream host
	reads                                      []bool // numbersRead's, made at the first line
}

func envoyIndexes(names []string) *envoyFields {
	at := func(n string) int { return indexOf(names, n) }
	return &envoyFields{start: at("start_time"), method: at("req_method"), path: at("req_path"), protocol: at("protocol"),
		code: at("response_code"), flags: at("response_flags"), received: at("bytes_received"), sent: at("bytes_sent"),
		duration: at("duration_ms"), upstreamTime: at("resp_x_envoy_upstream_service_time"),
		quoted: [5]int{at("req_x_forwarded_for"), at("req_user_agent"), at("req_x_request_id"), at("req_authority"), at("upstream_host")}}
}

// cut cuts Envoy's default format (see haproxy.go for the rule: it
// only succeeds where the compiled cutter reads the same):
//
//	[START_TIME] "METHOD PATH PROTOCOL" CODE FLAGS RECEIVED SENT DURATION UPSTREAM_TIME "XFF" "UA" "ID" "AUTHORITY" "UPSTREAM"
func (v *envoyFields) cut(x *Extractor, line []byte, e *Entry) bool {
	if v.reads == nil {
		v.reads = numbersRead(x)
	}
	f := e.Fields
	if len(line) < 2 || line[0] != '[' {
		return false
	}
	var ok bool
	if f[v.start], line, ok = upToLong(line[1:], ']'); !ok || len(line) < 2 || line[0] != ' ' || line[1] != '"' {
		return false
	}
	if f[v.method], line, ok = upTo(line[2:], ' '); !ok {
		return false
	}
	if f[v.path], line, ok = upTo(line, ' '); !ok {
		return false
	}
	if f[v.protocol], line, ok = upTo(line, '"'); !ok || len(line) == 0 || line[0] != ' ' {
		return false
	}
	line = line[1:]
	if len(line) > 3 && line[3] == ' ' && isStatus(line[:3]) {
		f[v.code], line = line[:3], line[4:]
	} else if f[v.code], line, ok = upTo(line, ' '); !ok || !isStatus(f[v.code]) {
		return false
	}
	if f[v.flags], line, ok = upTo(line, ' '); !ok {
		return false
	}
	for _, k := range [...]int{v.received, v.sent, v.duration} {
		if line, ok = numTo(e, k, line, ' ', v.reads); !ok {
			return false
		}
	}
	if f[v.upstreamTime], line, ok = upTo(line, ' '); !ok || len(line) == 0 || line[0] != '"' {
		return false
	}
	for i, k := range v.quoted {
		q := closingQuote(line)
		if q < 0 {
			return false
		}
		f[k], line = line[1:q], line[q+1:]
		if i < len(v.quoted)-1 {
			if len(line) < 2 || line[0] != ' ' || line[1] != '"' {
				return false
			}
			line = line[1:]
		}
	}
	return len(line) == 0
}
