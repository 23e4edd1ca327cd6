package extract

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// logfmtKey is a key a logfmt document reads and the field it fills.
type logfmtKey struct {
	key   []byte
	field int
}

// logfmt reads key=value pairs as go-logfmt's grammar has them: pairs
// apart by white space (bytes up to ' '), a key of bytes above ' ' but
// '=' and '"', a value bare (the same bytes) or quoted with JSON's escapes,
// and a key alone (no '=') with an empty value. A '"' or '=' where the
// grammar has none drops the line (reason format). The fields named are
// set, the last pair winning when a key repeats; an absent key is empty.
//
// A quoted value's escapes are checked where it is met and undone only
// when a named key has it: a line's other values (an agent, an error
// message) are never copied.
func (x *Extractor) logfmt(line []byte, e *Entry) string {
	for i := range e.Fields {
		e.Fields[i] = line[:0]
	}
	x.scratch = x.scratch[:0]
	for i := 0; ; {
		for i < len(line) && line[i] <= ' ' {
			i++
		}
		if i == len(line) {
			return ""
		}
		ks := i
		i = bareEnd(line, i)
		if i == ks {
			return ReasonFormat // a pair starting with '=' or '"'
		}
		key, v := line[ks:i], line[i:i]
		esc := false
		if i < len(line) && line[i] == '=' {
			i++
			if i < len(line) && line[i] == '"' {
				s, q, hasEsc, ok := scanString(line, i)
				if !ok {
					return ReasonFormat
				}
				v, esc, i = line[s:q], hasEsc, q+1
			} else {
				vs := i
				i = bareEnd(line, i)
				v = line[vs:i]
			}
		}
		if i < len(line) && line[i] > ' ' {
			return ReasonFormat // '"' or '=' inside a key or bare value, or glued after a quote
		}
		if x.lkeyLens&keyLenBit(len(key)) == 0 {
			continue // no key read is this long: most pairs of a line
		}
		for _, k := range x.lkeys {
			if len(k.key) == len(key) && k.key[0] == key[0] && bytes.Equal(k.key, key) {
				if esc {
					// scanString checked every escape: unescape reads them.
					mark := len(x.scratch)
					x.scratch, _ = unescape(x.scratch, v)
					v, esc = x.scratch[mark:], false
				}
				e.Fields[k.field] = v
			}
		}
	}
}

// keyLenBit is the bit of Extractor.lkeyLens for a key of n bytes.
func keyLenBit(n int) uint64 {
	return 1 << min(n, 63)
}

// bareEnd returns where the bare key or value at b[i] ends: at a byte up
// to ' ', '=' or '"'. It reads 8 bytes a step (a trace id, a caller, a
// time is 20-40 bytes), the last few one by one.
func bareEnd(b []byte, i int) int {
	for ; i+8 <= len(b); i += 8 {
		if m := bareStop(binary.LittleEndian.Uint64(b[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for i < len(b) && b[i] > ' ' && b[i] != '=' && b[i] != '"' {
		i++
	}
	return i
}

// bareStop has the high bit set of each byte of w (little-endian) that
// ends a bare word, and perhaps of bytes after the first: only its lowest
// set bit is exact, as byteMask's. A byte below 0x21 borrows in w - 0x21
// a byte, and its own high bit is clear; a byte at or above 0x80 has its
// high bit set, so is never taken, and a byte from 0x21 to 0x7f does not
// borrow, so no false mark comes before the first true one.
func bareStop(w uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	return (w-0x21*ones)&^w&highs | byteMask(w, '=') | byteMask(w, '"')
}
