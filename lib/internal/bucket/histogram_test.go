package bucket

import (
	"strings"
	"testing"

	"github.com/timbertally/timbertally/lib/internal/doc"
)

// latencyDoc buckets lines "UNIXSECONDS STATUS MICROSECONDS" into 10 s
// windows with a histogram in seconds.
const latencyDoc = `format regex ^(?P<t>\S+) (?P<status>\S+) (?P<us>\S+)$
time t layout=unix
window 10s
cap %s
metric requests count by=status
metric latency histogram=us buckets=0.005,0.025,0.1 scale=0.000001 by=status
`

func TestAHistogramCountsEachValueUnderItsBoundCumulativelyWithSumAndCount(t *testing.T) {
	r := rollerFor(t, strings.Replace(latencyDoc, "%s", "10", 1), nil)
	st := r.AddStore("a", 0)
	feedLines(r, st, 0,
		"101 200 0",      // below the first bound
		"101 200 5000",   // on le=0.005
		"101 200 5001",   // just above it
		"101 200 25000",  // on le=0.025 (25000 × 0.000001 would be 0.024999999999999998)
		"101 200 100000", // on the last bound
		"101 200 100001", // above the last: +Inf only
		"101 200 -",      // not observed: in requests, not in latency
		"101 500 x",      // not a number: a 500 with no latency series at all
		"101 404 7",
	)
	r.End(st)
	r.Complete()
	want := `1970-01-01T00:01:40Z requests{status="200"} 7
1970-01-01T00:01:40Z requests{status="404"} 1
1970-01-01T00:01:40Z requests{status="500"} 1
1970-01-01T00:01:40Z latency_bucket{status="200",le="0.005"} 2
1970-01-01T00:01:40Z latency_bucket{status="200",le="0.025"} 4
1970-01-01T00:01:40Z latency_bucket{status="200",le="0.1"} 5
1970-01-01T00:01:40Z latency_bucket{status="200",le="+Inf"} 6
1970-01-01T00:01:40Z latency_sum{status="200"} 0.23500200000000002
1970-01-01T00:01:40Z latency_count{status="200"} 6
1970-01-01T00:01:40Z latency_bucket{status="404",le="0.005"} 1
1970-01-01T00:01:40Z latency_bucket{status="404",le="0.025"} 1
1970-01-01T00:01:40Z latency_bucket{status="404",le="0.1"} 1
1970-01-01T00:01:40Z latency_bucket{status="404",le="+Inf"} 1
1970-01-01T00:01:40Z latency_sum{status="404"} 0.000007
1970-01-01T00:01:40Z latency_count{status="404"} 1
seal 1970-01-01T00:01:40Z width=10s entries=9 at=a:`
	if got := string(r.Take()); !strings.HasPrefix(got, want) {
		t.Errorf("tape:\n%s\nwant it to start:\n%s", got, want)
	}
}

func TestAHistogramWithoutLabelsHasOnlyItsBoundLabel(t *testing.T) {
	r := rollerFor(t, `format regex ^(?P<t>\S+) (?P<v>\S+)$
time t layout=unix
window 10s
metric v histogram=v buckets=1
`, nil)
	st := r.AddStore("a", 0)
	feedLines(r, st, 0, "101 1", "101 2.5")
	r.End(st)
	r.Complete()
	want := "1970-01-01T00:01:40Z v_bucket{le=\"1\"} 1\n1970-01-01T00:01:40Z v_bucket{le=\"+Inf\"} 2\n1970-01-01T00:01:40Z v_sum 3.5\n1970-01-01T00:01:40Z v_count 2\nseal"
	if got := string(r.Take()); !strings.HasPrefix(got, want) {
		t.Errorf("tape:\n%s\nwant it to start:\n%s", got, want)
	}
}

// One histogram is one series for the cap: over it, all of a label set's
// lines are left off together and its entries are in one !cap marker of
// the histogram's name, never half a histogram.
func TestAHistogramIsOneSeriesForTheCap(t *testing.T) {
	r := rollerFor(t, strings.Replace(latencyDoc, "%s", "1", 1), nil)
	st := r.AddStore("a", 0)
	feedLines(r, st, 0, "101 200 1", "101 500 1", "101 500 9", "101 200 2")
	r.End(st)
	r.Complete()
	out := string(r.Take())
	for _, want := range []string{
		"!cap 1970-01-01T00:01:40Z metric=latency id=a offset=10 end=30 count=2\n",
		"!cap 1970-01-01T00:01:40Z metric=requests id=a offset=10 end=30 count=2\n",
		`latency_count{status="200"} 2` + "\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, `status="500"`) {
		t.Errorf("a capped label set has series on the tape:\n%s", out)
	}
	if n := strings.Count(out, "latency_bucket"); n != 4 {
		t.Errorf("%d latency_bucket lines, want the 4 of status 200:\n%s", n, out)
	}
}

// TestRollerEntryAllocatesNothingPerEntryForAHistogram: once a bucket's
// series exist, observing a value allocates nothing.
func TestRollerEntryAllocatesNothingPerEntryForAHistogram(t *testing.T) {
	d, err := doc.Parse("h", []byte("format apache-combined\nwindow 10s\nmetric size histogram=bytes by=status scale=0.001\n"))
	if err != nil {
		t.Fatal(err)
	}
	noAllocsPerEntry(t, d, `203.0.113.195 - - [10/Oct/2026:13:55:36 +0000] "GET /a HTTP/1.1" 200 4821 "-" "curl/8.10.1"`)
}
