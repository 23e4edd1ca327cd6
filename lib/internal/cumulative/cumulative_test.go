package cumulative

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/timbertally/timbertally/lib/internal/doc"
	"github.com/timbertally/timbertally/lib/internal/tape"
)

var kinds = map[string]doc.MetricKind{"requests": doc.Count, "bytes": doc.Sum, "slowest": doc.Max, "latency": doc.Histogram}

// totalsOf feeds a tape's text to new totals.
func totalsOf(t *testing.T, text string) (*Totals, error) {
	t.Helper()
	tt := New(kinds)
	for line := range strings.Lines(text) {
		rec, err := tape.Parse([]byte(strings.TrimSuffix(line, "\n")))
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if err := tt.Add(&rec); err != nil {
			return tt, err
		}
	}
	return tt, nil
}

// shown lists what Each shows, one "name{labels} value created last" a
// series, sorted.
func shown(tt *Totals) []string {
	var out []string
	tt.Each(func(s *Series) {
		out = append(out, fmt.Sprintf("%s %v %s %s", tape.AppendSeries(nil, s.Name(), s.Labels), s.Value,
			tape.AppendTime(nil, s.Created), tape.AppendTime(nil, s.Last)))
	})
	slices.Sort(out)
	return out
}

const threeBuckets = `2026-10-10T13:55:00Z requests{status="200"} 4
2026-10-10T13:55:00Z bytes{status="200"} 400
2026-10-10T13:55:00Z slowest 9
2026-10-10T13:55:00Z latency_bucket{le="0.1"} 3
2026-10-10T13:55:00Z latency_bucket{le="+Inf"} 4
2026-10-10T13:55:00Z latency_sum 0.5
2026-10-10T13:55:00Z latency_count 4
!cap 2026-10-10T13:55:00Z metric=requests id=w offset=0 end=10 count=2
seal 2026-10-10T13:55:00Z width=10s entries=6 at=w:100
!drop id=w offset=100 end=120 count=1 reason=no-time
!late 2026-10-10T13:55:00Z id=w offset=120 end=140 count=3
2026-10-10T13:55:10Z requests{status="200"} 1
2026-10-10T13:55:10Z requests{status="500"} 2
2026-10-10T13:55:10Z requests{status="500"} 5
2026-10-10T13:55:10Z slowest 7
seal 2026-10-10T13:55:10Z width=10s entries=6 at=w:200
2026-10-10T13:55:20Z requests{status="200"} 10
2026-10-10T13:55:20Z latency_bucket{le="0.1"} 1
2026-10-10T13:55:20Z latency_bucket{le="+Inf"} 2
2026-10-10T13:55:20Z latency_sum 1.25
2026-10-10T13:55:20Z latency_count 2
seal 2026-10-10T13:55:20Z width=10s entries=10 at=w:300
!drop id=w offset=300 end=310 count=4 reason=no-time
end at=w:310
`

func TestCountsSumsAndHistogramsRunOnOverTheSealedBucketsAndGaugesAreTheNewestBuckets(t *testing.T) {
	tt, err := totalsOf(t, threeBuckets)
	if err != nil {
		t.Fatal(err)
	}
	// Worked by hand from threeBuckets: a repeated line in a group counts
	// its last value (5, not 2+5); the slowest of the newest bucket has
	// no value (it held no entry), so the gauge is not shown; the !drop
	// before the end record folds at it.
	want := []string{
		`bytes_total{status="200"} 400 2026-10-10T13:55:00Z 2026-10-10T13:55:00Z`,
		`latency_bucket{le="+Inf"} 6 2026-10-10T13:55:00Z 2026-10-10T13:55:20Z`,
		`latency_bucket{le="0.1"} 4 2026-10-10T13:55:00Z 2026-10-10T13:55:20Z`,
		`latency_count 6 2026-10-10T13:55:00Z 2026-10-10T13:55:20Z`,
		`latency_sum 1.75 2026-10-10T13:55:00Z 2026-10-10T13:55:20Z`,
		`requests_total{status="200"} 15 2026-10-10T13:55:00Z 2026-10-10T13:55:20Z`,
		`requests_total{status="500"} 5 2026-10-10T13:55:10Z 2026-10-10T13:55:10Z`,
		`timbertally_capped_entries_total{metric="requests"} 2 2026-10-10T13:55:00Z 2026-10-10T13:55:00Z`,
		`timbertally_dropped_entries_total{reason="no-time"} 5 2026-10-10T13:55:10Z 2026-10-10T13:55:20Z`,
		`timbertally_entries_total 22 2026-10-10T13:55:00Z 2026-10-10T13:55:20Z`,
		`timbertally_late_entries_total 3 2026-10-10T13:55:00Z 2026-10-10T13:55:20Z`,
	}
	if got := shown(tt); !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestAGaugeShowsTheNewestBucketsValueNotASum(t *testing.T) {
	tt, err := totalsOf(t, strings.Join(strings.SplitAfter(threeBuckets, "\n")[:16], ""))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	tt.Each(func(s *Series) {
		if s.Shape == Gauge {
			got = append(got, fmt.Sprint(s.Name(), " ", s.Value))
		}
	})
	if !slices.Equal(got, []string{"slowest 7"}) {
		t.Errorf("gauges %q, want [slowest 7]", got)
	}
}

func TestSeriesAfterTheLastSealChangeNothingUntilTheirSeal(t *testing.T) {
	tt, err := totalsOf(t, strings.Join(strings.SplitAfter(threeBuckets, "\n")[:21], ""))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range shown(tt) {
		if strings.HasPrefix(s, `requests_total{status="200"}`) && !strings.HasPrefix(s, `requests_total{status="200"} 5 `) {
			t.Errorf("before the third seal: %s, want 5 (4 + 1)", s)
		}
	}
}

func TestABucketSealedAgainIsRefusedAsTheOldDefectsFragment(t *testing.T) {
	_, err := totalsOf(t, `2026-10-10T13:55:10Z requests 1
seal 2026-10-10T13:55:10Z width=10s entries=1 at=w:10
2026-10-10T13:55:10Z requests 2
seal 2026-10-10T13:55:10Z width=10s entries=2 at=w:20
`)
	var fe *FragmentError
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "tgcheck --scan") {
		t.Errorf("got %v, want a FragmentError naming tgcheck --scan", err)
	}
}

func TestACounterTheDocumentNamedWithTotalIsNotTotalTwice(t *testing.T) {
	tt := New(map[string]doc.MetricKind{"hits_total": doc.Count})
	for _, line := range []string{"2026-10-10T13:55:10Z hits_total 3", "seal 2026-10-10T13:55:10Z width=10s entries=3 at=w:10"} {
		rec, _ := tape.Parse([]byte(line))
		tt.Add(&rec)
	}
	var names []string
	tt.Each(func(s *Series) { names = append(names, s.Name()) })
	if !slices.Contains(names, "hits_total") || slices.Contains(names, "hits_total_total") {
		t.Errorf("names %q", names)
	}
}

// samplesAfter feeds the tape's lines and collects the samples after each
// seal or end, as "name{labels} ms value".
func samplesAfter(t *testing.T, text string) []string {
	t.Helper()
	tt := New(kinds)
	var out []string
	for line := range strings.Lines(text) {
		rec, err := tape.Parse([]byte(strings.TrimSuffix(line, "\n")))
		if err != nil {
			t.Fatal(err)
		}
		if err := tt.Add(&rec); err != nil {
			t.Fatal(err)
		}
		if rec.Kind == tape.Seal || rec.Kind == tape.End {
			var ss []string
			for _, s := range tt.Samples(nil) {
				ss = append(ss, fmt.Sprintf("%s %d %v", tape.AppendSeries(nil, s.Series.Name(), s.Series.Labels), s.Ms, s.Value))
			}
			slices.Sort(ss)
			out = append(out, ss...)
		}
	}
	return out
}

func TestEachSealSendsTheRunningTotalsOfWhatItChangedAtItsLastMillisecondAfterAZeroForANewSeries(t *testing.T) {
	got := samplesAfter(t, threeBuckets)
	// 13:55:00Z is 1791640500 s: its bucket's last millisecond is
	// 1791640509999, the one before it ends at 1791640499999. Worked by
	// hand from threeBuckets.
	want := []string{
		// the first seal: every series new, a zero before each counter
		`bytes_total{status="200"} 1791640499999 0`,
		`bytes_total{status="200"} 1791640509999 400`,
		`latency_bucket{le="+Inf"} 1791640499999 0`,
		`latency_bucket{le="+Inf"} 1791640509999 4`,
		`latency_bucket{le="0.1"} 1791640499999 0`,
		`latency_bucket{le="0.1"} 1791640509999 3`,
		`latency_count 1791640499999 0`,
		`latency_count 1791640509999 4`,
		`latency_sum 1791640499999 0`,
		`latency_sum 1791640509999 0.5`,
		`requests_total{status="200"} 1791640499999 0`,
		`requests_total{status="200"} 1791640509999 4`,
		`slowest 1791640509999 9`,
		`timbertally_capped_entries_total{metric="requests"} 1791640499999 0`,
		`timbertally_capped_entries_total{metric="requests"} 1791640509999 2`,
		`timbertally_entries_total 1791640499999 0`,
		`timbertally_entries_total 1791640509999 6`,
		`timbertally_late_entries_total 1791640499999 0`,
		`timbertally_late_entries_total 1791640509999 0`,
		// the second: 500 and the drop are new; the repeated 500 line counts its last value
		`requests_total{status="200"} 1791640519999 5`,
		`requests_total{status="500"} 1791640509999 0`,
		`requests_total{status="500"} 1791640519999 5`,
		`slowest 1791640519999 7`,
		`timbertally_dropped_entries_total{reason="no-time"} 1791640509999 0`,
		`timbertally_dropped_entries_total{reason="no-time"} 1791640519999 1`,
		`timbertally_entries_total 1791640519999 12`,
		`timbertally_late_entries_total 1791640519999 3`,
		// the third
		`latency_bucket{le="+Inf"} 1791640529999 6`,
		`latency_bucket{le="0.1"} 1791640529999 4`,
		`latency_count 1791640529999 6`,
		`latency_sum 1791640529999 1.75`,
		`requests_total{status="200"} 1791640529999 15`,
		`timbertally_entries_total 1791640529999 22`,
		`timbertally_late_entries_total 1791640529999 3`,
		// the end: its !drop a millisecond after the newest bucket's samples
		`timbertally_dropped_entries_total{reason="no-time"} 1791640530000 5`,
		`timbertally_late_entries_total 1791640530000 3`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
