package tape

import (
	"bytes"
	"math"
	"strconv"
	"testing"
	"time"
)

// TestAppendValueWritesWholeNumbersAsAppendFloatDoes covers the integer
// fast path at its edges: zero and its sign, the largest exact whole
// number, and the first values past the path.
func TestAppendValueWritesWholeNumbersAsAppendFloatDoes(t *testing.T) {
	for _, v := range []float64{0, math.Copysign(0, -1), 1, -1, 431, 1234567, 1<<53 - 1, -(1<<53 - 1), 1 << 53, 1e21, 0.25, -2.5, math.MaxFloat64} {
		want := strconv.AppendFloat(nil, v, 'f', -1, 64)
		if got := AppendValue(nil, v); !bytes.Equal(got, want) {
			t.Errorf("AppendValue(%v) = %s, want %s", v, got, want)
		}
	}
}

// FuzzAppendValue: every value formats as strconv's shortest 'f' form.
func FuzzAppendValue(f *testing.F) {
	for _, v := range []float64{0, 431, 1 << 53, -7, 0.1} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v float64) {
		want := strconv.AppendFloat(nil, v, 'f', -1, 64)
		if got := AppendValue(nil, v); !bytes.Equal(got, want) {
			t.Errorf("AppendValue(%v) = %s, want %s", v, got, want)
		}
	})
}

// FuzzAppendEscapedReadsBack: any bytes escape to one line without a bare
// quote and unescape to themselves.
func FuzzAppendEscapedReadsBack(f *testing.F) {
	for _, s := range []string{"", "/docs/item-1?q=2", `a\"b`, "x\ny", "caf\xc3\xa9", "\xff\xfe", "\\"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e := AppendEscaped(nil, s)
		if bytes.IndexByte(e, '\n') >= 0 {
			t.Fatalf("AppendEscaped(%q) = %q holds a newline", s, e)
		}
		if bytes.Equal(e, AppendEscaped(nil, []byte(s))) == false {
			t.Fatalf("AppendEscaped of %q differs for string and []byte", s)
		}
		back, err := unescape(string(e))
		if err != nil || back != s {
			t.Fatalf("unescape(%q) = %q, %v; want %q", e, back, err, s)
		}
	})
}

// BenchmarkAppendGroup is tape append for one bucket's group as tally
// seals it: 1 000 series lines of two metrics by path, then the seal.
func BenchmarkAppendGroup(b *testing.B) {
	start := AppendTime(nil, time.Date(2026, 10, 10, 13, 55, 30, 0, time.UTC).UnixNano())
	paths := make([]string, 500)
	for i := range paths {
		paths[i] = "/api/v1/orders/item-" + strconv.Itoa(i) + "?q=31&page=8&sort=desc"
	}
	seal := &Record{Kind: Seal, Start: 0, Width: 10 * time.Second, Entries: 1000, At: []Pos{{ID: "web1", Pos: 186350}}}
	var out []byte
	labels := make([]Label, 1)
	b.ReportAllocs()
	for b.Loop() {
		out = out[:0]
		for _, metric := range []string{"requests", "bytes"} {
			for i, p := range paths {
				labels[0] = Label{Name: "path", Value: p}
				out = append(out, start...)
				out = append(out, ' ')
				out = AppendSeries(out, metric, labels)
				out = append(out, ' ')
				out = AppendValue(out, float64(i*1237))
				out = append(out, '\n')
			}
		}
		out = Append(out, seal)
	}
	b.SetBytes(int64(len(out)))
	b.ReportMetric(float64(2*len(paths)*b.N)/b.Elapsed().Seconds(), "series/s")
}
