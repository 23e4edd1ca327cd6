// Package cumulative turns a tape's per-bucket values into the running
// totals that stacks reading counters with rate() and increase() want: a
// count or sum metric becomes a counter NAME_total, a histogram a
// cumulative classic histogram, min and max gauges of the newest sealed
// bucket, and the data-quality counts (entries, late, dropped by reason,
// capped by metric) counters too. It is the one owner of that computation:
// tgserve serves its totals for scrape (Each), and tgpush --counters sends
// them (SamplesAt: each seal's changed totals at the bucket's last
// millisecond, a zero before a series' first).
//
// Totals is fed a tape's records in tape order (Add) and folds a group
// into the totals at its seal, as tgpush groups a tape: a bucket's series
// and !cap markers, and the !late and !drop markers written since the
// previous seal; the markers written before an end record fold at it.
//
// Invariants:
//   - A total is the sum of the values of every sealed group read so far,
//     nothing else: no state outlives the process, so the same tape gives
//     the same totals on every start (a restart never resets a counter),
//     and a counter only grows (every value a count or sum metric, a
//     histogram or a marker puts on the tape is at least 0).
//   - Records after the last seal (a group being written) change nothing
//     visible until their seal.
//   - Memory is one entry per distinct series and one pending group, never
//     the tape: the tape streams through.
//   - A series line given twice in one group (the old defect's fragment)
//     counts once, the last value winning, as tgread resolves it; a seal
//     of a bucket not after the newest one sealed (the old defect's second
//     fragment of a bucket) is refused, as no total could be right.
package cumulative

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/timbertally/timbertally/lib/internal/doc"
	"github.com/timbertally/timbertally/lib/internal/tape"
)

// The data-quality series: what each bucket's numbers rest on (tgpush
// sends them per bucket by these names; here they run on as counters).
const (
	EntriesMetric = "timbertally_entries"         // the seals' entries=: entries placed in buckets
	LateMetric    = "timbertally_late_entries"    // entries of !late markers
	DroppedMetric = "timbertally_dropped_entries" // entries of !drop markers, by reason
	CappedMetric  = "timbertally_capped_entries"  // entries of !cap markers, by metric
)

// Shape is how a series is exposed.
type Shape uint8

// The shapes of a series.
const (
	Counter   Shape = iota + 1 // a running total, exposed as Family_total
	Gauge                      // the newest sealed bucket's value (min, max)
	Histogram                  // one of a cumulative histogram's _bucket, _sum or _count series
)

// Series is one series' running state.
type Series struct {
	Family  string       // the metric family: requests, latency (of latency_bucket), latency_min
	Metric  string       // the name on the tape: requests, latency_bucket
	Labels  []tape.Label // as on the tape, in its order (le last for a _bucket)
	Shape   Shape        //
	Value   float64      // Counter, Histogram: the sum over every sealed bucket; Gauge: the newest bucket's
	Created int64        // the start (Unix ns) of the first sealed bucket that held it
	Last    int64        // the start of the newest sealed bucket that held it
	fresh   bool         // made by the last fold
	sealed  bool         // folded at least once: shown
	pending bool         // in the group being read, with the value pend
	pend    float64
}

// Totals is the running totals of one tape. It is not safe for concurrent
// use; its user locks around Add and the reads.
type Totals struct {
	kinds  map[string]doc.MetricKind
	series map[string]*Series // by the tape's series text
	group  []*Series          // the series of the group being read, in tape order
	buf    []byte             // a series' text, reused
	marks  tape.MarkerCounts  // the markers since the last seal
	newest int64              // the start of the newest sealed bucket
	width  int64
	seals  int64
	folded []*Series // what the last seal or end folded into, in order
	ended  bool      // the last fold was an end record's
}

// New returns the totals of an empty tape whose metrics have kinds (the
// tally store's document; a metric it does not name is a counter).
func New(kinds map[string]doc.MetricKind) *Totals {
	return &Totals{kinds: kinds, series: map[string]*Series{}}
}

// KindsOf returns a document's metric kinds, as New wants them.
func KindsOf(d *doc.Doc) map[string]doc.MetricKind {
	kinds := map[string]doc.MetricKind{}
	for _, m := range d.Metrics {
		kinds[m.Name] = m.Kind
	}
	return kinds
}

// FragmentError is a seal of a bucket that is not after the newest one
// sealed before it: a second fragment of a bucket, which tally wrote
// before the defect was fixed. No running total can be right over it.
type FragmentError struct{ Start, Newest int64 }

func (e *FragmentError) Error() string {
	return fmt.Sprintf("the tape seals the bucket at %s after the one at %s: a bucket sealed twice or out of order, the old defect's fragment; tgcheck --scan names it, and re-deriving the store makes a tape with each bucket once",
		tape.AppendTime(nil, e.Start), tape.AppendTime(nil, e.Newest))
}

// Add takes the tape's next record.
func (t *Totals) Add(rec *tape.Record) error {
	switch rec.Kind {
	case tape.Series:
		// Known series (nearly every line) cost no allocation: the map is
		// looked up by the reused buffer's bytes.
		t.buf = tape.AppendSeries(t.buf[:0], rec.Metric, rec.Labels)
		s, ok := t.series[string(t.buf)]
		if !ok {
			shape := t.shape(rec.Metric)
			s = &Series{Family: t.family(rec.Metric, shape), Metric: rec.Metric, Labels: slices.Clone(rec.Labels), Shape: shape}
			t.series[string(t.buf)] = s
		}
		if !s.pending {
			s.pending = true
			t.group = append(t.group, s)
		}
		s.pend = rec.Value // a line repeated in a group: the last value
	case tape.Late, tape.Drop, tape.Cap:
		t.marks.Add(rec)
	case tape.Seal:
		return t.seal(rec)
	case tape.End:
		t.newFold(true)
		t.markers()    // nothing else would ever carry them
		t.clearGroup() // series without a seal are no bucket's numbers
	}
	return nil
}

// seal folds the group into the totals.
func (t *Totals) seal(rec *tape.Record) error {
	if t.seals > 0 && rec.Start <= t.newest {
		return &FragmentError{rec.Start, t.newest}
	}
	t.newest, t.width = rec.Start, int64(rec.Width)
	t.seals++
	t.newFold(false)
	for _, s := range t.group {
		t.apply(s, s.pend)
	}
	t.clearGroup()
	t.fold(EntriesMetric, EntriesMetric, nil, float64(rec.Entries), Counter)
	t.markers()
	return nil
}

// newFold forgets what the previous seal or end folded.
func (t *Totals) newFold(ended bool) {
	for _, s := range t.folded {
		s.fresh = false
	}
	t.folded, t.ended = t.folded[:0], ended
}

// markers folds the pending markers' counts, in the newest bucket. The
// late counter exists from the first seal on (a zero until a !late), as
// tgpush sends late=0 with every bucket, so that its rate is 0, not absent.
func (t *Totals) markers() {
	if t.seals == 0 {
		return // no bucket yet: they wait for the first seal
	}
	t.fold(LateMetric, LateMetric, nil, float64(t.marks.Late), Counter)
	for _, r := range slices.Sorted(maps.Keys(t.marks.Dropped)) {
		t.fold(DroppedMetric+"\x00"+r, DroppedMetric, []tape.Label{{Name: "reason", Value: r}}, float64(t.marks.Dropped[r]), Counter)
	}
	for _, m := range slices.Sorted(maps.Keys(t.marks.Capped)) {
		t.fold(CappedMetric+"\x00"+m, CappedMetric, []tape.Label{{Name: "metric", Value: m}}, float64(t.marks.Capped[m]), Counter)
	}
	t.marks = tape.MarkerCounts{}
}

func (t *Totals) clearGroup() {
	for _, s := range t.group {
		s.pending = false
	}
	t.group = t.group[:0]
}

// fold adds a sealed value to its series, made at its first bucket.
func (t *Totals) fold(key, metric string, labels []tape.Label, v float64, shape Shape) {
	s, ok := t.series[key]
	if !ok {
		s = &Series{Family: t.family(metric, shape), Metric: metric, Labels: slices.Clone(labels), Shape: shape}
		t.series[key] = s
	}
	t.apply(s, v)
}

// apply adds a sealed value to a series (a gauge takes it), in the newest
// bucket; the first makes the series shown, created in that bucket.
func (t *Totals) apply(s *Series, v float64) {
	if !s.sealed {
		s.sealed, s.fresh, s.Created = true, true, t.newest
	}
	if s.Shape == Gauge {
		s.Value = v
	} else {
		s.Value += v
	}
	s.Last = t.newest
	t.folded = append(t.folded, s)
}

// shape is how a tape metric is exposed, by its document kind.
func (t *Totals) shape(metric string) Shape {
	switch t.kinds[metric] {
	case doc.Min, doc.Max:
		return Gauge
	}
	if base, _, ok := doc.HistogramOf(metric); ok && t.kinds[base] == doc.Histogram {
		return Histogram
	}
	return Counter
}

// family is the metric family a series belongs to: a histogram's base
// name, a counter's name without a _total the document gave it.
func (t *Totals) family(metric string, shape Shape) string {
	switch shape {
	case Histogram:
		base, _, _ := doc.HistogramOf(metric)
		return base
	case Counter:
		if f, ok := cutTotal(metric); ok {
			return f
		}
	}
	return metric
}

// Newest is the start (Unix ns) of the newest sealed bucket and the
// buckets' width, ok false before the first seal.
func (t *Totals) Newest() (start, width int64, ok bool) { return t.newest, t.width, t.seals > 0 }

// Each calls fn with every series that has a value to show: every counter
// and histogram series, and each gauge of the newest sealed bucket (a
// min or max of an older bucket is no current value).
func (t *Totals) Each(fn func(*Series)) {
	for _, s := range t.series {
		if s.sealed && (s.Shape != Gauge || s.Last == t.newest) {
			fn(s)
		}
	}
}

// Name is the series' sample name: NAME_total for a counter, the tape's
// name for a histogram's series and a gauge.
func (s *Series) Name() string {
	if s.Shape == Counter {
		return s.Family + "_total"
	}
	return s.Metric
}

// cutTotal cuts a _total the document already gave a counter's name, so
// that it is not exposed as NAME_total_total.
func cutTotal(metric string) (string, bool) {
	f, ok := strings.CutSuffix(metric, "_total")
	return f, ok && f != ""
}

// Sample is one sample of the counters' shape, as tgpush --counters sends
// it: a series, a time (Unix ms) and its value then.
type Sample struct {
	Series *Series
	Ms     int64
	Value  float64
}

// Samples appends to out the samples of what the last seal (or end
// record) folded: each series it changed, at the bucket's last millisecond
// (tape.SampleMs), with its running total (a gauge: the bucket's value). A
// counter or histogram series first seen in that bucket is preceded by a
// 0 at the last millisecond of the bucket before, so that increase() and
// rate() over the bucket see its first count. The markers folded at an end
// record are stamped at the end of the newest bucket, a millisecond after
// its samples and before any later bucket's, so that no series has two
// values at one time.
func (t *Totals) Samples(out []Sample) []Sample {
	if t.seals == 0 {
		return out
	}
	at := tape.SampleMs(t.newest, time.Duration(t.width))
	zero := tape.SampleMs(t.newest-t.width, time.Duration(t.width))
	if t.ended {
		at, zero = at+1, at
	}
	return t.SamplesAt(out, at, zero)
}

// SamplesAt is Samples stamped by its caller: the running totals at at,
// the zeros before new counter and histogram series at zero. tgpush
// --counters stamps as it stamps every shape (the k-th marker-only group
// after a bucket k ms after its samples, tape.MarkerMs).
func (t *Totals) SamplesAt(out []Sample, at, zero int64) []Sample {
	for _, s := range t.folded {
		if s.fresh && s.Shape != Gauge {
			out = append(out, Sample{s, zero, 0})
		}
		out = append(out, Sample{s, at, s.Value})
	}
	return out
}
