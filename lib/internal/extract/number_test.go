package extract

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/timbertally/timbertally/lib/internal/doc"
)

func TestNumberReadsDecimalsAndRefusesTheRest(t *testing.T) {
	for s, want := range map[string]float64{
		"0": 0, "2326": 2326, "007": 7, "-3": -3, "1.5": 1.5, "-0.25": -0.25,
		"123456789012345": 123456789012345, "9007199254740991": 9007199254740991, "-0": 0, "-0.000": 0,
		"0.1": 0.1, "12345678901234.5": 12345678901234.5, "1.00000000000000000001": 1,
	} {
		if v, ok := Number([]byte(s)); !ok || v != want {
			t.Errorf("Number(%q) = %v, %v; want %v", s, v, ok, want)
		}
	}
	// Beyond 2^53 is not a number: sums of such values could overflow to an
	// infinity, which no tape can hold.
	for _, s := range []string{"", "-", "1.", ".5", "1e3", "+1", "1,5", " 1", "1 ", "--1", "1.2.3", "0x10", "NaN", "Inf",
		"9007199254740992", "-9007199254740992", "1234567890123456789", strings.Repeat("9", 400)} {
		if v, ok := Number([]byte(s)); ok || v != 0 {
			t.Errorf("Number(%q) = %v, %v, want 0, not a number", s, v, ok)
		}
	}
	if v, _ := Number([]byte("-0")); math.Signbit(v) {
		t.Errorf(`Number("-0") is a negative zero, which the tape would show as -0`)
	}
}

func TestNumberOfDigitsAllocatesNothing(t *testing.T) {
	b := []byte("48213")
	if n := testing.AllocsPerRun(100, func() { Number(b) }); n != 0 {
		t.Errorf("Number allocates %v times", n)
	}
}

func TestCompareIsNumericWhenBothSidesAreNumbers(t *testing.T) {
	for _, c := range []struct {
		field string
		op    doc.Op
		value string
		want  bool
	}{
		{"500", doc.Ge, "500", true},
		{"499", doc.Ge, "500", false},
		{"1000", doc.Gt, "999", true}, // byte-wise "1000" < "999"
		{"200", doc.Eq, "200.0", true},
		{"200", doc.Ne, "200", false},
		{"-1", doc.Lt, "0", true},
		{"10", doc.Le, "9", false},
		{"abc", doc.Lt, "abd", true}, // byte-wise
		{"10", doc.Gt, "9x", false},  // a number and a text have no order
		{"10", doc.Lt, "9x", false},
		{"-", doc.Ge, "0", false}, // Apache's "-" size: no order against a number
		{"-", doc.Le, "0", false},
		{"-", doc.Lt, "10", false},
		{"-", doc.Eq, "0", false},
		{"-", doc.Ne, "0", true},
		{"abc", doc.Gt, "100", false},
		{"10", doc.Ne, "10x", true},
		{"-", doc.Eq, "-", true},
		{"/a", doc.Ne, "/b", true},
		{"\xff", doc.Gt, "z", true},
		{"GET", doc.Eq, "GET", true},
		{"GET", doc.Ge, "POST", false},
	} {
		// Twice over one entry: the field's number is then the entry's own.
		e := &Entry{Fields: [][]byte{[]byte(c.field)}}
		for range 2 {
			if got := NewCondition(0, c.op, c.value).Holds(e); got != c.want {
				t.Errorf("%q %v %q holds: %v, want %v", c.field, c.op, c.value, got, c.want)
			}
		}
	}
}

func TestCompareAllocatesNothing(t *testing.T) {
	e := &Entry{Fields: [][]byte{[]byte("/index.html")}}
	c := NewCondition(0, doc.Lt, "/z")
	if n := testing.AllocsPerRun(100, func() { c.Holds(e) }); n != 0 {
		t.Errorf("Holds allocates %v times", n)
	}
}

// TestNonDigitsMarksExactlyTheBytesThatAreNotDigits puts every byte value
// at every position of a word of digits (and after bytes whose top bit is
// set, which an add could carry out of) and checks each byte's mark.
func TestNonDigitsMarksExactlyTheBytesThatAreNotDigits(t *testing.T) {
	for _, fill := range []byte{'5', 0xff, '9', '0', 0x8a} {
		for pos := range 8 {
			for v := range 256 {
				var b [8]byte
				for i := range b {
					b[i] = fill
				}
				b[pos] = byte(v)
				m := nonDigits(binary.LittleEndian.Uint64(b[:]))
				for i, c := range b {
					if marked := m>>(8*i+7)&1 == 1; marked == isDigit(c) {
						t.Fatalf("nonDigits(% x): byte %d (%#x) marked %v", b, i, c, marked)
					}
				}
				if m&^0x8080808080808080 != 0 {
					t.Fatalf("nonDigits(% x) = %#x: bits other than each byte's top", b, m)
				}
			}
		}
	}
}
