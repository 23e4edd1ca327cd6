package extract

import "bytes"

// The fields of the Apache formats, in doc's order; the combined format
// adds referer and agent after bytes.
const (
	fHost = iota
	fIdent
	fUser
	fTime
	fMethod
	fPath
	fProto
	fStatus
	fBytes
	fReferer
	fAgent
)

// layout says where cutCombined puts each field of the combined layout:
// an index in Entry.Fields. The built-in formats' is builtinLayout; a
// compiled LogFormat that starts with the layout has its own.
type layout struct {
	host, ident, user, time int
	request                 int // the whole request, or -1 (Apache's %r has none)
	method                  int // path and proto follow it
	status, bytes           int
	referer, agent          int
	dashIdent               bool // nginx: the ident is a literal "-"
}

// builtinLayout is the built-in formats' field order.
var builtinLayout = layout{host: fHost, ident: fIdent, user: fUser, time: fTime, request: -1,
	method: fMethod, status: fStatus, bytes: fBytes, referer: fReferer, agent: fAgent}

// apache cuts an Apache common line, or a combined one, into f:
//
//	host ident user [time] "METHOD TARGET PROTO" status bytes[ "referer" "agent"]
//
// Fields are separated by exactly one space, as Apache writes them, and
// nothing may follow the last one. The request is cut into its parts only
// when split (the document uses one of them); the parts are "-" otherwise.
// Cutting never refuses a line, so it is skipped without changing what is
// dropped.
func apache(line []byte, e *Entry, combined, split bool) string {
	rest, more, reason := cutCombined(line, e, &builtinLayout, combined, split)
	if reason == "" && (more || len(rest) != 0) {
		return ReasonFormat // something follows the last field
	}
	return reason
}

// cutCombined cuts the combined (or common) layout at the start of line
// into the fields l names, and returns what follows it: after the agent's
// closing quote, or (common) after the space that ends the size, more
// saying whether there was one.
func cutCombined(line []byte, e *Entry, l *layout, combined, split bool) (rest []byte, more bool, reason string) {
	f := e.Fields
	var ok bool
	// The host (up to 39 bytes of IPv6) is found with IndexByte; the short
	// tokens after it ("-" mostly) with a plain loop.
	sp := bytes.IndexByte(line, ' ')
	if sp <= 0 {
		return nil, false, ReasonFormat
	}
	f[l.host] = line[:sp]
	rest = line[sp+1:]
	if l.dashIdent {
		if len(rest) < 2 || rest[0] != '-' || rest[1] != ' ' {
			return nil, false, ReasonFormat
		}
		rest = rest[2:]
	}
	for _, i := range [...]int{l.ident, l.user} {
		if i < 0 {
			continue
		}
		if len(rest) >= 2 && rest[0] == '-' && rest[1] == ' ' {
			f[i], rest = rest[:1], rest[2:] // "-", nearly always: no loop
			continue
		}
		if f[i], rest, ok = token(rest); !ok || len(f[i]) == 0 {
			return nil, false, ReasonFormat
		}
	}
	if len(rest) == 0 || rest[0] != '[' {
		return nil, false, ReasonFormat
	}
	end := bytes.IndexByte(rest, ']')
	if end < 0 || len(rest) < end+2 || rest[end+1] != ' ' {
		return nil, false, ReasonFormat
	}
	f[l.time], rest = rest[1:end], rest[end+2:]
	var request []byte
	if request, rest, ok = quoted(rest); !ok || len(rest) == 0 || rest[0] != ' ' {
		return nil, false, ReasonFormat
	}
	if l.request >= 0 {
		f[l.request] = request
	}
	if split {
		f[l.method], f[l.method+1], f[l.method+2] = cutRequest(request)
	} else {
		f[l.method], f[l.method+1], f[l.method+2] = dash, dash, dash
	}
	if rest = rest[1:]; len(rest) > 3 && rest[3] == ' ' && isStatus(rest[:3]) {
		// The usual three digits and a space: what token would cut.
		f[l.status], rest, ok = rest[:3], rest[4:], true
	} else if f[l.status], rest, ok = token(rest); !isStatus(f[l.status]) {
		return nil, false, ReasonStatus // (a "0" is cut by token)
	}
	if !ok {
		return nil, false, ReasonFormat // the line ends at the status
	}
	var size float64
	var isNum, valid bool
	if n, m := digitsTo(rest, ' '); n > 0 {
		// The usual size, digits then a space, read as it is cut.
		f[l.bytes], rest, ok = rest[:n], rest[n+1:], true
		size, isNum, valid = float64(m), true, true
	} else {
		f[l.bytes], rest, ok = token(rest)
		size, isNum, valid = bytesField(f[l.bytes])
	}
	if !valid {
		return nil, false, ReasonBytes
	}
	e.known(l.bytes, size, isNum)
	if !combined {
		return rest, ok, ""
	}
	if !ok {
		return nil, false, ReasonFormat
	}
	if f[l.referer], rest, ok = quoted(rest); !ok || len(rest) == 0 || rest[0] != ' ' {
		return nil, false, ReasonFormat
	}
	if f[l.agent], rest, ok = quoted(rest[1:]); !ok {
		return nil, false, ReasonFormat
	}
	return rest, false, ""
}

// token returns b up to its first space and what follows that space;
// more is false when b has no space (tok is then all of b). Tokens are
// short (an address, "-", a status), so a plain loop beats the call and
// setup of bytes.IndexByte, which the long quoted fields use.
func token(b []byte) (tok, rest []byte, more bool) {
	for i, c := range b {
		if c == ' ' {
			return b[:i], b[i+1:], true
		}
	}
	return b, b[len(b):], false
}

// quoted returns the bytes between the '"' that starts b and the first
// '"' after it that is not escaped by a backslash (Apache writes \" and
// \\ inside quotes), escapes kept; rest follows the closing quote.
func quoted(b []byte) (field, rest []byte, ok bool) {
	if len(b) == 0 || b[0] != '"' {
		return nil, nil, false
	}
	if len(b) >= 3 && b[1] == '-' && b[2] == '"' {
		return b[1:2], b[3:], true // "-", Apache's empty field: no search
	}
	for from := 1; ; {
		i := bytes.IndexByte(b[from:], '"')
		if i < 0 {
			return nil, nil, false
		}
		q := from + i
		if backslashesBefore(b[1:q])%2 == 0 {
			return b[1:q], b[q+1:], true
		}
		from = q + 1
	}
}

// backslashesBefore counts the backslashes that end b: an odd count
// escapes what follows b.
func backslashesBefore(b []byte) int {
	n := 0
	for n < len(b) && b[len(b)-1-n] == '\\' {
		n++
	}
	return n
}

// cutRequest cuts the request into method, path and proto. Apache logs
// the request line as the client sent it, so not every one is
// "METHOD TARGET PROTO": a part that cannot be told is "-", Apache's own
// word for an absent field, and the entry still counts under its status
// (a 408 for "-", a connection closed before its request; a 400 for ""
// or a TLS handshake sent to the HTTP port).
//   - METHOD TARGET PROTO: cut at the first and last space (a target may
//     itself hold spaces); all three non-empty.
//   - METHOD TARGET: an HTTP/0.9 request, proto "-".
//   - anything else ("-", "", no space, an empty part): all three "-".
func cutRequest(r []byte) (method, path, proto []byte) {
	first, _, _ := token(r) // the method: a few bytes
	last := bytes.LastIndexByte(r, ' ')
	n := len(first)
	whole := n > 0 && last < len(r)-1 // a method, and no space at the end
	switch {
	case whole && last-n >= 2:
		return first, r[n+1 : last], r[last+1:]
	case whole && last == n:
		return first, r[n+1:], dash
	}
	return dash, dash, dash
}

// dash is the field of a request part that cannot be told.
var dash = []byte("-")

// isStatus reports whether b is a status as servers log them: three
// digits (200; 499, nginx's client gone; 000, squid's and CloudFront's
// no response), 0 (Traefik's for a WebSocket, Envoy's for no response)
// or -1 (HAProxy's for no response). Each is a label value as logged:
// 0 and 000 stay apart, as their servers wrote them.
func isStatus(b []byte) bool {
	switch len(b) {
	case 3:
		return isDigit(b[0]) && isDigit(b[1]) && isDigit(b[2])
	case 1:
		return b[0] == '0'
	case 2:
		return b[0] == '-' && b[1] == '1'
	}
	return false
}

// bytesField reads an Apache size: "-" (nothing sent: valid, not a
// number) or digits that are a number (below 2^53): a longer run of digits
// is no size Apache wrote, and a sum= over it would add 0 without a trace,
// so the entry is dropped (valid false). Up to 15 digits are always below
// 2^53 (9 007 199 254 740 992), and are read as they are checked.
func bytesField(b []byte) (v float64, isNum, valid bool) {
	if len(b) == 1 && b[0] == '-' {
		return 0, false, true
	}
	if len(b) == 0 || len(b) > exactDigits {
		v, ok := number(b)
		return v, ok, ok && isDigits(b)
	}
	var m uint64
	for _, c := range b {
		if !isDigit(c) {
			return 0, false, false
		}
		m = m*10 + uint64(c-'0')
	}
	return float64(m), true, true
}

// digitsTo reads the run of 1 to exactDigits digits that starts b and
// ends at the byte end: it returns their count and value, or 0 when b does
// not start so (bytesField, or the format's check, then judges the field).
func digitsTo(b []byte, end byte) (int, uint64) {
	var m uint64
	for i, c := range b {
		switch {
		case c == end:
			return i, m // i <= exactDigits: the case below stops at it
		case !isDigit(c) || i == exactDigits:
			return 0, 0
		}
		m = m*10 + uint64(c-'0')
	}
	return 0, 0
}

// isDigits reports whether b is all digits.
func isDigits(b []byte) bool {
	for _, c := range b {
		if !isDigit(c) {
			return false
		}
	}
	return len(b) > 0
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
