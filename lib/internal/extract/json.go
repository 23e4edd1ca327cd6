package extract

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// maxDepth is the deepest nesting a JSON line may have; a deeper one is
// dropped (reason format) rather than read with an ever larger stack.
const maxDepth = 256

// keyNode is one step of the key paths a JSON document reads: a key (an
// array index when it is digits) that is a field, a step to deeper keys,
// or both.
type keyNode struct {
	key   []byte
	index int // key as an array index, or -1
	field int // index in Entry.Fields, or -1
	kids  []*keyNode
	short []shortKey // the kids whose keys are under 8 bytes, for shortKid
}

// shortKey is a key of under 8 bytes as one word: its bytes (little-
// endian) and its length in the top byte, which no such key reaches.
type shortKey struct {
	word uint64
	kid  *keyNode
}

// keyWord is the shortKey word of the n (< 8) bytes of w's start.
func keyWord(w uint64, n int) uint64 {
	return w&(1<<(8*n)-1) | uint64(n)<<56
}

// addPath adds the key path a.b.c of field to the tree under n.
func (n *keyNode) addPath(keys []string, field int) {
	for _, seg := range keys {
		var next *keyNode
		for _, k := range n.kids {
			if string(k.key) == seg {
				next = k
			}
		}
		if next == nil {
			next = &keyNode{key: []byte(seg), index: -1, field: -1}
			if i, err := strconv.Atoi(seg); err == nil && i >= 0 && isDigits([]byte(seg)) {
				next.index = i
			}
			n.kids = append(n.kids, next)
			if len(seg) < 8 {
				var w [8]byte
				copy(w[:], seg)
				n.short = append(n.short, shortKey{keyWord(binary.LittleEndian.Uint64(w[:]), len(seg)), next})
			}
		}
		n = next
	}
	n.field = field
}

// kid returns the step for an object key, or nil.
func (n *keyNode) kid(key []byte) *keyNode {
	for _, k := range n.kids {
		if len(k.key) == len(key) && bytes.Equal(k.key, key) {
			return k
		}
	}
	return nil
}

// shortKid is kid for the key b[i+1:q], under 8 bytes, with 8 bytes of
// b after i: it compares one word a step, not the key's bytes.
func (n *keyNode) shortKid(b []byte, i, q int) *keyNode {
	w := keyWord(binary.LittleEndian.Uint64(b[i+1:]), q-i-1)
	for _, k := range n.short {
		if k.word == w {
			return k.kid
		}
	}
	return nil
}

// clearBelow empties the fields of the steps below n (each a key path
// through n's value), as if n's key had not been read yet.
func (n *keyNode) clearBelow(e *Entry, empty []byte) {
	for _, k := range n.kids {
		if k.field >= 0 {
			e.reset(k.field, empty)
		}
		k.clearBelow(e, empty)
	}
}

// element returns the step for an array index, or nil.
func (n *keyNode) element(i int) *keyNode {
	for _, k := range n.kids {
		if k.index == i {
			return k
		}
	}
	return nil
}

// json reads one JSON object: every field its key path reaches, strings
// unescaped (into x.scratch when they hold escapes), numbers and true and
// false as written, null and absent keys empty; objects and arrays as
// their JSON text. The line must be one object and nothing else.
func (x *Extractor) json(line []byte, e *Entry) string {
	for i := range e.Fields {
		e.Fields[i] = line[:0]
	}
	x.scratch = x.scratch[:0]
	i := skipWS(line, 0)
	if i == len(line) || line[i] != '{' {
		return ReasonFormat
	}
	i, ok := x.object(line, i, x.keys, e, 0)
	if !ok || skipWS(line, i) != len(line) {
		return ReasonFormat
	}
	return ""
}

// object reads the object at b[i] ('{'), reading the keys n leads to and
// skipping the rest; it returns the index after its '}'.
func (x *Extractor) object(b []byte, i int, n *keyNode, e *Entry, depth int) (int, bool) {
	if depth > maxDepth {
		return 0, false
	}
	if i = skipWS(b, i+1); i < len(b) && b[i] == '}' {
		return i + 1, true
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return 0, false
		}
		var kid *keyNode
		var ok bool
		q := shortString(b, i)
		if q >= 0 { // a short key, mostly: no call
			kid = n.shortKid(b, i, q)
		} else {
			mark := len(x.scratch)
			var key []byte
			var kq int
			if key, kq, ok = x.str(b, i); !ok {
				return 0, false
			}
			kid, q = n.kid(key), kq
			x.scratch = x.scratch[:mark] // the key is compared, never kept
		}
		if i = skipWS(b, q+1); i >= len(b) || b[i] != ':' {
			return 0, false
		}
		i = skipWS(b, i+1)
		switch {
		case kid != nil:
			i, ok = x.value(b, i, kid, e, depth+1)
		case i < len(b) && b[i] == '"': // a string, mostly: skipped here, a short one without a call
			if q := shortString(b, i); q >= 0 {
				i, ok = q+1, true
			} else {
				i, ok = longString(b, i)
			}
		default:
			i, ok = skipValue(b, i, depth+1)
		}
		if !ok {
			return 0, false
		}
		if i < len(b) && b[i] == ',' { // the next member, mostly: no call
			i = skipWS(b, i+1)
			continue
		}
		var end bool
		if i, end, ok = afterValue(b, i, '}'); end || !ok {
			return i, ok
		}
	}
}

// afterValue reads what follows a container's member at b[i]: a ',' (the
// next member follows, at next) or the container's close (end, next after
// it).
func afterValue(b []byte, i int, close byte) (next int, end, ok bool) {
	if i = skipWS(b, i); i >= len(b) {
		return 0, false, false
	}
	switch b[i] {
	case ',':
		return skipWS(b, i+1), false, true
	case close:
		return i + 1, true, true
	}
	return 0, false, false
}

// array reads the array at b[i] ('['), reading the elements n's index
// steps lead to.
func (x *Extractor) array(b []byte, i int, n *keyNode, e *Entry, depth int) (int, bool) {
	if depth > maxDepth {
		return 0, false
	}
	if i = skipWS(b, i+1); i < len(b) && b[i] == ']' {
		return i + 1, true
	}
	var ok bool
	for k := 0; ; k++ {
		if kid := n.element(k); kid != nil {
			i, ok = x.value(b, i, kid, e, depth+1)
		} else {
			i, ok = skipValue(b, i, depth+1)
		}
		if !ok {
			return 0, false
		}
		if i < len(b) && b[i] == ',' { // the next member, mostly: no call
			i = skipWS(b, i+1)
			continue
		}
		var end bool
		if i, end, ok = afterValue(b, i, ']'); end || !ok {
			return i, ok
		}
	}
}

// value reads the value at b[i] for step n: a field's value, deeper keys,
// or both (an object that is a field is also its JSON text).
func (x *Extractor) value(b []byte, i int, n *keyNode, e *Entry, depth int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	// A key given again replaces what its first value gave, the fields
	// below it included (the last one counts, as in Python's json): a
	// later "req":null leaves req.m empty, not the first req's m.
	n.clearBelow(e, b[:0])
	start := i
	var end int
	var ok bool
	switch c := b[i]; {
	case c == '"' && n.field >= 0:
		v, q, ok := x.str(b, i)
		e.reset(n.field, v)
		return q + 1, ok
	case c == '{' && len(n.kids) > 0:
		end, ok = x.object(b, i, n, e, depth)
	case c == '[' && len(n.kids) > 0:
		end, ok = x.array(b, i, n, e, depth)
	case c == '-' || isDigit(c):
		var exp bool
		if end, exp, ok = scanNumber(b, i); ok && exp && n.field >= 0 {
			v := b[start:end]
			f, err := strconv.ParseFloat(string(v), 64)
			num := err == nil && f < maxNumber && f > -maxNumber
			if !num {
				f = 0
			}
			e.reset(n.field, v)
			e.known(n.field, f+0, num) // +0: no negative zero
			return end, true
		}
	default:
		end, ok = skipValue(b, i, depth)
	}
	if !ok || n.field < 0 {
		return end, ok
	}
	v := b[start:end]
	if v[0] == 'n' {
		v = v[:0] // null: as absent
	}
	e.reset(n.field, v)
	return end, true
}

// skipValue returns the index after the JSON value at b[i], checking its
// grammar. Only a container counts toward maxDepth (skipContainer
// checks it): a number at the deepest level is read as a string is.
func skipValue(b []byte, i, depth int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{':
		return skipContainer(b, i, depth, '}', true)
	case '[':
		return skipContainer(b, i, depth, ']', false)
	case 't':
		return literal(b, i, "true")
	case 'f':
		return literal(b, i, "false")
	case 'n':
		return literal(b, i, "null")
	}
	end, _, ok := scanNumber(b, i)
	return end, ok
}

// skipContainer skips an object (keyed) or an array starting at b[i].
func skipContainer(b []byte, i, depth int, close byte, keyed bool) (int, bool) {
	if depth > maxDepth {
		return 0, false
	}
	if i = skipWS(b, i+1); i < len(b) && b[i] == close {
		return i + 1, true
	}
	var ok bool
	for {
		if keyed {
			if i >= len(b) || b[i] != '"' {
				return 0, false
			}
			if q := shortString(b, i); q >= 0 {
				i = q + 1
			} else if i, ok = longString(b, i); !ok {
				return 0, false
			}
			if i = skipWS(b, i); i >= len(b) || b[i] != ':' {
				return 0, false
			}
			i = skipWS(b, i+1)
		}
		if i < len(b) && b[i] == '"' { // a string, mostly: skipped here, a short one without a call
			if q := shortString(b, i); q >= 0 {
				i = q + 1
			} else if i, ok = longString(b, i); !ok {
				return 0, false
			}
		} else if i, ok = skipValue(b, i, depth+1); !ok {
			return 0, false
		}
		if i < len(b) && b[i] == ',' { // the next member, mostly: no call
			i = skipWS(b, i+1)
			continue
		}
		var end bool
		if i, end, ok = afterValue(b, i, close); end || !ok {
			return i, ok
		}
	}
}

func literal(b []byte, i int, word string) (int, bool) {
	if len(b)-i >= len(word) && string(b[i:i+len(word)]) == word {
		return i + len(word), true
	}
	return 0, false
}

// scanNumber checks -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? at b[i]
// and says whether the number has an exponent (Number does not read one).
func scanNumber(b []byte, i int) (end int, exp, ok bool) {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		i = digitsFrom(b, i)
	default:
		return 0, false, false
	}
	if i < len(b) && b[i] == '.' {
		j := digitsFrom(b, i+1)
		if j == i+1 {
			return 0, false, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digitsFrom(b, i)
		if j == i {
			return 0, false, false
		}
		return j, true, true
	}
	return i, false, true
}

func digitsFrom(b []byte, i int) int {
	for i < len(b) && isDigit(b[i]) {
		i++
	}
	return i
}

// skipWS returns the index of the first byte at or after b[i] that is not
// JSON's white space. Most lines have none: one comparison says so.
func skipWS(b []byte, i int) int {
	for i < len(b) && b[i] <= ' ' && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string at b[i] ('"'), checking
// its escapes.
func skipString(b []byte, i int) (int, bool) {
	if q := shortString(b, i); q >= 0 {
		return q + 1, true
	}
	return longString(b, i)
}

// longString is skipString for a string shortString does not read.
func longString(b []byte, i int) (int, bool) {
	_, q, _, ok := scanString(b, i)
	return q + 1, ok
}

// str returns the string at b[i] ('"') unescaped: its bytes in b, or in
// x.scratch when it holds escapes; q is its closing quote.
func (x *Extractor) str(b []byte, i int) (v []byte, q int, ok bool) {
	s, q, esc, ok := scanString(b, i)
	if !ok || !esc {
		return b[s:q], q, ok
	}
	mark := len(x.scratch)
	if x.scratch, ok = unescape(x.scratch, b[s:q]); !ok {
		return nil, 0, false
	}
	return x.scratch[mark:], q, true
}

// scanString finds the string at b[i] ('"'): its content is b[s:q], q
// the closing quote; esc says whether it holds a backslash. ok is false
// for a string not closed or with an escape unescape does not read
// (checked as it is met: a skipped string is not read again). It reads 8
// bytes a step, finding the first '"' or '\\' of each word with
// bitwise arithmetic (a plain loop over bytes was a third of a JSON
// line's time), and the last few bytes one by one.
func scanString(b []byte, i int) (s, q int, esc, ok bool) {
	s = i + 1
	j := s
	for j+8 <= len(b) {
		m := stopMask(binary.LittleEndian.Uint64(b[j:]))
		if m == 0 {
			j += 8
			continue
		}
		j += bits.TrailingZeros64(m) >> 3
		if b[j] == '"' {
			return s, j, esc, true
		}
		if !validEscape(b[j:]) {
			return 0, 0, false, false
		}
		esc = true
		j += 2 // the backslash and the byte it escapes
	}
	for ; j < len(b); j++ {
		switch b[j] {
		case '"':
			return s, j, esc, true
		case '\\':
			if !validEscape(b[j:]) {
				return 0, 0, false, false
			}
			esc = true
			j++
		}
	}
	return 0, 0, false, false
}

// shortString returns the closing quote of the string at b[i] ('"')
// when it comes within the 8 bytes after the opening one with no
// backslash before it, else -1 (scanString then reads the string). Most
// keys and many values are that short: it is small enough to inline,
// which spares them scanString's call and loop.
func shortString(b []byte, i int) int {
	if i+9 > len(b) {
		return -1
	}
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	w := binary.LittleEndian.Uint64(b[i+1:])
	x, y := w^(ones*'"'), w^(ones*'\\')
	q := (x - ones) &^ x & highs                // byteMask(w, '"')
	if q != 0 && (y-ones)&^y&highs&(q-1) == 0 { // no backslash before the quote
		return i + 1 + bits.TrailingZeros64(q)>>3
	}
	return -1
}

// stopMask has the high bit set of each byte of w (little-endian) that is
// '"' or '\\', and perhaps of bytes after the first such one: only its
// lowest set bit is exact, and only it is read.
func stopMask(w uint64) uint64 {
	return byteMask(w, '"') | byteMask(w, '\\')
}

// byteMask has the high bit set of each byte of w (little-endian) that is
// c, and perhaps of bytes after the first such one: only its lowest set
// bit is exact (a borrow runs only from a byte that matched).
func byteMask(w uint64, c byte) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	x := w ^ (ones * uint64(c))
	return (x - ones) &^ x & highs
}

// validEscape reports whether the escape at the start of s ('\\') is
// one unescape reads.
func validEscape(s []byte) bool {
	if len(s) < 2 || strings.IndexByte(`"\\/bfnrtu`, s[1]) < 0 {
		return false
	}
	if s[1] == 'u' {
		_, ok := hex4(s)
		return ok
	}
	return true
}

// unescape appends the JSON string content s to dst with its escapes
// undone: \" \\ \/ \b \f \n \r \t and \uXXXX, a surrogate pair as its one
// character and a lone surrogate as U+FFFD (as Go's encoding/json does).
// Other bytes, invalid UTF-8 included, are kept as they are.
func unescape(dst, s []byte) ([]byte, bool) {
	for len(s) > 0 {
		i := bytes.IndexByte(s, '\\')
		if i < 0 {
			return append(dst, s...), true
		}
		dst = append(dst, s[:i]...)
		s = s[i:]
		if len(s) < 2 {
			return dst, false
		}
		switch c := s[1]; c {
		case '"', '\\', '/':
			dst = append(dst, c)
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, n := unicodeEscape(s)
			if n == 0 {
				return dst, false
			}
			dst = utf8.AppendRune(dst, r)
			s = s[n:]
			continue
		default:
			return dst, false
		}
		s = s[2:]
	}
	return dst, true
}

// unicodeEscape reads \uXXXX (and a low surrogate's \uXXXX after a high
// one) at the start of s: the rune and the bytes read, 0 when malformed.
func unicodeEscape(s []byte) (rune, int) {
	r, ok := hex4(s)
	if !ok {
		return 0, 0
	}
	if utf16.IsSurrogate(r) {
		if r2, ok := hex4(s[6:]); ok && r < 0xdc00 {
			if c := utf16.DecodeRune(r, r2); c != utf8.RuneError {
				return c, 12
			}
		}
		return utf8.RuneError, 6
	}
	return r, 6
}

// hex4 reads \uXXXX at the start of s.
func hex4(s []byte) (rune, bool) {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return 0, false
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case isDigit(c):
			r = r<<4 | rune(c-'0')
		case 'a' <= c && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}
