package extract

import (
	"testing"
	"time"
	"unsafe"
)

// within reports whether f is a sub-slice of line (an empty f anywhere
// in or at the end of line counts, and so does nil).
func within(f, line []byte) bool {
	if len(f) == 0 {
		return true
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(line)))
	p := uintptr(unsafe.Pointer(unsafe.SliceData(f)))
	return p >= start && p+uintptr(len(f)) <= start+uintptr(len(line))
}

// isReason reports whether r is a reason word: [a-z-]+.
func isReason(r string) bool {
	for _, c := range []byte(r) {
		if (c < 'a' || c > 'z') && c != '-' {
			return false
		}
	}
	return r != ""
}

// checkExtract runs Extract on line and checks its contract: a reason
// word, or every field a sub-slice of the line (or the constant "-" of a
// request part that cannot be told).
func checkExtract(t *testing.T, x *Extractor, line []byte) {
	var e Entry
	x.Extract([]byte(goodLine), &e) // numbers worked out for another entry must not stay
	for i := range e.Fields {
		e.Number(i)
	}
	r := x.Extract(line, &e)
	if r != "" {
		if !isReason(r) {
			t.Fatalf("Extract(%q) = reason %q, not a word", line, r)
		}
		return
	}
	if len(e.Fields) != x.numFields() {
		t.Fatalf("Extract(%q) set %d fields, want %d", line, len(e.Fields), x.numFields())
	}
	for i, f := range e.Fields {
		if !within(f, line) && !within(f, dash) {
			t.Fatalf("Extract(%q): field %s = %q is not part of the line", line, x.names[i], f)
		}
		v, ok := e.Number(i)
		if w, wok := Number(f); v != w || ok != wok {
			t.Fatalf("Extract(%q): field %s = %q: the entry's Number is %v, %v; Number gives %v, %v", line, x.names[i], f, v, ok, w, wok)
		}
	}
}

func FuzzApacheCombined(f *testing.F) {
	f.Add([]byte(goodLine))
	f.Add([]byte(`::1 - - [29/Feb/2000:23:59:59 +1400] "GET /a\"b HTTP/1.1" 200 - "\\" "x"` + "\r"))
	f.Add([]byte(`h - - [10/Oct/2000:13:55:36 -0700] "-" 400 0 "-" "-"`))
	f.Add([]byte(`h - - [31/Feb/2000:24:00:00 +0960] "GET / HTTP/1.1" 200 5 "-" "\xff"`))
	x, whole := newExtractor(f, combinedDoc), newExtractor(f, requestDoc)
	f.Fuzz(func(t *testing.T, line []byte) {
		checkExtract(t, x, line)
		// Not cutting the request drops exactly the same lines.
		var a, b Entry
		if ra, rb := x.Extract(line, &a), whole.Extract(line, &b); ra != rb {
			t.Fatalf("Extract(%q): %q when the request is cut, %q when not", line, ra, rb)
		}
	})
}

func FuzzRegexFormat(f *testing.F) {
	f.Add([]byte("2026-10-10T13:55:36Z WARN 42 #disk full"))
	f.Add([]byte("2026-10-10T13:55:36.123456789+14:00 INFO #"))
	f.Add([]byte("x INFO #\xff"))
	x := newExtractor(f, regexDoc)
	f.Fuzz(func(t *testing.T, line []byte) {
		checkExtract(t, x, line)
	})
}

// FuzzParseCLF checks that every time parseCLF accepts, time.Parse reads
// as the same instant.
func FuzzParseCLF(f *testing.F) {
	f.Add([]byte("10/Oct/2000:13:55:36 -0700"))
	f.Add([]byte("29/Feb/2000:23:59:59 +1400"))
	f.Add([]byte("31/Dec/1999:00:00:00 +0000"))
	var c clfDate // shared, as an extractor's is, so cache hits are checked too
	f.Fuzz(func(t *testing.T, b []byte) {
		got, ok := c.parseCLF(b)
		if again, ok2 := c.parseCLF(b); ok2 != ok || again != got {
			t.Fatalf("parseCLF(%q) twice: %v, %v then %v, %v", b, got, ok, again, ok2)
		}
		if !ok {
			return
		}
		want, err := time.Parse("02/Jan/2006:15:04:05 -0700", string(b))
		if err != nil || want.UnixNano() != got {
			t.Fatalf("parseCLF(%q) = %v; time.Parse says %v, %v", b, time.Unix(0, got).UTC(), want.UTC(), err)
		}
	})
}
