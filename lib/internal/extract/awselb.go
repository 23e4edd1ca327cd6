package extract

import "github.com/timbertally/timbertally/lib/internal/doc"

// AWS's Classic Load Balancer log is 15 fields, most of them short (three
// timers, two statuses, two counts): the compiled cutter's loop pays a
// turn for each. Its straight-line cut below does what that loop does
// for each field's kind, in the layout's order, and gives up (to the
// compiled cutter, the one owner of the drop reasons) on any line the
// loop would refuse. FuzzNamedFastCuts holds the two to the same fields,
// numbers and reasons.

// elbShape is the layout the cut is written for: each cut's kind and
// literal. A layout of another shape gets no fast cut.
var elbShape = []struct {
	kind doc.FieldKind
	lit  string
}{
	{doc.Stamp, " "}, {doc.Text, " "}, {doc.Text, " "}, {doc.Text, " "},
	{doc.Numeric, " "}, {doc.Numeric, " "}, {doc.Numeric, " "}, {doc.Text, " "}, {doc.Text, " "},
	{doc.Size, " "}, {doc.Size, ` "`}, {doc.Request, `" "`}, {doc.Text, `" `}, {doc.Text, " "}, {doc.Text, ""},
}

// elbFields are the field indexes of the layout's cuts, in order, and the
// request's parts' first (method).
type elbFields struct {
	f   [15]int
	req int
}

// elbIndexes returns the fields of the compiled awselb layout, or nil when
// it is not of elbShape.
func elbIndexes(l *doc.LogFormat, lf *logFormat) *elbFields {
	if len(l.Parts) != len(elbShape) || len(lf.cuts) != len(elbShape) || l.Prefix != "" {
		return nil
	}
	a := &elbFields{}
	for i, p := range l.Parts {
		if p.Kind != elbShape[i].kind || p.Lit != elbShape[i].lit || p.Skip != 0 || p.Field == "" ||
			p.Quoted != (p.Kind == doc.Request || i == 12) {
			return nil
		}
		a.f[i] = lf.cuts[i].field
	}
	a.req = lf.cuts[11].req
	return a
}

// decimalField cuts a numeric field ending at end into field fi, as the
// loop's howNumber and its check do: a decimal, another number, or "-";
// false for anything the loop refuses.
func decimalField(e *Entry, fi int, b []byte, end byte) ([]byte, bool) {
	if n, v := decimalTo(b, end); n > 0 {
		e.Fields[fi] = b[:n]
		e.known(fi, v, true)
		return b[n+1:], true
	}
	j := shortEnd(b, end, 0)
	if j < 0 {
		return nil, false
	}
	v := b[:j]
	if n, ok := number(v); ok {
		e.known(fi, n, true)
	} else if len(v) != 1 || v[0] != '-' {
		return nil, false
	}
	e.Fields[fi] = v
	return b[j+1:], true
}

// sizeField cuts a size ending at end into field fi, as the loop's
// howSize and its check do: digits or "-"; false for anything the loop
// refuses.
func sizeField(e *Entry, fi int, b []byte, end byte) ([]byte, bool) {
	if n, m := digitsTo(b, end); n > 0 {
		e.Fields[fi] = b[:n]
		e.known(fi, float64(m), true)
		return b[n+1:], true
	}
	j := shortEnd(b, end, 0)
	if j < 0 {
		return nil, false
	}
	n, isNum, valid := bytesField(b[:j])
	if !valid {
		return nil, false
	}
	e.Fields[fi] = b[:j]
	e.known(fi, n, isNum)
	return b[j+1:], true
}

// cut is awselb's straight-line cut (a fastCut).
func (a *elbFields) cut(x *Extractor, line []byte, e *Entry) bool {
	f := e.Fields
	j := indexByte(line, ' ') // timestamp: a time, which the loop lets be empty (its parse refuses it)
	if j < 0 {
		return false
	}
	f[a.f[0]] = line[:j]
	rest := line[j+1:]
	var ok bool
	for _, k := range a.f[1:4] { // elb client:port backend:port
		if f[k], rest, ok = upTo(rest, ' '); !ok {
			return false
		}
	}
	for _, k := range a.f[4:7] { // the three processing times
		if rest, ok = decimalField(e, k, rest, ' '); !ok {
			return false
		}
	}
	for _, k := range a.f[7:9] { // elb_status_code backend_status_code: text, as the layout has them
		if f[k], rest, ok = upTo(rest, ' '); !ok {
			return false
		}
	}
	if rest, ok = sizeField(e, a.f[9], rest, ' '); !ok {
		return false
	}
	if rest, ok = sizeField(e, a.f[10], rest, ' '); !ok || len(rest) == 0 || rest[0] != '"' {
		return false
	}
	rest = rest[1:]
	if j = quotedEnd(rest); j < 0 {
		return false
	}
	f[a.f[11]] = rest[:j]
	if x.request {
		f[a.req], f[a.req+1], f[a.req+2] = cutRequest(rest[:j])
	} else {
		f[a.req], f[a.req+1], f[a.req+2] = dash, dash, dash
	}
	if rest = rest[j+1:]; len(rest) < 2 || rest[0] != ' ' || rest[1] != '"' {
		return false
	}
	rest = rest[2:]
	if j = quotedEnd(rest); j < 0 || j+1 >= len(rest) || rest[j+1] != ' ' { // user_agent
		return false
	}
	f[a.f[12]], rest = rest[:j], rest[j+2:]
	if f[a.f[13]], rest, ok = upTo(rest, ' '); !ok { // ssl_cipher
		return false
	}
	if len(rest) == 0 { // ssl_protocol: the rest of the line, not empty
		return false
	}
	f[a.f[14]] = rest
	return true
}
