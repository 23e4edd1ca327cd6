package push

import (
	"fmt"
	"testing"

	"github.com/timbertally/timbertally/lib/internal/tape"
)

// BenchmarkBatchOfAHighCardinalityGroup builds one group's request: 2 000
// series by path and a histogram's buckets, as bench/push.sh's bypath
// store's groups are. allocs/op over the group's ~2 000 samples is the
// figure (session 11: slabs for labels, samples and series).
func BenchmarkBatchOfAHighCardinalityGroup(b *testing.B) {
	g := Group{Seal: tape.Record{Kind: tape.Seal, Start: 1_700_000_000e9, Width: 10e9, Entries: 10_000}}
	for i := range 2000 {
		g.Series = append(g.Series, tape.Record{Kind: tape.Series, Start: g.Seal.Start, Metric: "requests",
			Labels: []tape.Label{{Name: "path", Value: fmt.Sprintf("/item/%d", i)}, {Name: "status", Value: "200"}}, Value: float64(i)})
	}
	extra, _ := ParseLabels([]string{"host=web1"})
	b.ReportAllocs()
	for b.Loop() {
		bt := newBatch(extra)
		bt.add(g, g.Seal.Start, tape.SampleMs(g.Seal.Start, g.Seal.Width))
		if bt.samples != 2002 {
			b.Fatalf("%d samples", bt.samples)
		}
	}
}
