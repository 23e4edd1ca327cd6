// Package otlp turns a tape's sealed bucket into an OpenTelemetry metrics
// export request (OTLP, the OpenTelemetry project's generated protobuf
// types), with delta temporality: a bucket's count over [start, end) is
// exactly an OTLP delta data point with that start and time. It is the
// encoding tgpush --protocol otlp sends by OTLP/HTTP (protobuf).
//
// A group (a bucket's series and markers, as tgpush groups a tape) becomes
// one request: one resource (the --label labels as its attributes, and
// service.name "timbertally"), one scope, and a
// metric a name:
//
//   - a count or sum metric: a monotonic Sum, delta (an integer point for a
//     count);
//   - a histogram (the tape's NAME_bucket, NAME_sum, NAME_count): a
//     Histogram, delta, with the tape's bounds as explicit bounds and the
//     per-bound counts (the tape's are cumulative; OTLP's are not);
//   - a min or max metric: a Gauge (its value over the bucket);
//   - the data-quality counts (timbertally_entries, timbertally_late_entries,
//     timbertally_dropped_entries{reason}, timbertally_capped_entries{metric}),
//     monotonic delta Sums, as tgpush sends them per bucket.
//
// Invariants:
//   - Every point's start is the bucket's start and its time the bucket's
//     end, by tape.Interval (the one owner of the rule).
//   - Every value of the group is in the request once, and nothing else: a
//     histogram's counts add back to the tape's cumulative ones.
//   - Label values are sent as tgpush sends them (label.Shown: a byte
//     that is not UTF-8 as the text \xHH), since OTLP strings are UTF-8.
package otlp

import (
	"cmp"
	"maps"
	"math"
	"slices"
	"strconv"
	"time"

	colpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"

	"github.com/timbertally/timbertally/lib/internal/cumulative"
	"github.com/timbertally/timbertally/lib/internal/doc"
	"github.com/timbertally/timbertally/lib/internal/label"
	"github.com/timbertally/timbertally/lib/internal/tape"
)

// Group is a bucket's records, as tgpush groups a tape.
type Group struct {
	Start   int64 // the bucket's start, Unix ns
	Width   time.Duration
	Sealed  bool  // a bucket's group (false: the markers before an end record)
	Entries int64 // the seal's entries=
	Series  []tape.Record
	Markers []tape.Record // !late, !drop, !cap
}

// Scope is the instrumentation scope the metrics are sent under.
const Scope = "timbertally"

// Request is the export request of one group, for metrics of kinds (a
// tally store's document) and the resource attributes labels.
func Request(g *Group, kinds map[string]doc.MetricKind, labels []tape.Label) *colpb.ExportMetricsServiceRequest {
	from, to := tape.Interval(g.Start, g.Width)
	e := &encoder{kinds: kinds, start: uint64(from), time: uint64(to), metrics: map[string]*metricspb.Metric{}, hists: map[string]*histogram{}}
	for i := range g.Series {
		e.series(&g.Series[i])
	}
	e.quality(g)
	var out []*metricspb.Metric
	for _, name := range slices.Sorted(maps.Keys(e.metrics)) {
		out = append(out, e.metrics[name])
	}
	return &colpb.ExportMetricsServiceRequest{ResourceMetrics: []*metricspb.ResourceMetrics{{
		Resource:     &resourcepb.Resource{Attributes: resource(labels)},
		ScopeMetrics: []*metricspb.ScopeMetrics{{Scope: &commonpb.InstrumentationScope{Name: Scope}, Metrics: out}},
	}}}
}

// resource is the resource's attributes: the labels, and service.name
// (which Prometheus makes the job label).
func resource(labels []tape.Label) []*commonpb.KeyValue {
	return append(attributes(labels), attr("service.name", Scope))
}

type encoder struct {
	kinds       map[string]doc.MetricKind
	start, time uint64
	metrics     map[string]*metricspb.Metric
	hists       map[string]*histogram // by histogram name and label set
}

// histogram is one label set's data point being assembled from the tape's
// cumulative _bucket lines, _sum and _count.
type histogram struct {
	point  *metricspb.HistogramDataPoint
	bounds []bound
}

type bound struct {
	le  float64
	cum float64
}

// series adds one tape series line.
func (e *encoder) series(r *tape.Record) {
	if base, suffix, ok := doc.HistogramOf(r.Metric); ok && e.kinds[base] == doc.Histogram {
		e.histogramPart(base, suffix, r)
		return
	}
	attrs := attributes(r.Labels)
	switch e.kinds[r.Metric] {
	case doc.Min, doc.Max:
		m := e.metric(r.Metric, func() *metricspb.Metric {
			return &metricspb.Metric{Name: r.Metric, Data: &metricspb.Metric_Gauge{Gauge: &metricspb.Gauge{}}}
		})
		g := m.GetGauge()
		g.DataPoints = append(g.DataPoints, &metricspb.NumberDataPoint{Attributes: attrs, StartTimeUnixNano: e.start, TimeUnixNano: e.time, Value: &metricspb.NumberDataPoint_AsDouble{AsDouble: r.Value}})
	case doc.Count:
		e.sum(r.Metric, attrs, r.Value, true)
	default: // a sum, or a metric the document does not name (tgread sums those too)
		e.sum(r.Metric, attrs, r.Value, false)
	}
}

// sum adds a delta point to the monotonic Sum name.
func (e *encoder) sum(name string, attrs []*commonpb.KeyValue, v float64, integer bool) {
	m := e.metric(name, func() *metricspb.Metric {
		return &metricspb.Metric{Name: name, Data: &metricspb.Metric_Sum{Sum: &metricspb.Sum{
			AggregationTemporality: metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_DELTA, IsMonotonic: true}}}
	})
	p := &metricspb.NumberDataPoint{Attributes: attrs, StartTimeUnixNano: e.start, TimeUnixNano: e.time}
	if integer && v == math.Trunc(v) && math.Abs(v) < 1<<63 {
		p.Value = &metricspb.NumberDataPoint_AsInt{AsInt: int64(v)}
	} else {
		p.Value = &metricspb.NumberDataPoint_AsDouble{AsDouble: v}
	}
	s := m.GetSum()
	s.DataPoints = append(s.DataPoints, p)
}

func (e *encoder) metric(name string, make func() *metricspb.Metric) *metricspb.Metric {
	m, ok := e.metrics[name]
	if !ok {
		m = make()
		e.metrics[name] = m
	}
	return m
}

// histogramPart adds a histogram's _bucket, _sum or _count line to the
// data point of its label set.
func (e *encoder) histogramPart(base, suffix string, r *tape.Record) {
	var le string
	labels := slices.DeleteFunc(slices.Clone(r.Labels), func(l tape.Label) bool {
		if l.Name == doc.BoundLabel {
			le = l.Value
			return true
		}
		return false
	})
	key := string(tape.AppendSeries(nil, base, labels))
	h, ok := e.hists[key]
	if !ok {
		h = &histogram{point: &metricspb.HistogramDataPoint{Attributes: attributes(labels), StartTimeUnixNano: e.start, TimeUnixNano: e.time}}
		e.hists[key] = h
		m := e.metric(base, func() *metricspb.Metric {
			return &metricspb.Metric{Name: base, Data: &metricspb.Metric_Histogram{Histogram: &metricspb.Histogram{
				AggregationTemporality: metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_DELTA}}}
		})
		hg := m.GetHistogram()
		hg.DataPoints = append(hg.DataPoints, h.point)
	}
	switch suffix {
	case doc.SumSuffix:
		v := r.Value
		h.point.Sum = &v
	case doc.CountSuffix:
		h.point.Count = uint64(r.Value)
	case doc.BucketSuffix:
		f, _ := strconv.ParseFloat(le, 64) // the tape's le: a number or +Inf
		h.bounds = append(h.bounds, bound{f, r.Value})
		h.fill()
	}
}

// fill sets the point's explicit bounds and per-bound counts from the
// cumulative ones read so far (+Inf is the last bucket, not a bound).
func (h *histogram) fill() {
	slices.SortFunc(h.bounds, func(a, b bound) int { return cmp.Compare(a.le, b.le) })
	h.point.ExplicitBounds, h.point.BucketCounts = h.point.ExplicitBounds[:0], h.point.BucketCounts[:0]
	prev := 0.0
	for _, b := range h.bounds {
		if !math.IsInf(b.le, 1) {
			h.point.ExplicitBounds = append(h.point.ExplicitBounds, b.le)
		}
		h.point.BucketCounts = append(h.point.BucketCounts, uint64(b.cum-prev))
		prev = b.cum
	}
}

// quality adds the data-quality counts of the group, as tgpush sends them
// per bucket: entries and late with every bucket, dropped and capped where
// there are some.
func (e *encoder) quality(g *Group) {
	var m tape.MarkerCounts
	for i := range g.Markers {
		m.Add(&g.Markers[i])
	}
	if g.Sealed {
		e.sum(cumulative.EntriesMetric, nil, float64(g.Entries), true)
	}
	if g.Sealed || m.Late > 0 {
		e.sum(cumulative.LateMetric, nil, float64(m.Late), true)
	}
	for _, r := range slices.Sorted(maps.Keys(m.Dropped)) {
		e.sum(cumulative.DroppedMetric, []*commonpb.KeyValue{attr("reason", r)}, float64(m.Dropped[r]), true)
	}
	for _, c := range slices.Sorted(maps.Keys(m.Capped)) {
		e.sum(cumulative.CappedMetric, []*commonpb.KeyValue{attr("metric", c)}, float64(m.Capped[c]), true)
	}
}

// attributes are labels as OTLP attributes, each value shown as tgpush
// sends it.
func attributes(labels []tape.Label) []*commonpb.KeyValue {
	if len(labels) == 0 {
		return nil
	}
	out := make([]*commonpb.KeyValue, len(labels))
	for i, l := range labels {
		out[i] = attr(l.Name, label.Shown(l.Value))
	}
	return out
}

func attr(k, v string) *commonpb.KeyValue {
	return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v}}}
}
