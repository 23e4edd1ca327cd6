package push

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	prompb "buf.build/gen/go/prometheus/prometheus/protocolbuffers/go"
	"github.com/timbertally/timbertally/lib/internal/doc"
	"github.com/timbertally/timbertally/lib/internal/label"
	"github.com/timbertally/timbertally/lib/internal/tape"
	colpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
)

// The data-quality series: what each group's numbers rest on.
const (
	EntriesMetric = tape.EntriesSeries // the seal's entries=: entries placed in the bucket
	LateMetric    = tape.LateSeries    // entries of !late markers in the group
	DroppedMetric = tape.DroppedSeries // entries of !drop markers in the group, by reason
	CappedMetric  = tape.CappedSeries  // entries of !cap markers in the bucket, by metric
)

// batch is the samples of one group (push sends a group a request), one
// time series per distinct series, and the group it came from (none when
// the group is skipped, --from TIME: only the cursor moves past it).
type batch struct {
	extra   []*prompb.Label // --label, sorted by name
	index   map[string]int  // series text: its place in req.Timeseries
	req     *prompb.WriteRequest
	samples int
	groups  []placed
	part    bool        // a part of a group larger than a read (Group.Part): series only, no cursor move
	after   int         // the pusher's marker-only groups since the last seal, with this batch's (the cursor's after=)
	clash   *LabelClash // a --label the tape's series have too: nothing may be sent
	reqs    []request   // what is sent, in order (pusher.encode)
	// direct: the batch's series are written as wire bytes as they are
	// added, not as messages encoded later: the buckets shape's form when
	// pushing (pusher.direct), some 15% of tgpush's CPU less
	// (bench/README.md, session 13). Each sample is its own series field
	// (a series twice in a group, which tally never writes, is two fields
	// of one sample each; a receiver takes them as it takes one field of
	// two samples), and rawRequests splits them between fields.
	direct bool
	wire   []byte      // the series fields, one after another
	ends   []int       // where each series field ends in wire
	lbuf   []wireLabel // wireLabels' buffer
	bodies [][]byte    // the requests' bodies' memory, kept by reset
	// The group's messages, from chunks (slab.go): a group of thousands of
	// series is thousands of labels and samples, one allocation each
	// otherwise, and the collector's work.
	key   []byte // the series text being looked up, reused
	lslab slab[prompb.Label]
	sslab slab[prompb.Sample]
	tslab slab[prompb.TimeSeries]
	lptrs ptrs[prompb.Label]
	sptrs ptrs[prompb.Sample]
	// The other shapes' (shape.go):
	fail   error                              // the group cannot be sent in its shape (the tape's fault)
	zeros  *batch                             // --counters: the zeros before new series, sent first
	export *colpb.ExportMetricsServiceRequest // --protocol otlp: the group's points
}

// placed is a group and the bucket (start, Unix ns) it belongs to: its
// seal's, or for a marker-only group the last sealed bucket before it.
type placed struct {
	Group
	at   int64
	sent bool // false: skipped (--from TIME) or held, there for the cursor only
}

func newBatch(extra []*prompb.Label) *batch {
	return &batch{extra: extra, req: &prompb.WriteRequest{}}
}

// reset empties the batch for another group, keeping its memory: the
// index's room, the request's series slice, the chunks. Whatever it held
// must be dead: its requests sent and answered, nothing else pointing in.
func (b *batch) reset() {
	clear(b.index)
	b.req.Timeseries = b.req.Timeseries[:0]
	b.lslab.rewind()
	b.sslab.rewind()
	b.tslab.rewind()
	b.lptrs.rewind()
	b.sptrs.rewind()
	*b = batch{extra: b.extra, index: b.index, req: b.req, key: b.key, bodies: b.bodies,
		direct: b.direct, wire: b.wire[:0], ends: b.ends[:0], lbuf: b.lbuf,
		lslab: b.lslab, sslab: b.sslab, tslab: b.tslab, lptrs: b.lptrs, sptrs: b.sptrs}
}

// add puts a group's samples in the batch, at ms: a sealed group's
// tape.SampleMs, a marker-only group's tape.MarkerMs.
func (b *batch) add(g Group, at, ms int64) {
	b.series(g.Series, ms)
	if g.sealed() {
		b.sample(EntriesMetric, nil, float64(g.Seal.Entries), ms)
	}
	var marks tape.MarkerCounts
	for i := range g.Markers {
		marks.Add(&g.Markers[i])
	}
	if g.sealed() || marks.Late > 0 {
		b.sample(LateMetric, nil, float64(marks.Late), ms)
	}
	for _, r := range slices.Sorted(maps.Keys(marks.Dropped)) {
		b.sample(DroppedMetric, []tape.Label{{Name: "reason", Value: r}}, float64(marks.Dropped[r]), ms)
	}
	for _, m := range slices.Sorted(maps.Keys(marks.Capped)) {
		b.sample(CappedMetric, []tape.Label{{Name: "metric", Value: m}}, float64(marks.Capped[m]), ms)
	}
	b.groups = append(b.groups, placed{g, at, true})
}

// series puts a sample of each series line in the batch, at ms.
func (b *batch) series(lines []tape.Record, ms int64) {
	if b.index == nil && !b.direct { // the direct form writes each series as it comes: no index
		b.index = make(map[string]int, len(lines)+4) // grown once, not a dozen times
	}
	for i := range lines {
		s := &lines[i]
		b.sample(s.Metric, s.Labels, s.Value, ms)
	}
}

// sample appends one sample to its series.
func (b *batch) sample(metric string, labels []tape.Label, v float64, ms int64) {
	if b.direct {
		b.wire = appendOneSample(b.wire, b.wireLabels(metric, labels), v, ms)
		b.ends = append(b.ends, len(b.wire))
		b.samples++
		return
	}
	if b.index == nil {
		b.index = map[string]int{}
	}
	b.key = tape.AppendSeries(b.key[:0], metric, labels)
	i, ok := b.index[string(b.key)]
	if !ok {
		i = len(b.req.Timeseries)
		b.index[string(b.key)] = i
		ts := b.tslab.next()
		ts.Labels = b.labels(metric, labels)
		ts.Samples = b.sptrs.take(1)
		b.req.Timeseries = append(b.req.Timeseries, ts)
	}
	ts := b.req.Timeseries[i]
	sm := b.sslab.next()
	sm.Value, sm.Timestamp = v, ms
	ts.Samples = append(ts.Samples, sm)
	b.samples++
}

// labels returns a series' labels as remote write wants them
// (wireLabels), as messages from the batch's chunks.
func (b *batch) labels(metric string, labels []tape.Label) []*prompb.Label {
	ls := b.wireLabels(metric, labels)
	out := b.lptrs.take(len(ls))
	for _, l := range ls {
		out = append(out, b.label(l.name, l.value))
	}
	return out
}

// wireLabels returns a series' labels as remote write wants them, in a
// buffer the next call reuses: __name__ and the rest sorted by name, each
// value shown as tgread's JSON and OpenMetrics show it (a byte that is not
// UTF-8 as the text \xHH: receivers take UTF-8 only), a histogram's le in
// Prometheus's canonical form (tape.CanonicalBound). A --label of a name
// the series has too is never resolved by taking one of the two: the batch
// records the clash, and nothing of it is sent (Run refuses such a --label
// before any push from the document; this catches a tape an older document
// wrote).
func (b *batch) wireLabels(metric string, labels []tape.Label) []wireLabel {
	out := append(b.lbuf[:0], wireLabel{"__name__", metric})
	bucket := strings.HasSuffix(metric, doc.BucketSuffix)
	for _, l := range labels {
		v := label.Shown(l.Value)
		if bucket && l.Name == doc.BoundLabel {
			v = tape.CanonicalBound(v)
		}
		out = append(out, wireLabel{l.Name, v})
	}
	for _, e := range b.extra {
		if i := slices.IndexFunc(labels, func(l tape.Label) bool { return l.Name == e.Name }); i >= 0 {
			if b.clash == nil {
				b.clash = &LabelClash{Label: e.Name, Value: e.Value, Metric: metric}
			}
			continue
		}
		out = append(out, wireLabel{e.Name, e.Value})
	}
	sortWireLabels(out)
	b.lbuf = out
	return out
}

// sortWireLabels sorts a series' few labels by name, by insertion: they
// come nearly sorted (__name__ first, then the document's by= order), and
// a sort's comparison function called through a closure cost more than
// the names' comparisons (BenchmarkBatchOfAHighCardinalityGroup/direct).
func sortWireLabels(ls []wireLabel) {
	for i := 1; i < len(ls); i++ {
		for j := i; j > 0 && nameBefore(ls[j].name, ls[j-1].name); j-- {
			ls[j], ls[j-1] = ls[j-1], ls[j]
		}
	}
}

// nameBefore is a < b for label names (never empty), their first bytes
// compared inline: most pairs differ there.
func nameBefore(a, b string) bool {
	if a[0] != b[0] {
		return a[0] < b[0]
	}
	return a < b
}

// label returns a label from the batch's chunks.
func (b *batch) label(name, value string) *prompb.Label {
	l := b.lslab.next()
	l.Name, l.Value = name, value
	return l
}

// requests splits the batch into requests of at most max samples (one
// sample a series: a batch holds one group).
func (b *batch) requests(max int) []*prompb.WriteRequest {
	if b.samples == 0 {
		return nil
	}
	if b.samples <= max {
		return []*prompb.WriteRequest{b.req}
	}
	var out []*prompb.WriteRequest
	ts := b.req.Timeseries
	for len(ts) > 0 {
		n := min(max, len(ts))
		out = append(out, &prompb.WriteRequest{Timeseries: ts[:n]})
		ts = ts[n:]
	}
	return out
}

// rawRequests splits a direct batch into requests of at most max
// samples, between series fields: each a write request's bytes.
func (b *batch) rawRequests(max int) []request {
	var out []request
	start := 0
	for k := 0; k < len(b.ends); k += max {
		n := min(max, len(b.ends)-k)
		end := b.ends[k+n-1]
		out = append(out, request{raw: b.wire[start:end], samples: n})
		start = end
	}
	return out
}

// span names the buckets of the batch's groups, for messages.
func (b *batch) span() string {
	first, last := b.groups[0].at, b.groups[len(b.groups)-1].at
	if first == last {
		return "the bucket at " + timeText(first)
	}
	return fmt.Sprintf("the buckets from %s to %s", timeText(first), timeText(last))
}

func timeText(ns int64) string { return string(tape.AppendTime(nil, ns)) }

// ParseLabels reads --label K=V words (label.ParseFlags: tgread --label
// adds the same labels to a backfill) into remote-write labels sorted by
// name, as tgpush sends them (tgcheck --receiver reads them back).
func ParseLabels(args []string) ([]*prompb.Label, error) {
	labels, err := label.ParseFlags("tgpush", args)
	out := make([]*prompb.Label, len(labels))
	for i, l := range labels {
		out[i] = &prompb.Label{Name: l.Name, Value: l.Value}
	}
	return out, err
}
