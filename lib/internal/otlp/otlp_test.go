package otlp

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	colpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"

	"github.com/timbertally/timbertally/lib/internal/doc"
	"github.com/timbertally/timbertally/lib/internal/tape"
)

const group = `2026-10-10T13:55:10Z requests{status="200"} 4
2026-10-10T13:55:10Z requests{status="500"} 1
2026-10-10T13:55:10Z bytes{status="200"} 4000.5
2026-10-10T13:55:10Z slowest 0.75
2026-10-10T13:55:10Z latency_bucket{status="200",le="0.1"} 1
2026-10-10T13:55:10Z latency_bucket{status="200",le="1"} 3
2026-10-10T13:55:10Z latency_bucket{status="200",le="+Inf"} 4
2026-10-10T13:55:10Z latency_sum{status="200"} 2.5
2026-10-10T13:55:10Z latency_count{status="200"} 4
!cap 2026-10-10T13:55:10Z metric=requests id=w offset=0 end=10 count=2
!drop id=w offset=10 end=20 count=3 reason=no-time
!late 2026-10-10T13:55:00Z id=w offset=20 end=30 count=7
`

var kinds = map[string]doc.MetricKind{"requests": doc.Count, "bytes": doc.Sum, "slowest": doc.Max, "latency": doc.Histogram}

func groupOf(t *testing.T, text string) *Group {
	t.Helper()
	start, _ := time.Parse(time.RFC3339, "2026-10-10T13:55:10Z")
	g := &Group{Start: start.UnixNano(), Width: 10 * time.Second, Sealed: true, Entries: 6}
	for line := range strings.Lines(text) {
		rec, err := tape.Parse([]byte(strings.TrimSuffix(line, "\n")))
		if err != nil {
			t.Fatal(err)
		}
		if rec.Kind == tape.Series {
			g.Series = append(g.Series, rec)
		} else {
			g.Markers = append(g.Markers, rec)
		}
	}
	return g
}

// points lists every data point as "metric{k=v,...}" -> "type value
// start..time" (seconds after the bucket's start).
func points(t *testing.T, g *Group, rm *metricspb.ResourceMetrics) map[string]string {
	t.Helper()
	out := map[string]string{}
	at := func(start, time uint64) string {
		return fmt.Sprintf("%v..%v", (float64(start)-float64(g.Start))/1e9, (float64(time)-float64(g.Start))/1e9)
	}
	for _, m := range rm.ScopeMetrics[0].Metrics {
		switch d := m.Data.(type) {
		case *metricspb.Metric_Sum:
			if d.Sum.AggregationTemporality != metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_DELTA || !d.Sum.IsMonotonic {
				t.Errorf("%s: %v monotonic=%v, want a monotonic delta Sum", m.Name, d.Sum.AggregationTemporality, d.Sum.IsMonotonic)
			}
			for _, p := range d.Sum.DataPoints {
				v := fmt.Sprint(p.GetAsDouble())
				if _, ok := p.Value.(*metricspb.NumberDataPoint_AsInt); ok {
					v = fmt.Sprint(p.GetAsInt(), "i")
				}
				out[m.Name+kvText(p.Attributes)] = "sum " + v + " " + at(p.StartTimeUnixNano, p.TimeUnixNano)
			}
		case *metricspb.Metric_Gauge:
			for _, p := range d.Gauge.DataPoints {
				out[m.Name+kvText(p.Attributes)] = fmt.Sprint("gauge ", p.GetAsDouble(), " ", at(p.StartTimeUnixNano, p.TimeUnixNano))
			}
		case *metricspb.Metric_Histogram:
			if d.Histogram.AggregationTemporality != metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_DELTA {
				t.Errorf("%s: %v, want a delta Histogram", m.Name, d.Histogram.AggregationTemporality)
			}
			for _, p := range d.Histogram.DataPoints {
				out[m.Name+kvText(p.Attributes)] = fmt.Sprint("histogram count=", p.Count, " sum=", p.GetSum(), " bounds=", p.ExplicitBounds,
					" counts=", p.BucketCounts, " ", at(p.StartTimeUnixNano, p.TimeUnixNano))
			}
		}
	}
	return out
}

func kvText(kvs []*commonpb.KeyValue) string {
	var parts []string
	for _, kv := range kvs {
		parts = append(parts, kv.Key+"="+kv.Value.GetStringValue())
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func TestABucketIsOneRequestOfDeltaPointsOverItsIntervalWithEveryValueOnce(t *testing.T) {
	g := groupOf(t, group)
	req := Request(g, kinds, []tape.Label{{Name: "host", Value: "web1"}})
	// Through the wire format and back: what a receiver decodes.
	data, err := proto.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	var back colpb.ExportMetricsServiceRequest
	if err := proto.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	rm := back.ResourceMetrics[0]
	if got := kvText(rm.Resource.Attributes); got != "{host=web1,service.name=timbertally}" {
		t.Errorf("resource %s", got)
	}
	if rm.ScopeMetrics[0].Scope.Name != "timbertally" {
		t.Errorf("scope %q", rm.ScopeMetrics[0].Scope.Name)
	}
	// Worked by hand from the group: a histogram's cumulative 1, 3, 4
	// are 1, 2, 1 per bound; every point spans the bucket, 0..10 s.
	want := map[string]string{
		"requests{status=200}":                        "sum 4i 0..10",
		"requests{status=500}":                        "sum 1i 0..10",
		"bytes{status=200}":                           "sum 4000.5 0..10",
		"slowest{}":                                   "gauge 0.75 0..10",
		"latency{status=200}":                         "histogram count=4 sum=2.5 bounds=[0.1 1] counts=[1 2 1] 0..10",
		"timbertally_entries{}":                       "sum 6i 0..10",
		"timbertally_late_entries{}":                  "sum 7i 0..10",
		"timbertally_dropped_entries{reason=no-time}": "sum 3i 0..10",
		"timbertally_capped_entries{metric=requests}": "sum 2i 0..10",
	}
	got := points(t, g, rm)
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: got %q, want %q", k, got[k], v)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("a point nothing on the tape gives: %s %s", k, got[k])
		}
	}
}

func TestTheMarkersBeforeAnEndAreSentWithoutEntries(t *testing.T) {
	g := groupOf(t, "!drop id=w offset=10 end=20 count=3 reason=no-time\n")
	g.Sealed, g.Entries = false, 0
	got := points(t, g, Request(g, kinds, nil).ResourceMetrics[0])
	if len(got) != 1 || got["timbertally_dropped_entries{reason=no-time}"] != "sum 3i 0..10" {
		t.Errorf("got %v, want only the 3 dropped entries", got)
	}
}

func TestALabelValueThatIsNotUTF8IsSentAsTgpushSendsIt(t *testing.T) {
	g := groupOf(t, `2026-10-10T13:55:10Z requests{status="2\xff0"} 4`+"\n")
	got := points(t, g, Request(g, kinds, nil).ResourceMetrics[0])
	if _, ok := got[`requests{status=2\xff0}`]; !ok {
		t.Errorf("got %v", got)
	}
}
