package push

import (
	"cmp"
	"errors"
	"fmt"
	"io"

	"github.com/timbertally/timbertally/lib/internal/cumulative"
	"github.com/timbertally/timbertally/lib/internal/doc"
	"github.com/timbertally/timbertally/lib/internal/shell"
	"github.com/timbertally/timbertally/lib/internal/tallystore"
	"github.com/timbertally/timbertally/lib/internal/tape"
)

// The protocols tgpush speaks (--protocol).
const (
	ProtocolRemoteWrite = "remote-write" // Prometheus remote write 1.0 (the default)
	ProtocolOTLP        = "otlp"         // OTLP/HTTP, protobuf, delta temporality
)

// newShape is the shape o asks for; the counters and OTLP need the store's
// metric kinds (its document).
func newShape(o *Options) (shape, error) {
	if !o.Counters && o.Protocol != ProtocolOTLP {
		return buckets{}, nil
	}
	kinds, err := storeKinds(o.Dir)
	if err != nil {
		return nil, err
	}
	if o.Protocol == ProtocolOTLP {
		return &otlpShape{kinds: kinds, labels: tapeLabels(o.Labels)}, nil
	}
	return &counters{totals: cumulative.New(kinds)}, nil
}

// storeKinds reads the metric kinds of the tally store's document.
func storeKinds(dir string) (map[string]doc.MetricKind, error) {
	d, err := tallystore.LoadDocument(dir)
	if err != nil {
		return nil, fmt.Errorf("tgpush: %v", err)
	}
	return cumulative.KindsOf(d), nil
}

// counters is the shape of --counters: the running totals of
// lib/internal/cumulative (its one owner, which tgserve serves for scrape
// too), so that a store pushed and one scraped are the same series. Each
// group sends the totals it changed, stamped as the buckets' shape stamps
// (the bucket's last millisecond, the k-th marker-only group k ms after),
// and a zero before a series' first total, at the previous bucket's last
// millisecond (a marker-only group's previous millisecond), so that
// increase() and rate() see its first count.
//
// The totals are never kept: Run reads the tape up to the cursor into them
// first (readBefore), so a restart, a kill -9 too, goes on from the same
// totals, never from 0. The zeros go in requests of their own before the
// group's totals, and the cursor records that they were taken (zeroed=1):
// a zero re-sent after its total was taken is older than the series'
// newest sample, which Prometheus refuses as out of order.
type counters struct {
	totals *cumulative.Totals
	out    []cumulative.Sample
}

func (*counters) sends() string { return SendsCounters }

// fold feeds a group's records to the totals, in the order the tape has
// them: markers and series, then the seal (or the end record of a
// marker-only group).
func (c *counters) fold(g Group) error {
	for i := range g.Markers {
		if err := c.totals.Add(&g.Markers[i]); err != nil {
			return err
		}
	}
	for i := range g.Series {
		if err := c.totals.Add(&g.Series[i]); err != nil {
			return err
		}
	}
	end := g.Seal
	if !g.sealed() {
		end = tape.Record{Kind: tape.End}
	}
	return c.totals.Add(&end)
}

func (c *counters) add(b *batch, g Group, at, ms int64, k int) {
	b.groups = append(b.groups, placed{g, at, true})
	if err := c.fold(g); err != nil {
		b.fail = fragment(err)
		return
	}
	zero := ms - 1 // a marker-only group's: the millisecond before its own
	if k == 0 {
		zero = tape.SampleMs(g.Seal.Start-int64(g.Seal.Width), g.Seal.Width)
	}
	c.out = c.totals.SamplesAt(c.out[:0], ms, zero)
	for _, s := range c.out {
		into := b
		if s.Ms == zero {
			if b.zeros == nil {
				b.zeros = newBatch(b.extra)
			}
			into = b.zeros
		}
		into.sample(s.Series.Name(), s.Series.Labels, s.Value, s.Ms)
	}
	if b.zeros != nil {
		b.samples += b.zeros.samples
		b.clash = cmp.Or(b.clash, b.zeros.clash)
	}
}

func (c *counters) pass(b *batch, g Group) {
	if err := c.fold(g); err != nil {
		b.fail = fragment(err)
	}
}

func (c *counters) requests(b *batch, max int) []request {
	var out []request
	if b.zeros != nil {
		for _, r := range writeRequests(b.zeros.requests(max)) {
			r.zeros = true
			out = append(out, r)
		}
	}
	// b.samples counts the zeros too; the rest are b's own series.
	own := &batch{req: b.req, samples: b.samples}
	if b.zeros != nil {
		own.samples -= b.zeros.samples
	}
	return append(out, writeRequests(own.requests(max))...)
}

// fragment explains a tape the running totals cannot be right over.
func fragment(err error) error {
	var f *cumulative.FragmentError
	if errors.As(err, &f) {
		return fmt.Errorf("tgpush: --counters: %v; nothing from that bucket on was pushed", err)
	}
	return err
}

// readBefore feeds the shape the tape before the follower's offset (the
// cursor's, or --from end's), so that the running totals of --counters go
// on from what the tape holds there: recomputed, streamed, never kept.
func (p *pusher) readBefore() error {
	c, ok := p.shape.(*counters)
	if !ok || p.fl.off == 0 {
		return nil
	}
	r := tape.NewReader(io.NewSectionReader(p.fl.f, 0, p.fl.off))
	for {
		line, err := r.ReadLine()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("tgpush: reading %s: %v", p.fl.path, err)
		}
		rec, err := tape.ParseOrLater(line)
		if err != nil {
			return fmt.Errorf("tgpush: reading %s before the cursor for the running totals: %v; tgcheck --scan %s names the damage", p.fl.path, err, shell.Quote(p.o.Dir))
		}
		if rec.Kind == tape.Later {
			continue
		}
		if err := c.totals.Add(&rec); err != nil {
			return fragment(err)
		}
	}
}

// zeroed records in the cursor that the zero samples of the group after
// it were taken (counters): after a kill, they are not sent again.
func (p *pusher) zeroed() error {
	// A first run's cursor is not saved before its first group: it gets
	// the tape's identity (and --from's bound) here.
	p.cur.Zeroed, p.cur.ID, p.cur.From = true, p.fl.id, p.skip
	return p.save()
}

// ShapeChanged is a run that would send another shape than the cursor's
// pushes did (--counters, --protocol): the receiver would hold the
// buckets before and after in two shapes, and a histogram's series have
// the same names in both (NAME_bucket per bucket and running), so a
// query across the change reads nonsense.
type ShapeChanged struct {
	Changed
	Was, Now string // SendsBuckets, SendsCounters, SendsOTLP
}

func (e *ShapeChanged) Error() string {
	return fmt.Sprintf("tgpush: the cursor %s was pushed %s, and this run would send %s; nothing was pushed. "+
		"To go on as before, run tgpush%s. "+
		"To send the new shape, send it to a receiver (or tenant) that holds none of this store, with a cursor of its own (--cursor FILE), from the start or from %s (--from %s); "+
		"in this receiver the histograms' series would have the same names in both shapes, so delete this store's series there first (a histogram's NAME_bucket of one shape cannot be told from the other's)",
		e.Cursor, shapeWords(e.Was), shapeWords(e.Now), shapeFlags(e.Was), e.Next, e.Next)
}

func shapeWords(s string) string {
	switch s {
	case SendsCounters:
		return "as running totals (--counters)"
	case SendsOTLP:
		return "by OTLP (--protocol otlp)"
	}
	return "a sample per bucket (no --counters)"
}

func shapeFlags(s string) string {
	switch s {
	case SendsCounters:
		return " with --counters"
	case SendsOTLP:
		return " with --protocol otlp"
	}
	return " without --counters and --protocol"
}
