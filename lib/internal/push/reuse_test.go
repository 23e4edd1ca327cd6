package push

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/timbertally/timbertally/lib/internal/tape"
	"google.golang.org/protobuf/proto"
)

// A batch reset for another group (pusher.newBatch reuses the batch whose
// group was taken) must hold exactly what a new batch would: no series,
// label, sample, marker count or flag of the group before.
func TestABatchResetForAnotherGroupHoldsExactlyWhatANewBatchWould(t *testing.T) {
	group := func(k, n int, dropped string) Group {
		start := int64(1_700_000_000e9) + int64(k)*10e9
		g := Group{Seal: tape.Record{Kind: tape.Seal, Start: start, Width: 10e9, Entries: int64(n)}}
		for i := range n {
			g.Series = append(g.Series, tape.Record{Kind: tape.Series, Start: start, Metric: "latency_bucket",
				Labels: []tape.Label{{Name: "path", Value: fmt.Sprintf("/p/%d/%d", k, i)}, {Name: "le", Value: "0.5"}}, Value: float64(i + k)})
		}
		if dropped != "" {
			g.Markers = []tape.Record{{Kind: tape.Drop, Start: start, Reason: dropped, Count: 3}}
		}
		return g
	}
	extra, _ := ParseLabels([]string{"host=web1"})
	wire := func(b *batch) []byte {
		var out []byte
		for _, r := range (buckets{}).requests(b, 700) {
			m := r.raw
			if r.msg != nil {
				var err error
				if m, err = proto.Marshal(r.msg); err != nil {
					t.Fatal(err)
				}
			}
			out = append(out, m...)
			out = append(out, '|')
		}
		return out
	}
	for _, direct := range []bool{false, true} {
		p := &pusher{o: &Options{Labels: extra}, direct: direct}
		// A big group with a marker, then smaller ones without, and a big
		// one again: every chunk handed out before is handed out again.
		for k, g := range []Group{group(0, 2000, "bad_status"), group(1, 300, ""), group(2, 5, ""), group(3, 2500, "unparsed")} {
			reused := p.newBatch()
			reused.add(g, g.Seal.Start, tape.SampleMs(g.Seal.Start, g.Seal.Width))
			fresh := newBatch(extra)
			fresh.direct = direct
			fresh.add(g, g.Seal.Start, tape.SampleMs(g.Seal.Start, g.Seal.Width))
			if reused.samples != fresh.samples || len(reused.groups) != 1 || !bytes.Equal(wire(reused), wire(fresh)) {
				t.Fatalf("direct %v, group %d: the reset batch holds %d samples and %d groups, a new one %d and 1; their requests are the same: %v",
					direct, k, reused.samples, len(reused.groups), fresh.samples, bytes.Equal(wire(reused), wire(fresh)))
			}
			p.spare = reused // taken: the next batch's memory
		}
	}
}
