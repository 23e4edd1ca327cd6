package check

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/timbertally/timbertally/lib/internal/doc"
	"github.com/timbertally/timbertally/lib/internal/synth"
)

func BenchmarkDeriveApacheCombined(b *testing.B) {
	const n = 200000
	path := filepath.Join(b.TempDir(), "web1")
	if err := synth.WriteFile(path, synth.Config{N: n, Rate: 1000, Jitter: 2e9}); err != nil {
		b.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	d, err := doc.Load("apache-combined")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := derive(d, endedAt("web1", fi.Size()), []input{{ID: "web1", Path: path}}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "entries/s")
}
