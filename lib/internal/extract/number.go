package extract

import (
	"cmp"
	"strconv"

	"github.com/timbertally/timbertally/lib/internal/doc"
)

// pow10 holds the powers of ten that a float64 represents exactly (up to
// 1e22), so that dividing an exact mantissa by one rounds correctly.
var pow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// exactDigits is how many decimal digits a float64 mantissa always holds
// exactly (2^53 ≈ 9.007e15 has 16).
const exactDigits = 15

// maxNumber bounds a number's magnitude: 2^53, beyond which a float64 no
// longer holds every integer. A larger field is not a number: summing such
// values could overflow to an infinity, which no tape can hold.
const maxNumber = 1 << 53

// Number parses a numeric field: -?[0-9]+(\.[0-9]+)? of magnitude below
// 2^53. ok is false, and v 0, for "-", an empty field, a larger magnitude
// or anything else (sum treats that as 0, min/max skip it). Plain digits,
// as Apache's bytes field is, take a fast path.
func Number(b []byte) (v float64, ok bool) {
	return number(b)
}

// number parses a field or a where= value alike, without copying either.
func number[T string | []byte](b T) (float64, bool) {
	if n := len(b); n > 0 && n <= exactDigits {
		var m uint64
		i := 0
		for ; i < n && isDigit(b[i]); i++ {
			m = m*10 + uint64(b[i]-'0')
		}
		if i == n {
			return float64(m), true
		}
	}
	return slowNumber(b)
}

// slowNumber checks the grammar, then reads the value exactly when it has
// at most exactDigits digits and else by strconv (which copies).
func slowNumber[T string | []byte](b T) (float64, bool) {
	i, neg := 0, len(b) > 0 && b[0] == '-'
	if neg {
		i++
	}
	var m uint64
	digits, frac, dot := 0, 0, -1
	for ; i < len(b); i++ {
		switch c := b[i]; {
		case isDigit(c):
			m = m*10 + uint64(c-'0')
			digits++
			if dot >= 0 {
				frac++
			}
		case c == '.' && dot < 0 && digits > 0:
			dot = i
		default:
			return 0, false
		}
	}
	if digits == 0 || (dot >= 0 && frac == 0) {
		return 0, false
	}
	var v float64
	if digits > exactDigits {
		var err error
		if v, err = strconv.ParseFloat(string(b), 64); err != nil || v >= maxNumber || v <= -maxNumber {
			return 0, false
		}
	} else {
		v = float64(m) / pow10[frac]
	}
	if v == 0 {
		return 0, true // "-0" is 0, not a negative zero on the tape
	}
	if neg && v > 0 {
		v = -v
	}
	return v, true
}

// Condition is a where= filter, FIELD OP VALUE, ready to test entries:
// the value's number is worked out once, and the field's is the entry's
// (Entry.Number), so neither is parsed again per entry.
type Condition struct {
	field int
	op    doc.Op
	value string
	num   float64
	isNum bool
}

// NewCondition makes the test of field (an index in Entry.Fields) op value.
func NewCondition(field int, op doc.Op, value string) Condition {
	c := Condition{field: field, op: op, value: value}
	c.num, c.isNum = number(value)
	return c
}

// Holds evaluates the condition on e: numeric when both sides are numbers
// (Number), byte-wise when neither is. A number and a text have no order:
// <, <=, > and >= are false between them, and = and != compare the bytes.
// So Apache's "-" size, which min and max skip, is neither below 10 bytes
// nor at least 0 (byte-wise, "-" sorts before every digit).
func (c Condition) Holds(e *Entry) bool {
	a, fieldNum := e.Number(c.field)
	switch {
	case fieldNum && c.isNum:
		return holds(cmp.Compare(a, c.num), c.op)
	case fieldNum != c.isNum && c.op != doc.Eq && c.op != doc.Ne:
		return false
	}
	// string(field) in a comparison does not copy the field.
	field, r := e.Fields[c.field], 0
	switch {
	case string(field) < c.value:
		r = -1
	case string(field) > c.value:
		r = 1
	}
	return holds(r, c.op)
}

// holds says whether op holds for a comparison result c (-1, 0 or 1).
func holds(c int, op doc.Op) bool {
	switch op {
	case doc.Eq:
		return c == 0
	case doc.Ne:
		return c != 0
	case doc.Lt:
		return c < 0
	case doc.Le:
		return c <= 0
	case doc.Gt:
		return c > 0
	case doc.Ge:
		return c >= 0
	}
	return false
}

// tooLarge is ReasonNumber when a field a metric adds or compares (sum=,
// min=, max=, histogram=) is written as a number whose magnitude is 2^53
// or more (or overflows a float64): it cannot be added exactly, and is a
// !drop with a reason, as an Apache or nginx field of the same digits is,
// not a silent 0. JSON and logfmt carry any field's text, so only the
// number grammar is held to it; other text reads as no number, as before.
func (x *Extractor) tooLarge(e *Entry) string {
	for _, i := range x.numeric {
		if v := e.Fields[i]; len(v) > 0 && numberShaped(v) {
			if _, ok := e.Number(i); !ok {
				return ReasonNumber
			}
		}
	}
	return ""
}

// numberShaped reports whether b is written as a number:
// -?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?.
func numberShaped(b []byte) bool {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(b) && isDigit(b[i]) {
			i, n = i+1, n+1
		}
		return n
	}
	if digits() == 0 {
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '-' || b[i] == '+') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(b)
}

// nonDigits has the high bit set of each byte of w that is not an ASCII
// digit, exact for every byte: the add cannot carry out of a byte whose
// top bit is masked off first.
func nonDigits(w uint64) uint64 {
	x := w ^ 0x3030303030303030 // a digit's byte becomes its value, 0-9
	return ((x & 0x7f7f7f7f7f7f7f7f) + 0x7676767676767676 | x) & 0x8080808080808080
}
