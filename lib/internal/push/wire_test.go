package push

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	prompb "buf.build/gen/go/prometheus/prometheus/protocolbuffers/go"
	"google.golang.org/protobuf/proto"
)

// wireRequest builds a request of the shape tgpush sends from the fuzzer's
// values: a series per label value, each with its samples.
func wireRequest(names, values string, v float64, ts int64, series int) *prompb.WriteRequest {
	req := &prompb.WriteRequest{}
	for i := range series % 5 {
		s := &prompb.TimeSeries{Labels: []*prompb.Label{{Name: "__name__", Value: names}, {Name: names, Value: strings.Repeat(values, i%3)}, {Name: "", Value: values}}}
		for k := range i {
			s.Samples = append(s.Samples, &prompb.Sample{Value: v * float64(k), Timestamp: ts - int64(k)})
		}
		req.Timeseries = append(req.Timeseries, s)
	}
	return req
}

func checkWire(t *testing.T, req *prompb.WriteRequest) {
	t.Helper()
	want, err := proto.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := appendWriteRequest(nil, req)
	if !ok || !bytes.Equal(got, want) {
		t.Fatalf("appendWriteRequest (ok %v):\n%x\nproto.Marshal:\n%x", ok, got, want)
	}
	var back prompb.WriteRequest
	if err := proto.Unmarshal(got, &back); err != nil || !proto.Equal(&back, req) {
		t.Fatalf("read back %v (%v), want %v", &back, err, req)
	}
}

// The hand-written encoder writes exactly proto.Marshal's bytes for every
// request tgpush builds: zero, -0, NaN and infinite values, negative and
// zero timestamps, empty names and values, long strings (two-byte
// lengths), no series and series without samples.
func TestTheWriteRequestEncoderWritesWhatProtoMarshalDoes(t *testing.T) {
	long := string(bytes.Repeat([]byte("é"), 300))
	for _, v := range []float64{0, math.Copysign(0, -1), 1, -2.5, math.NaN(), math.Inf(1), 1e300} {
		for _, ts := range []int64{0, 1, -1, 1796121339999, math.MinInt64} {
			for _, s := range []string{"", "a", long} {
				checkWire(t, wireRequest("requests", s, v, ts, 4))
			}
		}
	}
	checkWire(t, &prompb.WriteRequest{})
}

// Anything tgpush does not set goes to proto.Marshal.
func TestARequestWithFieldsTgpushDoesNotSetIsLeftToProtoMarshal(t *testing.T) {
	for _, req := range []*prompb.WriteRequest{
		{Metadata: []*prompb.MetricMetadata{{MetricFamilyName: "x"}}},
		{Timeseries: []*prompb.TimeSeries{{Exemplars: []*prompb.Exemplar{{Value: 1}}}}},
		{Timeseries: []*prompb.TimeSeries{{Histograms: []*prompb.Histogram{{Sum: 1}}}}},
	} {
		if _, ok := appendWriteRequest(nil, req); ok {
			t.Errorf("%v was encoded by hand", req)
		}
	}
}

func FuzzTheWriteRequestEncoderWritesWhatProtoMarshalDoes(f *testing.F) {
	f.Add("requests", "/index.html", 3.5, int64(1796121339999), 3)
	f.Add("", "", 0.0, int64(0), 4)
	f.Fuzz(func(t *testing.T, names, values string, v float64, ts int64, series int) {
		if series < 0 {
			series = -series
		}
		req := wireRequest(names, values, v, ts, series)
		if !utf8.ValidString(names) || !utf8.ValidString(values) {
			if _, err := proto.Marshal(req); err == nil && series%5 > 0 {
				t.Fatal("proto.Marshal took a string that is not UTF-8")
			}
			if _, ok := appendWriteRequest(nil, req); ok && series%5 > 0 {
				t.Fatal("a string that is not UTF-8 was encoded by hand: proto.Marshal refuses it")
			}
			return
		}
		checkWire(t, req)
	})
}

// A series' labels go sorted by name, as remote write wants them; the
// insertion sort is held to the standard library's on every order of
// label sets as wide as a document's by= with --labels and le.
func TestASeriesLabelsAreSortedByNameWhateverTheirOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	names := []string{"__name__", "path", "status", "le", "host", "dc", "method", "a", "zone", "Z", "_x"}
	for range 5000 {
		n := 1 + rng.IntN(len(names))
		var ls []wireLabel
		for _, i := range rng.Perm(len(names))[:n] {
			ls = append(ls, wireLabel{names[i], fmt.Sprint(i)})
		}
		want := slices.Clone(ls)
		slices.SortFunc(want, func(a, b wireLabel) int { return strings.Compare(a.name, b.name) })
		sortWireLabels(ls)
		if !slices.Equal(ls, want) {
			t.Fatalf("sorted %v, want %v", ls, want)
		}
	}
}
