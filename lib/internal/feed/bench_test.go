package feed

import (
	"io"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/timbertally/timbertally/lib/internal/store"
	"github.com/timbertally/timbertally/lib/internal/synth"
	"github.com/timbertally/timbertally/lib/protocol"
)

// BenchmarkFeedFraming measures feed's read-and-frame path: large reads of a
// store of ~200-byte Apache lines cut into 512-entry batches, each written
// as header, then entries, to a pipe that a goroutine drains. It
// leaves out only the consumer's round trip.
func BenchmarkFeedFraming(b *testing.B) {
	const lines = 100_000
	path := filepath.Join(b.TempDir(), "access.log")
	if err := synth.WriteFile(path, synth.Config{Seed: 1, N: lines}); err != nil {
		b.Fatal(err)
	}
	pw, pr, err := pipe(false)
	if err != nil {
		b.Fatal(err)
	}
	defer pr.Close()
	go io.Copy(io.Discard, pr)
	w := &writer{fd: pw, wait: func() error { return ppoll([]pollFd{{fd: int32(pw), events: pollOut}}, -1) }}
	b.ReportAllocs()
	b.ResetTimer()
	var hdr []byte
	for range b.N {
		r, err := store.Open(path, 0, store.DefaultMaxLine)
		if err != nil {
			b.Fatal(err)
		}
		for {
			c, ok, err := r.Next(512, maxBatchBytes)
			if err != nil {
				b.Fatal(err)
			}
			if !ok {
				break
			}
			hdr = protocol.AppendBatch(hdr[:0], "web1", c.Offset, c.End, c.Entries)
			if err := w.write(hdr); err != nil {
				b.Fatal(err)
			}
			if err := w.write(c.Data); err != nil {
				b.Fatal(err)
			}
		}
		r.Close()
	}
	b.ReportMetric(float64(lines*b.N)/b.Elapsed().Seconds(), "entries/s")
	syscall.Close(pw)
}
