package tally

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/timbertally/timbertally/lib/internal/doc"
	"github.com/timbertally/timbertally/lib/internal/synth"
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

// BenchmarkTryFormats is BenchmarkTry for each configurable format, over
// the generator's lines of that format, counting requests and bytes by
// status as apache-combined does.
func BenchmarkTryFormats(b *testing.B) {
	const lines = 100_000
	const metrics = "window 10s grace=60s\nmetric requests count by=status\n"
	for _, c := range []struct{ name, format, doc string }{
		{"apache-combined", "", "format apache-combined\n" + metrics + "metric bytes sum=bytes by=status\n"},
		{"apache-logformat", "", "format apache combined\n" + metrics + "metric bytes sum=bytes by=status\n"},
		{"apache-timed", synth.FormatApacheTimed, "format apache \"" + synth.ApacheTimedLogFormat + "\"\n" + metrics + "metric bytes sum=bytes by=status\n"},
		{"nginx", synth.FormatNginx, "format nginx '" + synth.NginxLogFormat + "'\n" + metrics + "metric bytes sum=body_bytes_sent by=status\n"},
		{"json", synth.FormatJSON, "format json\ntime ts layout=unix\n" + metrics + "metric bytes sum=size by=status\n"},
		{"logfmt", synth.FormatLogfmt, "format logfmt\ntime ts layout=rfc3339\n" + metrics + "metric bytes sum=size by=status\n"},
	} {
		b.Run(c.name, func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "access.log")
			if err := synth.WriteFile(path, synth.Config{Seed: 1, N: lines, Format: c.format}); err != nil {
				b.Fatal(err)
			}
			d, err := doc.Parse(c.name, []byte(c.doc))
			if err != nil {
				b.Fatal(err)
			}
			note := func(f string, a ...any) { b.Fatalf("unexpected note: "+f, a...) }
			st, _ := os.Stat(path)
			b.SetBytes(st.Size())
			b.ReportAllocs()
			for b.Loop() {
				if err := try(d, []string{path}, nil, io.Discard, note); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(lines*b.N)/b.Elapsed().Seconds(), "entries/s")
		})
	}
}
