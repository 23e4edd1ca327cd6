package read

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/timbertally/timbertally/lib/internal/doc"
	"github.com/timbertally/timbertally/lib/internal/tape"
)

// quantileLabel is the label a quantile row adds to its histogram's labels.
const quantileLabel = "quantile"

// parseQuantiles reads --quantile Q[,Q...]: numbers from 0 to 1, each once.
func parseQuantiles(args []string) ([]float64, error) {
	var qs []float64
	for _, a := range args {
		q, err := strconv.ParseFloat(a, 64)
		if err != nil || !(q >= 0 && q <= 1) {
			return nil, fmt.Errorf("tgread: --quantile %s is not a quantile from 0 to 1; give e.g. --quantile 0.5,0.99", a)
		}
		if !slices.Contains(qs, q) {
			qs = append(qs, q)
		}
	}
	return qs, nil
}

// histogramBase returns the histogram a _bucket row belongs to: its metric
// is NAME_bucket, it has an le label, and NAME is a histogram by the kinds
// known, or no kind is known of NAME or of the row's metric (a bare tape:
// Prometheus's histogram_quantile likewise takes any series with an le).
func histogramBase(r *row, kinds map[string]doc.MetricKind) (string, bool) {
	base, suffix, ok := doc.HistogramOf(r.metric)
	if !ok || suffix != doc.BucketSuffix || !slices.ContainsFunc(r.sorted, isBound) {
		return "", false
	}
	if k, known := kinds[base]; known {
		return base, k == doc.Histogram
	}
	_, known := kinds[r.metric]
	return base, !known
}

func isBound(l tape.Label) bool { return l.Name == doc.BoundLabel }

// le is one bucket of a histogram: its upper bound and its cumulative count.
type le struct {
	bound, count float64
}

// histogramKey is one histogram in one bucket: its name and its labels but
// le, in tape syntax.
type histogramKey struct {
	start  int64
	series string
}

// histogramRows gathers the buckets of one histogram in one (--step)
// bucket, and what its quantile rows show.
type histogramRows struct {
	key    histogramKey
	ms     int64 // its stamp (row.ms)
	metric string
	labels []tape.Label // but le, in the tape's order
	les    []le
}

// quantileRows turns the _bucket rows of histograms into one row a
// histogram, bucket and quantile: the histogram's name, its labels but le
// with quantile=Q, and the estimate. The rows are merged already (tapes
// summed, --step rolled up), so a fleet's quantile is estimated from the
// fleet's buckets, as histogram_quantile(q, sum by (le) (...)) does, and
// never averaged from each tape's. Other rows are left out. A histogram
// with a label named quantile of its own is refused: its rows would have
// the label twice.
func quantileRows(rows []*row, qs []float64, kinds map[string]doc.MetricKind) ([]*row, error) {
	byKey := map[histogramKey]*histogramRows{}
	var hs []*histogramRows
	var b []byte
	for _, r := range rows {
		base, ok := histogramBase(r, kinds)
		if !ok {
			continue
		}
		bound, err := strconv.ParseFloat(labelValue(r.sorted, doc.BoundLabel), 64)
		if err != nil {
			continue // histogram_quantile ignores a bucket whose le is not a number
		}
		labels := slices.DeleteFunc(slices.Clone(r.labels), isBound)
		if slices.ContainsFunc(labels, func(l tape.Label) bool { return l.Name == quantileLabel }) {
			return nil, fmt.Errorf("tgread: histogram %s has a label named %s, so --quantile cannot add one; read its _bucket series without --quantile", base, quantileLabel)
		}
		b = tape.AppendSeries(b[:0], base, sortedLabels(labels))
		k := histogramKey{r.start, string(b)}
		h := byKey[k]
		if h == nil {
			h = &histogramRows{key: k, ms: r.ms, metric: base, labels: labels}
			byKey[k] = h
			hs = append(hs, h)
		}
		h.les = append(h.les, le{bound, r.value})
	}
	out := make([]*row, 0, len(hs)*len(qs))
	for _, h := range hs {
		for _, q := range qs {
			qText := string(tape.AppendValue(nil, q))
			labels := append(slices.Clip(h.labels), tape.Label{Name: quantileLabel, Value: qText})
			out = append(out, &row{start: h.key.start, ms: h.ms, metric: h.metric, labels: labels, sorted: sortedLabels(labels),
				value: bucketQuantile(q, slices.Clone(h.les))})
		}
	}
	rerank(out)
	return out, nil
}

// groupQuantiles is quantileRows for a stream's group, a bucket sealed
// whole (one tape, no --step: nothing else to merge), sorted as a stream
// prints; without --quantile it is rows.
func (s *settings) groupQuantiles(rows []*row) ([]*row, error) {
	if len(s.quantile) == 0 {
		return rows, nil
	}
	rows, err := quantileRows(rows, s.quantile, s.view.kinds)
	slices.SortFunc(rows, byTime)
	return rows, err
}

// rerank numbers rows' series in metric, then label, order, as rows does.
func rerank(rows []*row) {
	order := slices.Clone(rows)
	slices.SortStableFunc(order, func(a, b *row) int {
		return cmp.Or(strings.Compare(a.metric, b.metric), compareLabels(a.sorted, b.sorted))
	})
	var rank int32 = -1
	for i, r := range order {
		if i == 0 || order[i-1].metric != r.metric || compareLabels(order[i-1].sorted, r.sorted) != 0 {
			rank++
		}
		r.rank = rank
	}
}

func labelValue(labels []tape.Label, name string) string {
	for _, l := range labels {
		if l.Name == name {
			return l.Value
		}
	}
	return ""
}

func sortedLabels(labels []tape.Label) []tape.Label {
	return slices.SortedFunc(slices.Values(labels), func(a, b tape.Label) int { return strings.Compare(a.Name, b.Name) })
}

// bucketQuantile estimates the q-quantile of a histogram's cumulative
// buckets as Prometheus's histogram_quantile does for classic histograms
// (promql/quantile.go, bucketQuantile), edge cases included:
//
//   - q below 0 is -Inf, above 1 +Inf, NaN NaN;
//   - no +Inf bucket, fewer than two buckets, or no observation: NaN;
//   - buckets of one bound are added together, and a count below the one
//     under it is raised to it (counts are cumulative, so never fall);
//   - the rank q·count falls in the first bucket whose count reaches it;
//     in the +Inf bucket the estimate is the highest finite bound; in the
//     lowest bucket it is interpolated from 0 when that bound is above 0,
//     and is the bound itself when it is 0 or below; anywhere else it is
//     interpolated linearly within the bucket.
func bucketQuantile(q float64, les []le) float64 {
	switch {
	case math.IsNaN(q):
		return math.NaN()
	case q < 0:
		return math.Inf(-1)
	case q > 1:
		return math.Inf(1)
	}
	slices.SortFunc(les, func(a, b le) int { return cmp.Compare(a.bound, b.bound) })
	if len(les) == 0 || !math.IsInf(les[len(les)-1].bound, 1) {
		return math.NaN()
	}
	les = coalesce(les)
	monotonic(les)
	if len(les) < 2 {
		return math.NaN()
	}
	total := les[len(les)-1].count
	if total == 0 {
		return math.NaN()
	}
	rank := q * total
	i := sort.Search(len(les)-1, func(i int) bool { return les[i].count >= rank })
	switch {
	case i == len(les)-1:
		return les[len(les)-2].bound
	case i == 0 && les[0].bound <= 0:
		return les[0].bound
	}
	lower, count := 0.0, les[i].count
	if i > 0 {
		lower = les[i-1].bound
		count -= les[i-1].count
		rank -= les[i-1].count
	}
	return lower + (les[i].bound-lower)*(rank/count)
}

// coalesce adds together the buckets of one bound; les is sorted.
func coalesce(les []le) []le {
	out := les[:1]
	for _, l := range les[1:] {
		if last := &out[len(out)-1]; l.bound == last.bound {
			last.count += l.count
		} else {
			out = append(out, l)
		}
	}
	return out
}

// monotonic raises each count to the highest below it.
func monotonic(les []le) {
	for i := 1; i < len(les); i++ {
		les[i].count = max(les[i].count, les[i-1].count)
	}
}

// plotStep rolls the buckets up for --plot --quantile when there are more
// of them than a chart has columns: a column must show the quantile of its
// buckets merged, which only a --step gives (a plot otherwise combines the
// values a column spans, and quantiles do not add). The step is the
// smallest multiple of the given --step, or of the widest window (of a
// bare tape, its buckets' spacing), that fits.
func (s *settings) plotStep(srcs []*source) {
	if !s.plot || len(s.quantile) == 0 {
		return
	}
	base := s.view.step
	var first, last int64
	seen := false
	for _, src := range srcs {
		if base == 0 {
			base = max(base, src.width)
			for _, seals := range src.res.Seals {
				base = max(base, seals[0].Width)
			}
		}
		for _, p := range src.res.Points {
			if !seen || p.Start < first {
				first = p.Start
			}
			last, seen = max(last, p.Start), true
		}
	}
	if base <= 0 {
		base = time.Duration(smallestGap(srcs)) // a bare tape without seals: its buckets' spacing
	}
	if base <= 0 || !seen {
		return
	}
	cols := int64(max(s.width-plotLabelRoom, minPlotColumns))
	if n := (last-first)/int64(base) + 1; n > cols-1 {
		s.view.step = base * time.Duration((n+cols-2)/(cols-1))
	}
}

// plotLabelRoom is the room a quantile chart keeps for its value labels.
const plotLabelRoom = 24

// quantileKinds gives the quantile rows' metrics the kind a chart combines
// them by should a column still span several (the most a bucket's estimate
// was), and keeps the others.
func quantileKinds(rows []*row, kinds map[string]doc.MetricKind) map[string]doc.MetricKind {
	out := maps.Clone(kinds)
	if out == nil {
		out = map[string]doc.MetricKind{}
	}
	for _, r := range rows {
		out[r.metric] = doc.Max
	}
	return out
}

// smallestGap returns the smallest gap between two bucket starts of the
// sources' points, 0 for fewer than two.
func smallestGap(srcs []*source) int64 {
	var starts []int64
	for _, src := range srcs {
		for _, p := range src.res.Points {
			starts = append(starts, p.Start)
		}
	}
	slices.Sort(starts)
	starts = slices.Compact(starts)
	var gap int64
	for i := 1; i < len(starts); i++ {
		if g := starts[i] - starts[i-1]; gap == 0 || g < gap {
			gap = g
		}
	}
	return gap
}
