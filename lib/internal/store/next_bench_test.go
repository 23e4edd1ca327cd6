package store

import (
	"path/filepath"
	"testing"

	"github.com/timbertally/timbertally/lib/internal/synth"
)

// BenchmarkNext measures the store's read-and-cut path alone: a store of
// ~200-byte generated Apache lines read in 512-entry chunks, as feed reads
// it at --batch-size 512 (its 8 MiB bound included).
func BenchmarkNext(b *testing.B) {
	const lines = 100_000
	path := filepath.Join(b.TempDir(), "access.log")
	if err := synth.WriteFile(path, synth.Config{Seed: 1, N: lines}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		r, err := Open(path, 0, DefaultMaxLine)
		if err != nil {
			b.Fatal(err)
		}
		for n := 0; n < lines; {
			c, ok, err := r.Next(512, 8<<20)
			if err != nil || !ok {
				b.Fatalf("after %d entries: ok %v, %v", n, ok, err)
			}
			n += c.Entries
		}
		r.Close()
	}
	b.ReportMetric(float64(lines*b.N)/b.Elapsed().Seconds(), "entries/s")
}
