package read

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/timbertally/timbertally/lib/internal/doc"
	"github.com/timbertally/timbertally/lib/internal/tape"
)

// row is one value to print: a series in a bucket (or a --step bucket).
type row struct {
	start  int64
	metric string
	labels []tape.Label // as on the first tape that had the series
	sorted []tape.Label // by name: what tsv, csv, json and table show
	value  float64
	rank   int32 // the series' place in metric, then sorted-label, order (its index in rows' shows until rows ranks them)
	hist   bool  // a _bucket, _sum or _count series of a histogram the kinds name
	ms     int64 // where the bucket's sample is stamped outside the toolkit (tape.SampleMs; OpenMetrics)
}

// view is the settings that turn resolved tapes into rows.
type view struct {
	step   time.Duration             // 0: the tapes' own buckets
	byTape bool                      // keep the tapes apart with a tape label
	labels []tape.Label              // --label: added to every series that lacks them
	kinds  map[string]doc.MetricKind // every metric's kind that is known
}

// rowKey identifies a row across tapes: the bucket and the series' index
// among the shown series.
type rowKey struct {
	start  int64
	series int32
}

// rows merges the tapes' points: the same series in the same bucket (after
// --step) combines by its metric's kind, summing when the kind is unknown.
// One tape at its own buckets has one point a row, and needs no merging.
//
// A series is worked out once (show) and its rank once (rank): the points,
// a million for a day of by=path, are then keyed and ordered by integers.
func (v *view) rows(srcs []*source) ([]*row, error) {
	total := 0
	for _, src := range srcs {
		total += len(src.res.Points)
	}
	slab := make([]row, 0, total) // never grown: out points into it
	out := make([]*row, 0, total)
	var shows []*shown
	ids := map[string]int32{} // a shown series' key: its index in shows
	var byKey map[rowKey]*row
	if len(srcs) > 1 || v.step != 0 {
		byKey = make(map[rowKey]*row, total)
	}
	for _, src := range srcs {
		series := map[*tape.SeriesText]int32{} // per tape: --by-tape labels differ
		for _, p := range src.res.Points {
			id, ok := series[p.Series]
			if !ok {
				sh, err := v.show(src, p.Series)
				if err != nil {
					return nil, err
				}
				if id, ok = ids[sh.key]; !ok {
					id = int32(len(shows))
					ids[sh.key] = id
					shows = append(shows, sh)
				}
				series[p.Series] = id
			}
			k := rowKey{v.bucket(p.Start), id}
			if byKey != nil {
				if r, ok := byKey[k]; ok {
					r.value = combine(v.kinds[r.metric], r.value, p.Value)
					continue
				}
			}
			sh := shows[id]
			slab = append(slab, row{start: k.start, metric: p.Series.Metric, labels: sh.labels, sorted: sh.sorted, value: p.Value, rank: id, hist: sh.hist,
				ms: stampMs(k.start, v.width(src, p.Start))})
			r := &slab[len(slab)-1]
			if byKey != nil {
				byKey[k] = r
			}
			out = append(out, r)
		}
	}
	rank := rankShown(shows)
	for _, r := range out {
		r.rank = rank[r.rank]
	}
	return out, nil
}

// rankShown returns each shown series' place in metric, then sorted-label,
// order.
func rankShown(shows []*shown) []int32 {
	order := make([]int32, len(shows))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		x, y := shows[a], shows[b]
		return cmp.Or(strings.Compare(x.metric, y.metric), compareLabels(x.sorted, y.sorted))
	})
	rank := make([]int32, len(shows))
	for r, id := range order {
		rank[id] = int32(r)
	}
	return rank
}

// shown is a series as the rows show it, worked out once per series and
// tape rather than once per point.
type shown struct {
	metric         string
	labels, sorted []tape.Label
	key            string // the series with sorted labels, in tape syntax
	hist           bool   // a series of a histogram
}

func (v *view) show(src *source, s *tape.SeriesText) (*shown, error) {
	labels := s.Labels
	if v.byTape {
		if slices.ContainsFunc(labels, func(l tape.Label) bool { return l.Name == "tape" }) {
			return nil, fmt.Errorf("tgread: %s already has a label named tape, so --by-tape cannot add one; read the tapes one at a time", s.Text)
		}
		labels = append(slices.Clip(labels), tape.Label{Name: "tape", Value: src.label()})
	}
	labels = withLabels(labels, v.labels)
	sorted := slices.SortedFunc(slices.Values(labels), func(a, b tape.Label) int { return strings.Compare(a.Name, b.Name) })
	hist := false
	if _, own := v.kinds[s.Metric]; !own {
		base, _, ok := doc.HistogramOf(s.Metric)
		hist = ok && v.kinds[base] == doc.Histogram
	}
	return &shown{s.Metric, labels, sorted, string(tape.AppendSeries(nil, s.Metric, sorted)), hist}, nil
}

// width is the width of the (--step) bucket of a point of src at start:
// the step, else its seal's width, else the document's window.
func (v *view) width(src *source, start int64) time.Duration {
	if v.step != 0 {
		return v.step
	}
	if seals := src.res.Seals[start]; len(seals) > 0 {
		return seals[0].Width
	}
	return src.width
}

// stampMs is tape.SampleMs, or for a bucket of no known width (a bare tape
// without seals, no document) its start: nothing says where it ends.
func stampMs(start int64, width time.Duration) int64 {
	if width <= 0 {
		return start / int64(time.Millisecond)
	}
	return tape.SampleMs(start, width)
}

// bucket is the --step bucket holding a start: steps are aligned to the
// Unix epoch, so rolled-up buckets line up across tapes and runs.
func (v *view) bucket(start int64) int64 {
	if v.step == 0 {
		return start
	}
	s := int64(v.step)
	b := start - start%s
	if start%s < 0 {
		b -= s // floor, not truncation, before 1970
	}
	return b
}

// combine merges two values of one series: min of mins, max of maxes, and
// a sum for counts, sums and metrics whose kind no document gives.
func combine(k doc.MetricKind, a, b float64) float64 {
	switch k {
	case doc.Min:
		return min(a, b)
	case doc.Max:
		return max(a, b)
	}
	return a + b
}

// checkStep refuses a --step that is no multiple of a tape's window (its
// buckets would straddle two steps) or that would roll up a metric whose
// kind no document or --kind gives (a sum of minimums means nothing).
func (v *view) checkStep(srcs []*source) error {
	if v.step == 0 {
		return nil
	}
	for _, src := range srcs {
		widths := []time.Duration{src.width}
		for _, seals := range src.res.Seals {
			widths = append(widths, seals[0].Width)
		}
		for _, w := range widths {
			if w != 0 && v.step%w != 0 {
				return fmt.Errorf("tgread: --step %v is not a multiple of the %v window of %s; choose a multiple of %v", v.step, w, src.tape, w)
			}
		}
		for _, p := range src.res.Points {
			if _, ok := v.kindOf(p.Series.Metric); !ok {
				return fmt.Errorf("tgread: --step needs the kind of metric %s, and %s has no document to say it; give it with --kind %s=%s", p.Series.Metric, src.tape, p.Series.Metric, strings.Join(doc.MetricKindWords(), "|"))
			}
		}
	}
	return nil
}

// kindOf returns the kind of a series' metric: its own, or for the
// _bucket, _sum and _count series of a histogram a sum (they merge, and
// roll up, by adding: the buckets of two tapes are the buckets of both).
func (v *view) kindOf(metric string) (doc.MetricKind, bool) {
	if k, ok := v.kinds[metric]; ok {
		return k, true
	}
	if base, _, ok := doc.HistogramOf(metric); ok && v.kinds[base] == doc.Histogram {
		return doc.Sum, true
	}
	return 0, false
}

// byTime orders rows by time, then metric, then labels: a table reads one
// bucket at a time.
func byTime(a, b *row) int {
	return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.rank, b.rank))
}

// bySeries orders rows by family (a histogram's name for its series, else
// the metric), then metric, labels and time: OpenMetrics wants each
// family, and each series within it, contiguous. A histogram's rows go by
// label set (le aside), then time, so that each of its points is whole in
// OpenMetrics's order: its buckets by le, then _count, then _sum.
func bySeries(a, b *row) int {
	if c := strings.Compare(a.family(), b.family()); c != 0 || !a.hist || !b.hist {
		return cmp.Or(c, cmp.Compare(a.rank, b.rank), cmp.Compare(a.start, b.start))
	}
	return cmp.Or(compareLabels(withoutBound(a.sorted), withoutBound(b.sorted)), cmp.Compare(a.start, b.start),
		cmp.Compare(histogramPart(a.metric), histogramPart(b.metric)),
		compareValues(doc.BoundLabel, labelValue(a.sorted, doc.BoundLabel), labelValue(b.sorted, doc.BoundLabel)))
}

// withoutBound returns labels but le: a histogram's label set. It copies
// only when there is an le to leave out.
func withoutBound(labels []tape.Label) []tape.Label {
	if !slices.ContainsFunc(labels, isBound) {
		return labels
	}
	return slices.DeleteFunc(slices.Clone(labels), isBound)
}

// histogramPart is a histogram series' place in an OpenMetrics point:
// _bucket, _count, _sum.
func histogramPart(metric string) int {
	_, suffix, _ := doc.HistogramOf(metric)
	return map[string]int{doc.BucketSuffix: 0, doc.CountSuffix: 1, doc.SumSuffix: 2}[suffix]
}

// family is the OpenMetrics family of a row: its histogram's name, or its
// metric.
func (r *row) family() string {
	if r.hist {
		base, _, _ := doc.HistogramOf(r.metric)
		return base
	}
	return r.metric
}

func compareLabels(a, b []tape.Label) int {
	return slices.CompareFunc(a, b, func(x, y tape.Label) int {
		return cmp.Or(strings.Compare(x.Name, y.Name), compareValues(x.Name, x.Value, y.Value))
	})
}

// compareValues orders two values of label name: a histogram's bounds and
// quantiles by number (le="2.5" before le="10", +Inf last), all else, and
// a bound that is not a number, as bytes.
func compareValues(name, a, b string) int {
	if a != b && (name == doc.BoundLabel || name == quantileLabel) {
		x, errX := strconv.ParseFloat(a, 64)
		y, errY := strconv.ParseFloat(b, 64)
		if errX == nil && errY == nil && x != y {
			return cmp.Compare(x, y)
		}
	}
	return strings.Compare(a, b)
}
