package extract

import (
	"encoding/binary"
	"math/bits"
)

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
	// httpslog's TLS fields after the request: fc_err ssl_fc_err_hex
	// ssl_c_err ssl_c_ca_err ssl_fc_is_resumed, then ssl_fc_sni
	// ssl_version ssl_ciphers; tls[0] is -1 for httplog.
	tls   [8]int
	reads []bool // numbersRead's, made at the first line
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
		request: at("http_request"), method: at("method"),
		tls: [8]int{at("fc_err"), at("ssl_fc_err_hex"), at("ssl_c_err"), at("ssl_c_ca_err"), at("ssl_fc_is_resumed"),
			at("ssl_fc_sni"), at("ssl_version"), at("ssl_ciphers")}}
	if tcp {
		h.date = at("accept_date")
		h.timers = [5]int{at("Tw"), at("Tc"), at("Tt"), -1, -1}
	}
	return h
}

// numbersRead says, per field, whether the document may read its number:
// a metric's field or condition's, or the field a common name works out
// its number from. The fast cutters check every numeric field but record
// only these numbers (Entry.Number works the others out if ever asked).
func numbersRead(x *Extractor) []bool {
	r := make([]bool, len(x.names))
	for i, n := range x.names {
		r[i] = x.d.Uses(n)
	}
	for _, a := range x.aliases {
		if a.div != 0 && a.div != 1 || len(a.plus) > 0 { // a common name copying the bytes reads no number
			r[a.of] = true
			for _, p := range a.plus {
				r[p] = true
			}
		}
	}
	return r
}

// upTo cuts a non-empty field ending at the first c of b; ok is false
// when b has none or the field is empty. The fields it cuts are short (a
// backend, "-", "----") and their lengths vary line to line: the first
// word is searched without a call, and without a branch a byte, whose
// exit the predictor would miss on a busy server's lines
// (BenchmarkNamedFormats' -varied rows; bench/README.md, Named formats).
func upTo(b []byte, c byte) (field, rest []byte, ok bool) {
	if len(b) >= 8 {
		if m := byteMask(binary.LittleEndian.Uint64(b), c); m != 0 {
			i := bits.TrailingZeros64(m) >> 3
			return b[:i], b[i+1:], i > 0
		}
	}
	i := indexByte(b, c)
	if i < 0 {
		return nil, nil, false
	}
	return b[:i], b[i+1:], i > 0
}

// closingQuote returns the index of the first '"' after the one that
// starts b, or -1 when there is none or a backslash may escape it (left
// to the compiled cutter, which reads escapes).
func closingQuote(b []byte) int {
	switch {
	case len(b) < 2:
		return -1
	case b[1] == '"':
		return 1
	case len(b) > 2 && b[2] == '"' && b[1] != '\\': // "-", mostly: no search
		return 2
	}
	q := indexByte(b[1:], '"') // b[q] is the byte before the quote
	if q < 0 || b[q] == '\\' {
		return -1
	}
	return q + 1
}

// upToLong is upTo for a longer field (a date, an address), which
// indexByte passes a word a step.
func upToLong(b []byte, c byte) (field, rest []byte, ok bool) {
	i := indexByte(b, c)
	if i <= 0 {
		return nil, nil, false
	}
	return b[:i], b[i+1:], true
}

// intTo reads an integer of 1 to 15 digits, optionally after '-', ending
// at c: what the compiled cutter reads as that number (no "-" alone, no
// fraction, no "+": those are left to it); n is its length (c's index).
func intTo(b []byte, c byte) (n int, v float64, ok bool) {
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

// numTo cuts a number field ending at c into field f, recording its
// number when reads says the document may read it.
func numTo(e *Entry, f int, b []byte, c byte, reads []bool) ([]byte, bool) {
	if len(b) >= 8 { // 1 to 7 digits, found a word at a time
		if n := bits.TrailingZeros64(nonDigits(binary.LittleEndian.Uint64(b))) >> 3; n > 0 && n < 8 && b[n] == c {
			e.Fields[f] = b[:n]
			if reads[f] {
				e.known(f, float64(num(b[:n])), true)
			}
			return b[n+1:], true
		}
	}
	n, v, ok := intTo(b, c)
	if !ok {
		return nil, false
	}
	e.Fields[f] = b[:n]
	if reads[f] {
		e.known(f, v, true)
	}
	return b[n+1:], true
}

// numbers cuts the integers of fs from b, '/' between them and end after
// the last. Their ends are the bytes that are not digits, found a word
// at a time: the numbers' lengths vary line to line, and a loop over
// their digits mispredicts the exit from each. Anything but 1 to 15
// digits each (a "-1" timer) is left to numbersSlow.
func numbers(e *Entry, fs []int, b []byte, end byte, reads []bool) ([]byte, bool) {
	k, start, last := 0, 0, len(fs)-1
	for w := 0; w+8 <= len(b); w += 8 {
		for m := nonDigits(binary.LittleEndian.Uint64(b[w:])); m != 0; m &= m - 1 {
			i := w + bits.TrailingZeros64(m)>>3
			sep := byte('/')
			if k == last {
				sep = end
			}
			if b[i] != sep || i == start || i-start > exactDigits {
				return numbersSlow(e, fs, b, end, reads)
			}
			f := fs[k]
			e.Fields[f] = b[start:i]
			if reads[f] {
				e.known(f, float64(num(b[start:i])), true)
			}
			if k == last {
				return b[i+1:], true
			}
			k, start = k+1, i+1
		}
	}
	return numbersSlow(e, fs, b, end, reads)
}

// numbersSlow is numbers a number at a time, numTo's way, for a line's
// last bytes and for negative numbers.
func numbersSlow(e *Entry, fs []int, b []byte, end byte, reads []bool) ([]byte, bool) {
	for k, f := range fs {
		sep := byte('/')
		if k == len(fs)-1 {
			sep = end
		}
		var ok bool
		if b, ok = numTo(e, f, b, sep, reads); !ok {
			return nil, false
		}
	}
	return b, true
}

// haproxyHead cuts what httplog and tcplog share: client_ip:client_port
// [date] frontend backend/server, and returns the rest after the
// server's space.
func haproxyHead(x *Extractor, h *haproxyFields, line []byte, e *Entry) ([]byte, bool) {
	if h.reads == nil {
		h.reads = numbersRead(x)
	}
	f := e.Fields
	var ok bool
	c := addrEnd(line, ' ', false) // an IPv6 address has colons of its own (doc.Part.Addr)
	if c <= 0 {
		return nil, false
	}
	f[h.clientIP] = line[:c]
	if line, ok = numTo(e, h.clientPort, line[c+1:], ' ', h.reads); !ok || len(line) == 0 || line[0] != '[' {
		return nil, false
	}
	if f[h.date], line, ok = upToLong(line[1:], ']'); !ok || len(line) == 0 || line[0] != ' ' {
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
	if line, ok = numbers(e, h.conns[:], line, '/', h.reads); !ok {
		return nil, false
	}
	if f[h.retries], line, ok = upTo(line, ' '); !ok {
		return nil, false
	}
	if line, ok = numTo(e, h.srvQueue, line, '/', h.reads); !ok {
		return nil, false
	}
	return line, true
}

// httpLog cuts HAProxy's httplog:
//
//	ci:cp [tr] ft b/s TR/Tw/Tc/Tr/Ta ST B CC CS tsc ac/fc/bc/sc/rc sq/bq [{hr} [{hs}]] "r"
func (h *haproxyFields) httpLog(x *Extractor, line []byte, e *Entry) bool {
	f := e.Fields
	line, ok := haproxyHead(x, h, line, e)
	if !ok {
		return false
	}
	if line, ok = numbers(e, h.timers[:], line, ' ', h.reads); !ok {
		return false
	}
	if len(line) > 3 && line[3] == ' ' && isStatus(line[:3]) {
		f[h.status], line = line[:3], line[4:]
	} else if f[h.status], line, ok = upTo(line, ' '); !ok || !isStatus(f[h.status]) {
		return false
	}
	if line, ok = numTo(e, h.bytes, line, ' ', h.reads); !ok {
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
	if line, ok = numTo(e, h.backendQueue, line, ' ', h.reads); !ok {
		return false
	}
	f[h.reqHeaders], f[h.respHeaders] = dash, dash
	if len(line) > 0 && line[0] == '{' { // the captures: the request's, then the response's
		i := indexByte(line, '}')
		if i < 0 || len(line) < i+3 || line[i+1] != ' ' {
			return false
		}
		f[h.reqHeaders], line = line[1:i], line[i+2:]
		if len(line) > 0 && line[0] == '{' {
			if i = indexByte(line, '}'); i < 0 || len(line) < i+3 || line[i+1] != ' ' {
				return false
			}
			f[h.respHeaders], line = line[1:i], line[i+2:]
		}
	}
	q := closingQuote(line)
	if len(line) < 2 || line[0] != '"' || q < 0 {
		return false
	}
	if h.tls[0] < 0 { // httplog: the request's closing quote ends the line
		if q != len(line)-1 {
			return false
		}
	} else if !h.tlsTail(line[q+1:], e) {
		return false
	}
	r := line[1:q]
	f[h.request] = r
	if x.request {
		f[h.method], f[h.method+1], f[h.method+2] = cutRequest(r)
	} else {
		f[h.method], f[h.method+1], f[h.method+2] = dash, dash, dash
	}
	return true
}

// tlsTail cuts what httpslog writes after the request's quote:
//
//	fc_err/ssl_fc_err_hex/ssl_c_err/ssl_c_ca_err/ssl_fc_is_resumed ssl_fc_sni/ssl_version/ssl_ciphers
//
// text fields each, the last one the rest of the line.
func (h *haproxyFields) tlsTail(b []byte, e *Entry) bool {
	if len(b) < 2 || b[0] != ' ' {
		return false
	}
	b = b[1:]
	f := e.Fields
	var ok bool
	for k, end := range [7]byte{'/', '/', '/', '/', ' ', '/', '/'} {
		if f[h.tls[k]], b, ok = upTo(b, end); !ok {
			return false
		}
	}
	f[h.tls[7]] = b
	return len(b) > 0
}

// tcpLog cuts HAProxy's tcplog:
//
//	ci:cp [t] ft b/s Tw/Tc/Tt B ts ac/fc/bc/sc/rc sq/bq
func (h *haproxyFields) tcpLog(x *Extractor, line []byte, e *Entry) bool {
	line, ok := haproxyHead(x, h, line, e)
	if !ok {
		return false
	}
	if line, ok = numbers(e, h.timers[:3], line, ' ', h.reads); !ok {
		return false
	}
	if line, ok = numTo(e, h.bytes, line, ' ', h.reads); !ok {
		return false
	}
	if line, ok = haproxyTail(h, line, e); !ok {
		return false
	}
	// backend_queue ends the line.
	if len(line) > exactDigits || !isDigits(line) {
		return false
	}
	e.Fields[h.backendQueue] = line
	if h.reads[h.backendQueue] {
		e.known(h.backendQueue, float64(num(line)), true)
	}
	return true
}
