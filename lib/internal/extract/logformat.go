package extract

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"slices"
	"strings"

	"github.com/timbertally/timbertally/lib/internal/doc"
)

// cut is one compiled LogFormat part: where its field goes and how it
// ends.
type cut struct {
	field int // index in Entry.Fields, or -1 (Apache's %r, which has only its parts)
	req   int // Request: the index of method; path and proto follow it
	kind  doc.FieldKind
	how   int  // how the field's end is found: one of the how constants
	end   byte // the literal's first byte, which ends the field
	tail  []byte
	skip  int  // occurrences of end inside the field
	plain bool // a text field that goes to Entry.Fields: nothing to check
	empty bool // may be empty: between literals that delimit it (HAProxy's {} captures)
	// howAddr: the byte that ends the port after the address (the next
	// cut's end), or portLast when the port ends the line.
	portEnd  byte
	portLast bool
}

// How a cut finds its field's end.
const (
	howShort  = iota // a short token: a plain loop to end
	howLong          // a long field (a time): bytes.IndexByte
	howQuoted        // the first '"' no backslash escapes
	howList          // an nginx upstream list
	howLast          // the line's end
	howStatus        // three digits then end, mostly: checked as found
	howSize          // digits then end, mostly: read as found
	howNumber        // a decimal then end, mostly: read as found
	howAddr          // an address before ':' and a port: the last ':' before the port's end
)

// logFormat is a compiled Apache LogFormat or nginx log_format.
type logFormat struct {
	prefix []byte
	cuts   []cut
	// A format that starts with Apache's combined (or common) layout, or
	// nginx's combined, has its first cuts fields done by the built-in
	// cutter: straight-line code beats a loop over cuts.
	fast     *layout
	combined bool // fast: the combined layout, else common
	at       int  // fast: the cuts before the layout (vhost_combined's %v:%p), cut by the loop
	first    int  // fast: the cuts the built-in cutter does, from at on
}

func compileLogFormat(l *doc.LogFormat) *logFormat {
	c := &logFormat{prefix: []byte(l.Prefix)}
	field := 0
	for _, p := range l.Parts {
		k := cut{field: -1, kind: p.Kind, skip: p.Skip, how: howShort, empty: p.Delimited}
		if p.Field != "" {
			k.field = field
			field++
			k.plain = p.Kind == doc.Text
		}
		if p.Kind == doc.Request {
			k.req = field
			field += 3
		}
		switch {
		case p.Lit == "":
			k.how = howLast
		case p.Addr:
			k.how = howAddr
		case p.Quoted:
			k.how = howQuoted
		case p.Kind == doc.List || p.Kind == doc.TextList:
			k.how = howList
		case p.Kind == doc.Stamp || p.Kind == doc.Request || len(c.cuts) == 0:
			k.how = howLong // a time, a request or an address: IndexByte pays
		case p.Kind == doc.Status && p.Skip == 0:
			k.how = howStatus
		case p.Kind == doc.Size && p.Skip == 0:
			k.how = howSize
		case p.Kind == doc.Numeric && p.Skip == 0:
			k.how = howNumber // %D, $request_time
		}
		if p.Lit != "" {
			k.end, k.tail = p.Lit[0], []byte(p.Lit[1:])
		}
		c.cuts = append(c.cuts, k)
	}
	for i := range c.cuts {
		if c.cuts[i].how == howAddr { // a port follows: doc.Part.Addr
			c.cuts[i].portEnd, c.cuts[i].portLast = c.cuts[i+1].end, c.cuts[i+1].how == howLast
		}
	}
	for at := 0; at <= maxLead && at < len(l.Parts); at++ {
		if at > 0 && !leadPart(l.Parts[at-1]) {
			break
		}
		if c.fast, c.combined, c.first = fastLayout(l, at, c.cuts); c.fast != nil {
			c.at = at
			break
		}
	}
	return c
}

// maxLead is how many fields may come before a layout the built-in cutter
// reads (vhost_combined's and vcommon's %v:%p: two).
const maxLead = 2

// leadPart reports whether a part before the layout is one the loop cuts
// plainly: a field ended by a literal, not quoted, not a time or a request
// (a vhost, a port).
func leadPart(p doc.Part) bool {
	return p.Lit != "" && !p.Quoted && p.Kind != doc.Stamp && p.Kind != doc.Request
}

// The combined layout's parts: their kinds and the literal after each
// (the last one's literal only starts so). nginx's combined is the same
// with its ident a literal "-".
var (
	combinedKinds = []doc.FieldKind{doc.Text, doc.Text, doc.Text, doc.Stamp, doc.Request, doc.Status, doc.Size, doc.Text, doc.Text}
	combinedLits  = []string{" ", " ", " [", "] \"", "\" ", " ", " \"", "\" \"", "\""}
	nginxKinds    = []doc.FieldKind{doc.Text, doc.Text, doc.Stamp, doc.Request, doc.Status, doc.Size, doc.Text, doc.Text}
	nginxLits     = []string{" - ", " [", "] \"", "\" ", " ", " \"", "\" \"", "\""}
)

// fastLayout says whether a LogFormat has the combined layout (Apache's
// or nginx's) or Apache's common one from its part at on (at 0: it starts
// with it), and where its fields go.
func fastLayout(l *doc.LogFormat, at int, cuts []cut) (*layout, bool, int) {
	if l.Prefix != "" {
		return nil, false, 0
	}
	parts := l.Parts[at:]
	cuts = cuts[at:]
	match := func(kinds []doc.FieldKind, lits []string) bool {
		if len(parts) < len(kinds) {
			return false
		}
		for i, k := range kinds {
			p := parts[i]
			last := i == len(kinds)-1
			if p.Kind != k || p.Skip != 0 || (k == doc.Stamp && p.Layout != doc.LayoutCLF) ||
				(!last && p.Lit != lits[i]) || (last && !strings.HasPrefix(p.Lit, lits[i])) {
				return false
			}
		}
		return true
	}
	field := func(i int) int { return cuts[i].field }
	switch {
	case l.Server == "apache" && match(combinedKinds, combinedLits):
		return &layout{host: field(0), ident: field(1), user: field(2), time: field(3), request: -1, method: cuts[4].req,
			status: field(5), bytes: field(6), referer: field(7), agent: field(8)}, true, 9
	case l.Server == "apache" && (len(parts) == 7 || len(parts) > 7 && strings.HasPrefix(parts[6].Lit, " ")) &&
		match(combinedKinds[:7], append(slices.Clone(combinedLits[:6]), "")):
		return &layout{host: field(0), ident: field(1), user: field(2), time: field(3), request: -1, method: cuts[4].req,
			status: field(5), bytes: field(6), referer: -1, agent: -1}, false, 7
	case l.Server == "nginx" && match(nginxKinds, nginxLits):
		return &layout{host: field(0), ident: -1, dashIdent: true, user: field(1), time: field(2), request: field(3), method: cuts[3].req,
			status: field(4), bytes: field(5), referer: field(6), agent: field(7)}, true, 8
	}
	return nil, false, 0
}

// logFormat cuts line as a compiled LogFormat says: the prefix, then each
// field up to its literal (a quoted field up to its first unescaped '"'),
// and nothing after the last literal.
func (x *Extractor) logFormat(line []byte, e *Entry) string {
	lf := x.lf
	if len(lf.prefix) != 0 && !bytes.HasPrefix(line, lf.prefix) {
		return ReasonFormat
	}
	rest := line[len(lf.prefix):]
	from := 0
	if lf.fast != nil {
		if lf.at > 0 {
			var reason string
			if rest, reason = x.cutAll(lf.cuts[:lf.at], rest, e); reason != "" {
				return reason
			}
		}
		var more bool
		var reason string
		if rest, more, reason = cutCombined(rest, e, lf.fast, lf.combined, x.request); reason != "" {
			return reason
		}
		from = lf.at + lf.first
		last := &lf.cuts[from-1]
		if last.how == howLast { // common, at the line's end
			if more || len(rest) != 0 {
				return ReasonFormat
			}
			return ""
		}
		if !lf.combined && !more || !x.tail(last, &rest) {
			return ReasonFormat
		}
	}
	rest, reason := x.cutAll(lf.cuts[from:], rest, e)
	if reason != "" {
		return reason
	}
	if len(rest) != 0 {
		return ReasonFormat
	}
	return ""
}

// cutAll cuts the fields of cuts from rest, in turn, and returns what
// follows the last one's literal.
func (x *Extractor) cutAll(cuts []cut, rest []byte, e *Entry) ([]byte, string) {
	f := e.Fields
	for i := range cuts {
		c := &cuts[i]
		j := -1
		switch c.how {
		case howShort:
			if len(rest) >= 2 && rest[0] == '-' && rest[1] == c.end {
				j = 1 // "-", nearly always for ident and user: no search
				break
			}
			// A text field other than "-" is mostly a name or an address
			// (a vhost, a forwarded-for): long enough for IndexByte to pay.
			if c.skip == 0 {
				j = indexByte(rest, c.end)
			} else {
				j = longEnd(rest, c.end, c.skip)
			}
			if j > 0 && c.plain {
				// A vhost, an address: set and past its literal here, not
				// by the checks below, which a plain field passes.
				f[c.field], rest = rest[:j], rest[j+1:]
				if x.tail(c, &rest) {
					continue
				}
				return nil, ReasonFormat
			}
		case howStatus:
			if len(rest) > 3 && rest[3] == c.end && isStatus(rest[:3]) {
				f[c.field], rest = rest[:3], rest[4:]
				if x.tail(c, &rest) {
					continue
				}
				return nil, ReasonFormat
			}
			j = shortEnd(rest, c.end, 0)
		case howSize:
			if n, m := digitsTo(rest, c.end); n > 0 {
				f[c.field], rest = rest[:n], rest[n+1:]
				e.known(c.field, float64(m), true)
				if x.tail(c, &rest) {
					continue
				}
				return nil, ReasonFormat
			}
			j = shortEnd(rest, c.end, 0)
		case howNumber:
			if n, v := decimalTo(rest, c.end); n > 0 {
				f[c.field], rest = rest[:n], rest[n+1:]
				e.known(c.field, v, true)
				if len(c.tail) == 0 || x.tail(c, &rest) {
					continue
				}
				return nil, ReasonFormat
			}
			j = shortEnd(rest, c.end, 0)
		case howLong:
			j = longEnd(rest, c.end, c.skip)
		case howQuoted:
			if len(rest) >= 2 && rest[0] == '-' && rest[1] == '"' {
				j = 1 // "-": no call
			} else {
				j = quotedEnd(rest)
			}
			if j >= 0 && c.plain {
				f[c.field], rest = rest[:j], rest[j+1:]
				if x.tail(c, &rest) {
					continue
				}
				return nil, ReasonFormat
			}
		case howList:
			j = listEnd(rest, c.end)
		case howAddr:
			j = addrEnd(rest, c.portEnd, c.portLast)
		case howLast:
			j = len(rest)
			if (c.kind == doc.Status || c.kind == doc.Size || c.kind == doc.Numeric) && bytes.IndexByte(rest, ' ') >= 0 {
				return nil, ReasonFormat // a checked field and more after a space, as the built-in formats see it
			}
		}
		if j < 0 {
			return nil, x.cutShort(c, rest, e)
		}
		v := rest[:j]
		if j == 0 && c.how != howQuoted && c.kind == doc.Text && !c.empty {
			return nil, ReasonFormat // the servers write "-" for an empty unquoted field, never nothing
		}
		if c.field >= 0 {
			f[c.field] = v
		}
		// A field is checked before the literal after it, as the built-in
		// formats check theirs: the same line drops for the same reason.
		if c.kind != doc.Text {
			if reason := x.check(c, v, e); reason != "" {
				return nil, reason
			}
		}
		if c.how == howLast {
			rest = rest[j:]
		} else if rest = rest[j+1:]; len(c.tail) != 0 && !x.tail(c, &rest) {
			return nil, ReasonFormat
		}
	}
	return rest, ""
}

// addrEnd returns where an address before ':' and a port ends: at the
// last ':' before the port's own end, portEnd or, when portLast, the
// line's (doc.Part.Addr), or -1.
func addrEnd(rest []byte, portEnd byte, portLast bool) int {
	k := len(rest)
	if !portLast {
		if k = indexByte(rest, portEnd); k < 0 {
			return -1
		}
	}
	return bytes.LastIndexByte(rest[:k], ':')
}

// tail consumes the rest of c's literal after its first byte from *rest,
// and reports whether it was there.
func (x *Extractor) tail(c *cut, rest *[]byte) bool {
	r := *rest
	if len(r) < len(c.tail) {
		return false
	}
	for k, b := range c.tail {
		if r[k] != b {
			return false
		}
	}
	*rest = r[len(c.tail):]
	return true
}

// decimalTo reads the number that starts b and ends at end: digits,
// optionally a '.' and more digits, at most exactDigits in all (what
// Number reads exactly), returning its length and value, or 0 when b does
// not start so (check then judges the field).
func decimalTo(b []byte, end byte) (int, float64) {
	if len(b) >= 8 && !isDigit(end) && end != '.' {
		// An integer of up to 7 digits (%D's microseconds) read from one
		// word, without a loop whose end depends on the digits' count.
		w := binary.LittleEndian.Uint64(b)
		if m := byteMask(w, end); m != 0 {
			if n := bits.TrailingZeros64(m) >> 3; n > 0 {
				sh := uint(8 * (8 - n)) // the digits to the word's top, '0's below
				if v, ok := eightDigits(w<<sh | 0x3030303030303030>>(64-sh)); ok {
					return n, float64(v)
				}
			}
		}
	}
	var m uint64
	i := 0
	for ; i < len(b) && isDigit(b[i]); i++ {
		m = m*10 + uint64(b[i]-'0')
	}
	whole := i
	switch {
	case whole == 0 || whole > exactDigits || i == len(b):
		return 0, 0
	case b[i] == end:
		return i, float64(m) // an integer: %D, most of all
	case b[i] != '.':
		return 0, 0
	}
	for i++; i < len(b) && isDigit(b[i]); i++ {
		m = m*10 + uint64(b[i]-'0')
	}
	frac := i - whole - 1
	if frac == 0 || whole+frac > exactDigits || i == len(b) || b[i] != end {
		return 0, 0
	}
	return i, float64(m) / pow10[frac]
}

// eightDigits reads the word w (little-endian) as eight decimal digits,
// ok false when a byte is not one. (The arithmetic is simdjson's.)
func eightDigits(w uint64) (uint64, bool) {
	if w&0xf0f0f0f0f0f0f0f0|(w+0x0606060606060606)&0xf0f0f0f0f0f0f0f0>>4 != 0x3333333333333333 {
		return 0, false
	}
	w = (w & 0x0f0f0f0f0f0f0f0f) * 2561 >> 8
	w = (w & 0x00ff00ff00ff00ff) * 6553601 >> 16
	return (w & 0x0000ffff0000ffff) * 42949672960001 >> 32, true
}

// shortEnd returns the index of the first end byte of b after skip
// others, or -1. Fields are mostly short tokens ("-", a status), so a
// plain loop beats bytes.IndexByte's setup.
func shortEnd(b []byte, end byte, skip int) int {
	for i, c := range b {
		if c == end {
			if skip == 0 {
				return i
			}
			skip--
		}
	}
	return -1
}

// longEnd is shortEnd for a longer field.
func longEnd(b []byte, end byte, skip int) int {
	at := 0
	for {
		i := indexByte(b[at:], end)
		if i < 0 {
			return -1
		}
		if skip == 0 {
			return at + i
		}
		skip--
		at += i + 1
	}
}

// indexByte is bytes.IndexByte for the fields after the combined layout
// (a vhost, an address, a forwarded-for): they are mostly shorter than 32
// bytes, which it reads 8 a step without IndexByte's call and setup.
func indexByte(b []byte, c byte) int {
	j := 0
	for ; j+8 <= len(b) && j < 32; j += 8 {
		if m := byteMask(binary.LittleEndian.Uint64(b[j:]), c); m != 0 {
			return j + bits.TrailingZeros64(m)>>3
		}
	}
	if k := bytes.IndexByte(b[j:], c); k >= 0 {
		return j + k
	}
	return -1
}

// quotedEnd returns the index of b's first '"' not escaped by a backslash
// (Apache writes \" and \\, nginx's escape=json \" and \\), or -1.
func quotedEnd(b []byte) int {
	if len(b) >= 2 && b[0] == '-' && b[1] == '"' {
		return 1 // "-": no search
	}
	for from := 0; ; {
		i := indexByte(b[from:], '"')
		if i < 0 {
			return -1
		}
		q := from + i
		if backslashesBefore(b[:q])%2 == 0 {
			return q
		}
		from = q + 1
	}
}

// listEnd returns the index of the end byte that ends an nginx upstream
// list, or -1: a space that follows a ',' or is part of " : " belongs to
// the list.
func listEnd(b []byte, end byte) int {
	for i := 0; i < len(b); i++ {
		if b[i] != end {
			continue
		}
		if end == ' ' {
			if i > 0 && b[i-1] == ',' {
				continue // "a, b"
			}
			if i+2 < len(b) && b[i+1] == ':' && b[i+2] == ' ' {
				i += 2 // "a : b"
				continue
			}
		}
		return i
	}
	return -1
}

// cutShort is the reason for a line that ends inside field c: the field's
// own check first (as the built-in formats report a line that ends at a
// bad status as status), else format.
func (x *Extractor) cutShort(c *cut, rest []byte, e *Entry) string {
	if c.kind == doc.Request {
		return ReasonFormat
	}
	if reason := x.check(c, rest, e); reason != "" {
		return reason
	}
	return ReasonFormat
}

// check validates a field of a checked kind and records the number it is
// read as, so that a metric does not read it again.
func (x *Extractor) check(c *cut, v []byte, e *Entry) string {
	switch c.kind {
	case doc.Status:
		if !isStatus(v) {
			return ReasonStatus
		}
	case doc.Size:
		n, isNum, valid := bytesField(v)
		if !valid {
			return ReasonBytes
		}
		e.known(c.field, n, isNum)
	case doc.Numeric:
		if n, ok := number(v); ok {
			e.known(c.field, n, true)
		} else if len(v) != 1 || v[0] != '-' {
			return ReasonNumber
		}
	case doc.List:
		n, ok, valid := listSum(v)
		if !valid {
			return ReasonNumber
		}
		e.known(c.field, n, ok)
	case doc.Request:
		f := e.Fields
		if x.request {
			f[c.req], f[c.req+1], f[c.req+2] = cutRequest(v)
		} else {
			f[c.req], f[c.req+1], f[c.req+2] = dash, dash, dash
		}
	}
	return ""
}

// listSum reads an nginx upstream list ("0.012, 0.003 : 0.100", "-"): its
// number is the sum of its numbers (the time spent over every upstream
// tried), "-" elements left out; ok is false when no element is a number.
// valid is false when an element is neither, or when anything but nginx's
// ", " and " : " comes between two: "0.040 1" is a list and a field the
// format does not have, not 1.04.
func listSum(b []byte) (sum float64, ok, valid bool) {
	for len(b) > 0 {
		i := 0
		for i < len(b) && b[i] != ',' && b[i] != ' ' {
			i++
		}
		if elem := b[:i]; len(elem) != 1 || elem[0] != '-' {
			v, isNum := number(elem)
			if !isNum {
				return 0, false, false
			}
			sum, ok = sum+v, true
		}
		switch b = b[i:]; {
		case len(b) == 0:
		case len(b) > 2 && b[0] == ',' && b[1] == ' ':
			b = b[2:]
		case len(b) > 3 && b[0] == ' ' && b[1] == ':' && b[2] == ' ':
			b = b[3:]
		default:
			return 0, false, false
		}
	}
	return sum, ok, true
}
