package extract

import (
	"encoding/binary"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestW3CColumnsSplitAtTheSeparatorsOnly reads lines whose columns start
// with the byte after the separator ('!' after ' ', '\b' after '\t'),
// some of them long (read by IndexByte past their first words), with
// separators at every offset of a word.
func TestW3CColumnsSplitAtTheSeparatorsOnly(t *testing.T) {
	for _, c := range []struct{ format, line, field, want string }{
		{"w3c\nmetric s count by=cs_uri_stem,cs_user_agent", "2019-08-21 15:08:47 ::1 GET !x !q 80 - ::1 !Mozilla/5.0+(Windows+NT+10.0;+Win64;+x64)+AppleWebKit/537.36 - 200 0 0 270",
			"cs_user_agent", "!Mozilla/5.0+(Windows+NT+10.0;+Win64;+x64)+AppleWebKit/537.36"},
		{"w3c\nmetric s count by=cs_uri_stem", "2019-08-21 15:08:47 ::1 GET !x !q 80 - ::1 ! ! 200 0 0 270", "cs_uri_stem", "!x"},
		{"w3c\nmetric s count by=cs_uri_query", "2019-08-21 15:08:47 ::1 GET !x !q 80 - ::1 ! ! 200 0 0 270", "cs_uri_query", "!q"},
		{"cloudfront\nmetric s count by=x_edge_location", "#Fields: date time x-edge-location sc-bytes c-ip\n2019-12-04\t21:02:31\t\bLAX1\t392\t192.0.2.100", "x_edge_location", "\bLAX1"},
	} {
		x := namedExtractor(t, c.format)
		var e Entry
		var r string
		for _, l := range strings.Split(c.line, "\n") {
			r = x.Extract([]byte(l), &e)
		}
		if r != "" {
			t.Fatalf("%q: dropped (%s)", c.line, r)
		}
		if got := string(e.Fields[x.Field(c.field)]); got != c.want {
			t.Errorf("%q: %s = %q, want %q", c.line, c.field, got, c.want)
		}
	}
}

// TestW3CFieldAHeaderNoLongerNamesIsEmptyOnTheLinesAfterIt sets a column
// on one line, then a #Fields header without it: the next line's field
// is empty, not the line before's value.
func TestW3CFieldAHeaderNoLongerNamesIsEmptyOnTheLinesAfterIt(t *testing.T) {
	x := namedExtractor(t, "cloudfront\nmetric s count by=cs_host,x_edge_location")
	var e Entry
	for _, l := range []string{
		"#Fields: date time x-edge-location cs(Host) sc-bytes",
		"2019-12-04\t21:02:31\tLAX1\texample.com\t392",
		"#Fields: date time sc-bytes",
		"2019-12-04\t21:02:32\t17",
	} {
		r := x.Extract([]byte(l), &e)
		if r != "" && r != ReasonLayout {
			t.Fatalf("%q: dropped (%s)", l, r)
		}
	}
	for _, f := range []string{"cs_host", "x_edge_location"} {
		if v := e.Fields[x.Field(f)]; len(v) != 0 {
			t.Errorf("%s = %q after a header without it, want empty", f, v)
		}
	}
	if v, ok := e.Number(x.Field("sc_bytes")); !ok || v != 17 {
		t.Errorf("sc_bytes = %v %v, want 17", v, ok)
	}
}

// TestSepMaskFlagsExactlyTheSeparatorBytes compares sepMask with a byte
// loop on words rich in the separator and its neighbours (byteMask's
// borrow flags a '!' after a ' ', a '\b' after a '\t').
func TestSepMaskFlagsExactlyTheSeparatorBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte{' ', '!', '\t', '\b', '\n', 0, 0x80, 0xa0, 0x89, 0xff, 'a', 0x1f}
	for range 100000 {
		var b [8]byte
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		for _, sep := range []byte{' ', '\t'} {
			var want uint64
			for i, c := range b {
				if c == sep {
					want |= 0x80 << (8 * i)
				}
			}
			if got := sepMask(binary.LittleEndian.Uint64(b[:]), sep); got != want {
				t.Fatalf("% x, separator %q: mask %#x, want %#x", b, sep, got, want)
			}
			if got := tailSepMask(b[:5], sep); got != want&(1<<40-1) {
				t.Fatalf("% x, separator %q: tail mask %#x, want %#x", b[:5], sep, got, want&(1<<40-1))
			}
		}
	}
}
