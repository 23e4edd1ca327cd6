package tally

import (
	"io"
	"path/filepath"
	"testing"

	"github.com/timbertally/timbertally/lib/doc"
	"github.com/timbertally/timbertally/lib/synth"
)

// BenchmarkTry is tally --try --doc apache-combined over a file of 100 000
// generated lines, its tape to io.Discard: reading, splitting, extracting,
// bucketing and printing, on one goroutine.
func BenchmarkTry(b *testing.B) {
	const lines = 100_000
	path := filepath.Join(b.TempDir(), "access.log")
	if err := synth.WriteFile(path, synth.Config{Seed: 1, N: lines}); err != nil {
		b.Fatal(err)
	}
	d, err := doc.Load("apache-combined")
	if err != nil {
		b.Fatal(err)
	}
	note := func(string, ...any) { b.Fatal("unexpected note") }
	b.ReportAllocs()
	for b.Loop() {
		if err := try(d, []string{path}, nil, io.Discard, note); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(lines*b.N)/b.Elapsed().Seconds(), "entries/s")
}
