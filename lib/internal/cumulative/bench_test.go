package cumulative

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/timbertally/timbertally/lib/internal/tape"
)

// benchTape is a tape of n one-second buckets, each with 13 statuses of
// requests and a 12-bound latency histogram by 3 statuses (55 lines a
// group): the shape of a busy web server's.
func benchTape(n int) []byte {
	var b bytes.Buffer
	start := time.Date(2026, 10, 10, 13, 55, 0, 0, time.UTC)
	bounds := []string{"0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1", "2.5", "5", "10", "+Inf"}
	for i := range n {
		at := start.Add(time.Duration(i) * time.Second).Format(time.RFC3339)
		for s := range 13 {
			fmt.Fprintf(&b, "%s requests{status=\"%d\"} %d\n", at, 200+s, 10+i%7)
		}
		for _, st := range []string{"200", "404", "500"} {
			for j, le := range bounds {
				fmt.Fprintf(&b, "%s latency_bucket{status=\"%s\",le=\"%s\"} %d\n", at, st, le, j+i%5)
			}
			fmt.Fprintf(&b, "%s latency_sum{status=\"%s\"} 1.25\n%s latency_count{status=\"%s\"} %d\n", at, st, at, st, 11+i%5)
		}
		fmt.Fprintf(&b, "seal %s width=1s entries=100 at=w:%d\n", at, i*100)
	}
	return b.Bytes()
}

// BenchmarkReadingATape is the floor: each line parsed, nothing kept.
func BenchmarkReadingATape(b *testing.B) { benchLines(b, false) }

// BenchmarkRunningTotalsOfATape is what tgserve does at start: each line
// parsed and added to the totals. Its ratio to BenchmarkReadingATape is the
// cost of the totals (bench/README.md).
func BenchmarkRunningTotalsOfATape(b *testing.B) { benchLines(b, true) }

func benchLines(b *testing.B, totals bool) {
	data := benchTape(2000)
	lines := bytes.Count(data, []byte{'\n'})
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for range b.N {
		tt := New(kinds)
		r := tape.NewReader(bytes.NewReader(data))
		for {
			rec, err := r.Next()
			if err != nil {
				break
			}
			if totals {
				tt.Add(&rec)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*lines), "ns/line")
}
