package extract

// Squid pads its elapsed-time column with spaces. The compiled cutter
// reads the layout with each run of spaces as one space, which takes a
// copy of the line (squeeze); the straight-line cut below reads the
// padded line in place instead, and gives up (to the squeeze and the
// compiled cutter, the one owner of the rules and the drop reasons) on
// any line where the two could differ: a field that is empty, a number
// it does not read as decimalTo and digitsTo do, a '/' outside its
// token, a space in the last field. FuzzNamedFastCuts holds the two to
// the same fields, numbers and reasons.

// squidFields are the field indexes of squid's layout, in its order:
// time elapsed remotehost code/status bytes method url rfc931
// peerstatus/peerhost type.
type squidFields struct {
	time, elapsed, remotehost, code, status, bytes int
	method, url, rfc931, peerStatus, peerHost, typ int
}

func squidIndexes(names []string) *squidFields {
	at := func(n string) int { return indexOf(names, n) }
	return &squidFields{time: at("time"), elapsed: at("elapsed"), remotehost: at("remotehost"), code: at("code"),
		status: at("status"), bytes: at("bytes"), method: at("method"), url: at("url"), rfc931: at("rfc931"),
		peerStatus: at("peerstatus"), peerHost: at("peerhost"), typ: at("type")}
}

// padded cuts a non-empty field ending at a space, and the run of spaces
// after it: what the squeezed line's field and its one space are.
func padded(b []byte) (field, rest []byte, ok bool) {
	i := indexByte(b, ' ')
	if i <= 0 {
		return nil, nil, false
	}
	return b[:i], unpadded(b[i+1:]), true
}

// unpadded is b after the spaces it starts with.
func unpadded(b []byte) []byte {
	i := 0
	for i < len(b) && b[i] == ' ' {
		i++
	}
	return b[i:]
}

// slashed splits a token at its first '/' into two non-empty parts
// (squid's code/status, peerstatus/peerhost).
func slashed(tok []byte) (a, b []byte, ok bool) {
	for i, c := range tok {
		if c == '/' {
			return tok[:i], tok[i+1:], i > 0 && i < len(tok)-1
		}
	}
	return nil, nil, false
}

// cut is squid's straight-line cut (a fastCut), on the line as
// logged, padding and all.
func (s *squidFields) cut(x *Extractor, line []byte, e *Entry) bool {
	f := e.Fields
	var tok, rest []byte
	var ok bool
	if f[s.time], rest, ok = padded(line); !ok {
		return false
	}
	n, v := decimalTo(rest, ' ') // elapsed: as the compiled cutter's howNumber reads it
	if n == 0 {
		return false
	}
	f[s.elapsed] = rest[:n]
	e.known(s.elapsed, v, true)
	rest = unpadded(rest[n+1:]) // rest[n] is the space decimalTo stopped at
	if f[s.remotehost], rest, ok = padded(rest); !ok {
		return false
	}
	// code/status: the '/' inside the token, so the first '/' of the line
	// after remotehost, where the compiled cutter ends code.
	if tok, rest, ok = padded(rest); !ok {
		return false
	}
	if f[s.code], f[s.status], ok = slashed(tok); !ok || !isStatus(f[s.status]) {
		return false
	}
	m, size := digitsTo(rest, ' ') // bytes: as howSize reads it
	if m == 0 {
		return false
	}
	f[s.bytes] = rest[:m]
	e.known(s.bytes, float64(size), true)
	rest = unpadded(rest[m+1:])
	if f[s.method], rest, ok = padded(rest); !ok {
		return false
	}
	if f[s.url], rest, ok = padded(rest); !ok {
		return false
	}
	if f[s.rfc931], rest, ok = padded(rest); !ok {
		return false
	}
	if tok, rest, ok = padded(rest); !ok {
		return false
	}
	if f[s.peerStatus], f[s.peerHost], ok = slashed(tok); !ok {
		return false
	}
	// type: the rest of the line, which the compiled cutter would read
	// squeezed: only one without a space is the same either way.
	if len(rest) == 0 || indexByte(rest, ' ') >= 0 {
		return false
	}
	f[s.typ] = rest
	return true
}
