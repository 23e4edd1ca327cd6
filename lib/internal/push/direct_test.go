package push

import (
	"bytes"
	"fmt"
	"math"
	"testing"

	prompb "buf.build/gen/go/prometheus/prometheus/protocolbuffers/go"
	"github.com/timbertally/timbertally/lib/internal/tape"
)

// directGroup is a group whose series have values and label values from
// the fuzzer: a histogram's buckets (le in several spellings), a path
// label with whatever bytes, markers of two reasons and a cap.
func directGroup(value string, v float64, n int) Group {
	start := int64(1_700_000_000e9)
	g := Group{Seal: tape.Record{Kind: tape.Seal, Start: start, Width: 10e9, Entries: int64(n)}}
	les := []string{"0.5", "0.50", "1e0", "+Inf", "inf", value}
	for i := range n {
		g.Series = append(g.Series,
			tape.Record{Kind: tape.Series, Start: start, Metric: "latency_bucket",
				Labels: []tape.Label{{Name: "path", Value: fmt.Sprintf("%s/%d", value, i)}, {Name: "le", Value: les[i%len(les)]}}, Value: v * float64(i)},
			tape.Record{Kind: tape.Series, Start: start, Metric: "requests",
				Labels: []tape.Label{{Name: "zone", Value: value}, {Name: "a", Value: fmt.Sprint(i)}}, Value: float64(i)})
	}
	g.Markers = []tape.Record{
		{Kind: tape.Drop, Start: start, Reason: "bad_status", Count: 3},
		{Kind: tape.Drop, Start: start, Reason: "unparsed", Count: 1},
		{Kind: tape.Cap, Start: start, Metric: "requests", Count: 2},
	}
	return g
}

// checkDirect builds g both ways, as messages then encoded and as wire
// bytes as it is added, and compares every request's bytes.
func checkDirect(t *testing.T, g Group, max int, labels ...string) {
	t.Helper()
	extra, err := ParseLabels(labels)
	if err != nil {
		t.Fatal(err)
	}
	ms := tape.SampleMs(g.Seal.Start, g.Seal.Width)
	msgs, direct := newBatch(extra), newBatch(extra)
	direct.direct = true
	msgs.add(g, g.Seal.Start, ms)
	direct.add(g, g.Seal.Start, ms)
	want, got := buckets{}.requests(msgs, max), buckets{}.requests(direct, max)
	if len(got) != len(want) || direct.samples != msgs.samples || (direct.clash == nil) != (msgs.clash == nil) {
		t.Fatalf("the direct batch has %d requests, %d samples, clash %v; the messages %d, %d, %v", len(got), direct.samples, direct.clash, len(want), msgs.samples, msgs.clash)
	}
	for i := range want {
		w, ok := appendWriteRequest(nil, want[i].msg.(*prompb.WriteRequest))
		if !ok {
			t.Fatalf("request %d: the messages' request cannot be encoded by hand", i)
		}
		if !bytes.Equal(got[i].raw, w) || got[i].samples != want[i].samples {
			t.Fatalf("request %d (%d samples, want %d):\n%x\nthe messages encode to:\n%x", i, got[i].samples, want[i].samples, got[i].raw, w)
		}
	}
}

// A batch written as wire bytes as it is built sends exactly the bytes of
// the same batch built as messages and encoded: labels sorted, values
// shown as UTF-8, le canonical, --label merged, the data-quality series,
// split by --max-samples between series.
func TestADirectBatchSendsTheBytesOfTheSameBatchAsMessages(t *testing.T) {
	for _, value := range []string{"/index.html", "caf\xe9", `a\b"c`, "", "é"} {
		for _, max := range []int{1, 7, 5000} {
			checkDirect(t, directGroup(value, 2.5, 30), max)
			checkDirect(t, directGroup(value, 0, 3), max, "host=web1", "zz=last")
		}
	}
	checkDirect(t, directGroup("x", math.Copysign(0, -1), 2), 5000, "path=clash") // a --label the series have: both record the clash
	checkDirect(t, Group{Seal: tape.Record{Kind: tape.Seal, Start: 1e18, Width: 1e9}}, 5000)
}

func FuzzADirectBatchSendsTheBytesOfTheSameBatchAsMessages(f *testing.F) {
	f.Add("/index.html", 3.5, 4, 2)
	f.Add("caf\xe9\\", math.Inf(-1), 1, 1)
	f.Fuzz(func(t *testing.T, value string, v float64, n, max int) {
		n, max = n%64, max%5000
		if n < 0 || max <= 0 {
			return
		}
		checkDirect(t, directGroup(value, v, n), max)
	})
}
