package bucket

import (
	"bytes"
	"testing"
	"time"

	"github.com/timbertally/timbertally/lib/internal/doc"
	"github.com/timbertally/timbertally/lib/internal/synth"
)

// benchLines returns n generated Apache combined lines (seed 1, paths
// distinct paths), split, with their store positions.
func benchLines(b *testing.B, n, paths int) ([][]byte, []int64) {
	var buf bytes.Buffer
	if err := synth.Write(&buf, synth.Config{Seed: 1, N: n, Paths: paths}); err != nil {
		b.Fatal(err)
	}
	lines := bytes.SplitAfter(buf.Bytes(), []byte{'\n'})
	lines = lines[:len(lines)-1] // the empty remainder after the last '\n'
	pos := make([]int64, len(lines))
	var p int64
	for i, l := range lines {
		pos[i] = p
		p += int64(len(l))
		lines[i] = l[:len(l)-1]
	}
	return lines, pos
}

// benchRoller runs Roller.Entry over pre-split lines, the whole set per
// b.N loop through a fresh Roller (rollOnce).
func benchRoller(b *testing.B, d *doc.Doc, lines [][]byte, pos []int64) {
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		rollOnce(b, d, lines, pos)
		n += len(lines)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "entries/s")
}

// BenchmarkRollerEntry is bucket add for the built-in apache-combined
// document: extraction, bucketing, the two metrics by status, sealing.
func BenchmarkRollerEntry(b *testing.B) {
	d, err := doc.Load("apache-combined")
	if err != nil {
		b.Fatal(err)
	}
	lines, pos := benchLines(b, 100_000, 200)
	benchRoller(b, d, lines, pos)
}

// BenchmarkRollerEntryByPath is the cost of cardinality: by=path over
// 100 000 generated paths with the cap raised, so that most entries open a
// new series.
func BenchmarkRollerEntryByPath(b *testing.B) {
	d, err := doc.Parse("by-path", []byte("format apache-combined\nwindow 10s grace=60s\ncap 1000000\nmetric requests count by=path\nmetric bytes sum=bytes by=path\n"))
	if err != nil {
		b.Fatal(err)
	}
	lines, pos := benchLines(b, 100_000, 100_000)
	benchRoller(b, d, lines, pos)
}

// TestRollerEntryAllocatesNothingPerEntryForTheBuiltinDocument: once a
// bucket's series exist, adding an entry to it allocates nothing.
func TestRollerEntryAllocatesNothingPerEntryForTheBuiltinDocument(t *testing.T) {
	d, err := doc.Load("apache-combined")
	if err != nil {
		t.Fatal(err)
	}
	noAllocsPerEntry(t, d, `203.0.113.195 - - [10/Oct/2026:13:55:36 +0000] "GET /a HTTP/1.1" 200 48213 "-" "curl/8.10.1"`)
}

// noAllocsPerEntry fails t when Roller.Entry of line, once its series
// exist, allocates.
func noAllocsPerEntry(t *testing.T, d *doc.Doc, text string) {
	t.Helper()
	r, err := New(d, nil)
	if err != nil {
		t.Fatal(err)
	}
	st := r.AddStore("web1", 0)
	line := []byte(text)
	var pos int64
	add := func() {
		r.Entry(st, pos, line)
		pos += int64(len(line)) + 1
	}
	add()
	if n := testing.AllocsPerRun(1000, add); n != 0 {
		t.Errorf("Roller.Entry allocates %v times per entry", n)
	}
}

// rollOnce runs a fresh Roller over the lines (what one tally --try or
// --run does), taking the tape bytes as tally does after each batch of 512.
func rollOnce(b *testing.B, d *doc.Doc, lines [][]byte, pos []int64) {
	r, err := New(d, nil)
	if err != nil {
		b.Fatal(err)
	}
	st := r.AddStore("web1", 0)
	for i, l := range lines {
		r.Entry(st, pos[i], l)
		if i%512 == 511 {
			r.Take()
		}
	}
	r.End(st)
	r.Complete()
	r.Take()
}

// BenchmarkHistogramAgainstCount is the cost of a histogram: a document
// whose only metric is an 11-bound histogram by status against the same
// document with a count, over the same 100 000 generated lines. The two
// run in turns within each loop, the order swapped every other loop, so
// that a shared machine's load falls on both alike; hist/count is the
// ratio of their times per entry (goal <= 1.3).
func BenchmarkHistogramAgainstCount(b *testing.B) {
	lines, pos := benchLines(b, 100_000, 200)
	count, err := doc.Parse("count", []byte("format apache-combined\nwindow 10s grace=60s\nmetric requests count by=status\n"))
	if err != nil {
		b.Fatal(err)
	}
	hist, err := doc.Parse("hist", []byte("format apache-combined\nwindow 10s grace=60s\n"+
		"metric size histogram=bytes buckets=100,200,500,1000,2000,5000,10000,20000,50000,100000,200000 by=status\n"))
	if err != nil {
		b.Fatal(err)
	}
	var spent [2]time.Duration // count, histogram
	loops := 0
	for b.Loop() {
		for j := range 2 {
			which := (j + loops) % 2
			d := []*doc.Doc{count, hist}[which]
			t0 := time.Now()
			rollOnce(b, d, lines, pos)
			spent[which] += time.Since(t0)
		}
		loops++
	}
	n := float64(loops * len(lines))
	b.ReportMetric(float64(spent[0].Nanoseconds())/n, "count-ns/entry")
	b.ReportMetric(float64(spent[1].Nanoseconds())/n, "hist-ns/entry")
	b.ReportMetric(float64(spent[1])/float64(spent[0]), "hist/count")
}
