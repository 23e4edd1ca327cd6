package push

import (
	"fmt"
	"net/http"
	"time"

	colpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	"google.golang.org/protobuf/proto"

	"github.com/timbertally/timbertally/lib/internal/doc"
	"github.com/timbertally/timbertally/lib/internal/otlp"
	"github.com/timbertally/timbertally/lib/internal/tape"
)

// DefaultOTLPURL is a local Prometheus 3's OTLP receiver (run with
// --web.enable-otlp-receiver).
const DefaultOTLPURL = "http://127.0.0.1:9090/api/v1/otlp/v1/metrics"

// otlpShape is the shape of --protocol otlp: each group one OTLP export
// request of delta points over the bucket (lib/internal/otlp, the one
// owner of the encoding), the --label labels its resource's attributes.
// A marker-only group, which has no bucket of its own, is the millisecond
// it has of its own after the bucket (the k-th: [MarkerMs, MarkerMs + 1
// ms)), so its points' times follow the bucket's end (the bucket's point)
// and never meet another group's.
type otlpShape struct {
	kinds  map[string]doc.MetricKind
	labels []tape.Label // --label: the resource's attributes
}

func (*otlpShape) sends() string { return SendsOTLP }

func (o *otlpShape) add(b *batch, g Group, at, ms int64, k int) {
	b.groups = append(b.groups, placed{g, at, true})
	og := otlp.Group{Start: g.Seal.Start, Width: g.Seal.Width, Sealed: g.sealed(), Entries: g.Seal.Entries, Series: g.Series, Markers: g.Markers}
	if k > 0 {
		og.Start, og.Width = ms*int64(time.Millisecond), time.Millisecond
	}
	if b.clash = o.clash(g); b.clash != nil {
		return
	}
	b.export = otlp.Request(&og, o.kinds, o.labels)
	b.samples += countPoints(b.export.ResourceMetrics[0].ScopeMetrics[0].Metrics)
}

// clash is a --label a series of the group has too (a tape an older
// document wrote; Run refuses the document's own at start): Prometheus
// would make the resource attribute and the point's one label.
func (o *otlpShape) clash(g Group) *LabelClash {
	for _, s := range g.Series {
		for _, l := range s.Labels {
			for _, e := range o.labels {
				if e.Name == l.Name {
					return &LabelClash{Label: e.Name, Value: e.Value, Metric: s.Metric}
				}
			}
		}
	}
	return nil
}

func (*otlpShape) pass(*batch, Group) {}

// requests splits the group's export request into requests of at most
// max data points (a histogram's point is one), each with the resource
// and scope.
func (*otlpShape) requests(b *batch, max int) []request {
	if b.export == nil || b.samples == 0 {
		return nil
	}
	if b.samples <= max {
		return []request{{msg: b.export, samples: b.samples}}
	}
	rm := b.export.ResourceMetrics[0]
	sm := rm.ScopeMetrics[0]
	var out []request
	var part []*metricspb.Metric
	n := 0
	flush := func() {
		if n == 0 {
			return
		}
		out = append(out, request{samples: n, msg: &colpb.ExportMetricsServiceRequest{ResourceMetrics: []*metricspb.ResourceMetrics{{
			Resource: rm.Resource, ScopeMetrics: []*metricspb.ScopeMetrics{{Scope: sm.Scope, Metrics: part}}}}}})
		part, n = nil, 0
	}
	for _, m := range sm.Metrics {
		all := countPoints([]*metricspb.Metric{m})
		for i := 0; i < all; {
			j := min(all, i+max-n)
			part = append(part, slicePoints(m, i, j))
			n += j - i
			i = j
			if n == max {
				flush()
			}
		}
	}
	flush()
	return out
}

// countPoints is the data points of metrics.
func countPoints(metrics []*metricspb.Metric) int {
	n := 0
	for _, m := range metrics {
		switch d := m.Data.(type) {
		case *metricspb.Metric_Sum:
			n += len(d.Sum.DataPoints)
		case *metricspb.Metric_Gauge:
			n += len(d.Gauge.DataPoints)
		case *metricspb.Metric_Histogram:
			n += len(d.Histogram.DataPoints)
		}
	}
	return n
}

// slicePoints is m with its data points [i, j) only.
func slicePoints(m *metricspb.Metric, i, j int) *metricspb.Metric {
	c := &metricspb.Metric{Name: m.Name, Description: m.Description, Unit: m.Unit}
	switch d := m.Data.(type) {
	case *metricspb.Metric_Sum:
		c.Data = &metricspb.Metric_Sum{Sum: &metricspb.Sum{AggregationTemporality: d.Sum.AggregationTemporality, IsMonotonic: d.Sum.IsMonotonic, DataPoints: d.Sum.DataPoints[i:j]}}
	case *metricspb.Metric_Gauge:
		c.Data = &metricspb.Metric_Gauge{Gauge: &metricspb.Gauge{DataPoints: d.Gauge.DataPoints[i:j]}}
	case *metricspb.Metric_Histogram:
		c.Data = &metricspb.Metric_Histogram{Histogram: &metricspb.Histogram{AggregationTemporality: d.Histogram.AggregationTemporality, DataPoints: d.Histogram.DataPoints[i:j]}}
	}
	return c
}

// otlpHint adds to the note of a 500 answered to OTLP what Prometheus 3
// means by it when it logs "invalid temporality and type combination":
// delta points without the feature that keeps them. It is only a hint
// (a 500 is retried as every 5xx is; nothing is parsed from the answer).
func (s *sender) otlpHint(o outcome) string {
	if !s.otlp || o.Status != http.StatusInternalServerError {
		return ""
	}
	return " (a Prometheus 3 answers so to delta points unless run with --enable-feature=otlp-native-delta-ingestion)"
}

// partial is the refusal inside an OTLP answer of 2xx: an
// ExportMetricsServiceResponse whose partial_success rejected points
// (OTLP/HTTP says a receiver answers so when it took only some). Nil for
// remote write, an empty body, or one that rejected nothing.
func (s *sender) partial(o outcome) *Refused {
	if !s.otlp || o.Body == "" {
		return nil
	}
	var resp colpb.ExportMetricsServiceResponse
	if proto.Unmarshal([]byte(o.Body), &resp) != nil {
		return nil
	}
	ps := resp.GetPartialSuccess()
	if ps == nil || ps.GetRejectedDataPoints() == 0 {
		return nil
	}
	return &Refused{Status: o.Status, Text: fmt.Sprintf("%d data points rejected (partial success): %s", ps.GetRejectedDataPoints(), ps.GetErrorMessage())}
}
