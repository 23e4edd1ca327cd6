package extract

import "bytes"

// The default formats of HAProxy (httplog, tcplog) and Envoy are cut by
// straight-line code first: their many short fields (timers, counters)
// cost a turn each of the compiled cutter's loop. A fast cut only ever
// succeeds on a line the compiled cutter reads the same way (the same
// field ends, checks and numbers); on anything else (a "-1" status, a
// "+" under logasap, a line cut short) it gives up and the compiled
// cutter, the one owner of the rules and of the drop reasons, reads the
// line. FuzzNamedFormats holds the two to the same fields.

// fastCut is a format's straight-line cutter: true when it read line
// into e whole.
type fastCut func(x *Extractor, line []byte, e *Entry) bool

// haproxyFields are the field indexes the fast HAProxy cutters write.
type haproxyFields struct {
	clientIP, clientPort, date, frontend, backend, server int
	timers                                                [5]int // TR Tw Tc Tr Ta (httplog), Tw Tc Tt (tcplog)
	status, bytes, reqCookie, respCookie, termination     int
	conns                                                 [4]int // actconn feconn beconn srv_conn
	retries, srvQueue, backendQueue                       int
	reqHeaders, respHeaders, request, method              int
}

func haproxyIndexes(names []string, tcp bool) *haproxyFields {
	at := func(n string) int { return indexOf(names, n) }
	h := &haproxyFields{clientIP: at("client_ip"), clientPort: at("client_port"), date: at("request_date"),
		frontend: at("frontend_name_transport"), backend: at("backend_name"), server: at("server_name"),
		timers: [5]int{at("TR"), at("Tw"), at("Tc"), at("Tr"), at("Ta")},
		status: at("status_code"), bytes: at("bytes_read"), reqCookie: at("captured_request_cookie"),
		respCookie: at("captured_response_cookie"), termination: at("termination_state"),
		conns:   [4]int{at("actconn"), at("feconn"), at("beconn"), at("srv_conn")},
		retries: at("retries"), srvQueue: at("srv_queue"), backendQueue: at("backend_queue"),
		reqHeaders: at("captured_request_headers"), respHeaders: at("captured_response_headers"),
		request: at("http_request"), method: at("method")}
	if tcp {
		h.date = at("accept_date")
		h.timers = [5]int{at("Tw"), at("Tc"), at("Tt"), -1, -1}
	}
	return h
}

// upTo cuts a non-empty field ending at the first c of b; ok is false
// when b has none or the field is empty.
func upTo(b []byte, c byte) (field, rest []byte, ok bool) {
	i := indexByte(b, c)
	if i <= 0 {
		return nil, nil, false
	}
	return b[:i], b[i+1:], true
}

// intTo reads an integer of 1 to 15 digits, optionally after '-', ending
// at c: what the compiled cutter reads as that number (no "-" alone, no
// fraction, no "+": those are left to it).
func intTo(b []byte, c byte) (n int, v float64, ok bool) {
	// One or two digits, most timers, counters and queues: no loop.
	if len(b) >= 3 && isDigit(b[0]) {
		if b[1] == c {
			return 1, float64(b[0] - '0'), true
		}
		if isDigit(b[1]) && b[2] == c {
			return 2, float64((b[0]-'0')*10 + b[1] - '0'), true
		}
	}
	return longIntTo(b, c)
}

// longIntTo is intTo for the rest.
func longIntTo(b []byte, c byte) (n int, v float64, ok bool) {
	i, neg := 0, len(b) > 0 && b[0] == '-'
	if neg {
		i = 1
	}
	var m uint64
	start := i
	for ; i < len(b) && isDigit(b[i]); i++ {
		m = m*10 + uint64(b[i]-'0')
	}
	if i == start || i-start > exactDigits || i == len(b) || b[i] != c {
		return 0, 0, false
	}
	v = float64(m)
	if neg && m != 0 {
		v = -v
	}
	return i, v, true
}

// numTo cuts a number field ending at c into field f.
func numTo(e *Entry, f int, b []byte, c byte) ([]byte, bool) {
	n, v, ok := intTo(b, c)
	if !ok {
		return nil, false
	}
	e.Fields[f] = b[:n]
	e.known(f, v, true)
	return b[n+1:], true
}

// numbers cuts the integers of fs from b, '/' between them and end after
// the last, in one pass; false (left to the compiled cutter) for
// anything but 1 to 15 digits, optionally after '-', each.
func numbers(e *Entry, fs []int, b []byte, end byte) ([]byte, bool) {
	i := 0
	for k, f := range fs {
		sep := byte('/')
		if k == len(fs)-1 {
			sep = end
		}
		start := i
		neg := i < len(b) && b[i] == '-'
		if neg {
			i++
		}
		var m uint64
		d := i
		for i < len(b) && isDigit(b[i]) {
			m = m*10 + uint64(b[i]-'0')
			i++
		}
		if i == d || i-d > exactDigits || i == len(b) || b[i] != sep {
			return nil, false
		}
		v := float64(m)
		if neg && m != 0 {
			v = -v
		}
		e.Fields[f] = b[start:i]
		e.known(f, v, true)
		i++
	}
	return b[i:], true
}

// haproxyHead cuts what httplog and tcplog share: client_ip:client_port
// [date] frontend backend/server, and returns the rest after the
// server's space.
func haproxyHead(h *haproxyFields, line []byte, e *Entry) ([]byte, bool) {
	f := e.Fields
	var ok bool
	if f[h.clientIP], line, ok = upTo(line, ':'); !ok {
		return nil, false
	}
	n, v, ok := intTo(line, ' ')
	if !ok || len(line) < n+2 || line[n+1] != '[' {
		return nil, false
	}
	f[h.clientPort] = line[:n]
	e.known(h.clientPort, v, true)
	line = line[n+2:]
	if f[h.date], line, ok = upTo(line, ']'); !ok || len(line) == 0 || line[0] != ' ' {
		return nil, false
	}
	if f[h.frontend], line, ok = upTo(line[1:], ' '); !ok {
		return nil, false
	}
	if f[h.backend], line, ok = upTo(line, '/'); !ok {
		return nil, false
	}
	f[h.server], line, ok = upTo(line, ' ')
	return line, ok
}

// haproxyTail cuts what follows the status or the bytes in both formats:
// … termination_state actconn/feconn/beconn/srv_conn/retries
// srv_queue/backend_queue, returning the rest after backend_queue and the
// byte that ended it (' ' or the line's end).
func haproxyTail(h *haproxyFields, line []byte, e *Entry) ([]byte, bool) {
	f := e.Fields
	var ok bool
	if f[h.termination], line, ok = upTo(line, ' '); !ok {
		return nil, false
	}
	if line, ok = numbers(e, h.conns[:], line, '/'); !ok {
		return nil, false
	}
	if f[h.retries], line, ok = upTo(line, ' '); !ok {
		return nil, false
	}
	if line, ok = numTo(e, h.srvQueue, line, '/'); !ok {
		return nil, false
	}
	return line, true
}

// fastHTTPLog cuts HAProxy's httplog:
//
//	ci:cp [tr] ft b/s TR/Tw/Tc/Tr/Ta ST B CC CS tsc ac/fc/bc/sc/rc sq/bq [{hr} [{hs}]] "r"
func fastHTTPLog(x *Extractor, line []byte, e *Entry) bool {
	h := x.nf.hap
	f := e.Fields
	line, ok := haproxyHead(h, line, e)
	if !ok {
		return false
	}
	if line, ok = numbers(e, h.timers[:], line, ' '); !ok {
		return false
	}
	if len(line) > 3 && line[3] == ' ' && isStatus(line[:3]) {
		f[h.status], line = line[:3], line[4:]
	} else if f[h.status], line, ok = upTo(line, ' '); !ok || !isStatus(f[h.status]) {
		return false
	}
	if line, ok = numTo(e, h.bytes, line, ' '); !ok {
		return false
	}
	if f[h.reqCookie], line, ok = upTo(line, ' '); !ok {
		return false
	}
	if f[h.respCookie], line, ok = upTo(line, ' '); !ok {
		return false
	}
	if line, ok = haproxyTail(h, line, e); !ok {
		return false
	}
	n, v, ok := intTo(line, ' ')
	if !ok {
		return false
	}
	f[h.backendQueue] = line[:n]
	e.known(h.backendQueue, v, true)
	line = line[n+1:]
	f[h.reqHeaders], f[h.respHeaders] = dash, dash
	if len(line) > 0 && line[0] == '{' { // the captures: the request's, then the response's
		i := bytes.IndexByte(line, '}')
		if i < 0 || len(line) < i+3 || line[i+1] != ' ' {
			return false
		}
		f[h.reqHeaders], line = line[1:i], line[i+2:]
		if len(line) > 0 && line[0] == '{' {
			if i = bytes.IndexByte(line, '}'); i < 0 || len(line) < i+3 || line[i+1] != ' ' {
				return false
			}
			f[h.respHeaders], line = line[1:i], line[i+2:]
		}
	}
	if len(line) < 2 || line[0] != '"' || quotedEnd(line[1:]) != len(line)-2 {
		return false // the request's closing quote ends the line
	}
	r := line[1 : len(line)-1]
	f[h.request] = r
	if x.request {
		f[h.method], f[h.method+1], f[h.method+2] = cutRequest(r)
	} else {
		f[h.method], f[h.method+1], f[h.method+2] = dash, dash, dash
	}
	return true
}

// fastTCPLog cuts HAProxy's tcplog:
//
//	ci:cp [t] ft b/s Tw/Tc/Tt B ts ac/fc/bc/sc/rc sq/bq
func fastTCPLog(x *Extractor, line []byte, e *Entry) bool {
	h := x.nf.hap
	line, ok := haproxyHead(h, line, e)
	if !ok {
		return false
	}
	if line, ok = numbers(e, h.timers[:3], line, ' '); !ok {
		return false
	}
	if line, ok = numTo(e, h.bytes, line, ' '); !ok {
		return false
	}
	if line, ok = haproxyTail(h, line, e); !ok {
		return false
	}
	// backend_queue ends the line.
	var m uint64
	if len(line) == 0 || len(line) > exactDigits {
		return false
	}
	for _, c := range line {
		if !isDigit(c) {
			return false
		}
		m = m*10 + uint64(c-'0')
	}
	e.Fields[h.backendQueue] = line
	e.known(h.backendQueue, float64(m), true)
	return true
}
