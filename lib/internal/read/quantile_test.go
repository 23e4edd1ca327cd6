package read

import (
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var inf = math.Inf(1)

// The cases of Prometheus's bucketQuantile (promql/quantile.go), each
// worked out by hand.
func TestBucketQuantileHasHistogramQuantilesEdgeCases(t *testing.T) {
	for _, c := range []struct {
		name string
		q    float64
		les  []le
		want float64
	}{
		{"below 0", -0.1, []le{{1, 1}, {inf, 1}}, math.Inf(-1)},
		{"above 1", 1.1, []le{{1, 1}, {inf, 1}}, inf},
		{"NaN quantile", math.NaN(), []le{{1, 1}, {inf, 1}}, math.NaN()},
		{"no +Inf bucket", 0.5, []le{{1, 1}, {2, 2}}, math.NaN()},
		{"no bucket", 0.5, nil, math.NaN()},
		{"only +Inf", 0.5, []le{{inf, 4}}, math.NaN()},
		{"no observation", 0.5, []le{{1, 0}, {inf, 0}}, math.NaN()},
		{"in +Inf: the highest finite bound", 0.9, []le{{1, 5}, {inf, 10}}, 1},
		{"lowest bucket from 0", 0.5, []le{{1, 10}, {inf, 10}}, 0.5},
		{"lowest bucket at 0 is its bound", 0.2, []le{{0, 4}, {1, 10}, {inf, 10}}, 0},
		{"lowest bucket below 0 is its bound", 0.2, []le{{-1, 4}, {1, 10}, {inf, 10}}, -1},
		{"linear within a bucket", 0.5, []le{{0.1, 2}, {0.5, 6}, {inf, 8}}, lin(0.1, 0.5, 2, 4)},
		{"the rank on a bucket's count is that bucket's bound", 0.25, []le{{0.1, 2}, {0.5, 6}, {inf, 8}}, 0.1},
		{"unsorted buckets are sorted", 0.5, []le{{inf, 8}, {0.5, 6}, {0.1, 2}}, lin(0.1, 0.5, 2, 4)},
		{"one bound twice adds up", 0.5, []le{{1, 2}, {1, 3}, {inf, 5}}, 0.5},
		{"a falling count is raised", 0.5, []le{{0.1, 5}, {0.5, 3}, {inf, 8}}, lin(0, 0.1, 4, 5)},
		{"q 0 in an empty lowest bucket is 0/0", 0, []le{{1, 0}, {2, 4}, {inf, 4}}, math.NaN()},
		{"q 1 is the bucket holding the last", 1, []le{{1, 2}, {2, 4}, {inf, 4}}, 2},
	} {
		got := bucketQuantile(c.q, c.les)
		if got != c.want && !(math.IsNaN(got) && math.IsNaN(c.want)) {
			t.Errorf("%s: bucketQuantile(%v, %v) = %v, want %v", c.name, c.q, c.les, got, c.want)
		}
	}
}

// lin is the linear interpolation at rank within a bucket from lo to hi
// holding count, in float64 as Prometheus computes it.
func lin(lo, hi, rank, count float64) float64 { return lo + (hi-lo)*(rank/count) }

// histogramStore makes a tally store whose document has a histogram.
func histogramStore(t *testing.T, dir, tape string) string {
	write(t, dir, "document", "format apache-combined\nwindow 10s\nmetric requests count by=status\nmetric latency histogram=bytes buckets=1 by=status\n")
	write(t, dir, "tape", tape)
	return dir
}

// A fleet's quantile is estimated from the fleet's buckets: a, all at or
// under 1, and b, all above, make a median of 1 (rank 10 of 20 at the top
// of le=1), not the mean of a's 0.5 and b's 1.
func TestQuantilesMergeTheBucketsOfEveryTapeFirst(t *testing.T) {
	dir := t.TempDir()
	a := histogramStore(t, filepath.Join(dir, "a"), `2026-10-10T13:55:30Z latency_bucket{status="200",le="1"} 10
2026-10-10T13:55:30Z latency_bucket{status="200",le="+Inf"} 10
2026-10-10T13:55:30Z latency_sum{status="200"} 5
2026-10-10T13:55:30Z latency_count{status="200"} 10
2026-10-10T13:55:40Z latency_bucket{status="200",le="1"} 1
2026-10-10T13:55:40Z latency_bucket{status="200",le="+Inf"} 4
2026-10-10T13:55:40Z latency_sum{status="200"} 9
2026-10-10T13:55:40Z latency_count{status="200"} 4
2026-10-10T13:55:40Z requests{status="200"} 4
`)
	b := histogramStore(t, filepath.Join(dir, "b"), `2026-10-10T13:55:30Z latency_bucket{status="200",le="1"} 0
2026-10-10T13:55:30Z latency_bucket{status="200",le="+Inf"} 10
2026-10-10T13:55:30Z latency_sum{status="200"} 50
2026-10-10T13:55:30Z latency_count{status="200"} 10
`)
	tgread(t, "", "-f", "tsv", "--quantile", "0.5", a).want(t, 0, "time\tmetric\tlabels\tvalue\n"+
		"2026-10-10T13:55:30Z\tlatency\tquantile=0.5,status=200\t0.5\n"+
		"2026-10-10T13:55:40Z\tlatency\tquantile=0.5,status=200\t1\n")
	tgread(t, "", "-f", "tsv", "--quantile", "0.5,0.25", a, b).want(t, 0, "time\tmetric\tlabels\tvalue\n"+
		"2026-10-10T13:55:30Z\tlatency\tquantile=0.25,status=200\t0.5\n"+
		"2026-10-10T13:55:30Z\tlatency\tquantile=0.5,status=200\t1\n"+
		"2026-10-10T13:55:40Z\tlatency\tquantile=0.25,status=200\t1\n"+
		"2026-10-10T13:55:40Z\tlatency\tquantile=0.5,status=200\t1\n")
	// A minute of both: le=1 holds 11 of 24, so the median (rank 12) is in
	// +Inf, the highest finite bound.
	tgread(t, "", "-f", "json", "--quantile", "0.5", "--step", "1m", a, b).want(t, 0,
		`{"time":"2026-10-10T13:55:00Z","metric":"latency","labels":{"quantile":"0.5","status":"200"},"value":1}`+"\n")
	tgread(t, "", "-f", "tape", "--quantile", "0.25", "--step", "1m", a, b).want(t, 0,
		`2026-10-10T13:55:00Z latency{status="200",quantile="0.25"} 0.5454545454545454`+"\n")
}

// --metric names a histogram by its name; its series on the tape are its
// _bucket, _sum and _count, and a bare tape's histogram is named by
// --kind.
func TestAHistogramIsSelectedByItsNameAndABareTapesByKind(t *testing.T) {
	dir := t.TempDir()
	tp := `2026-10-10T13:55:30Z latency_bucket{status="200",le="1"} 3
2026-10-10T13:55:30Z latency_bucket{status="200",le="+Inf"} 4
2026-10-10T13:55:30Z latency_sum{status="200"} 5
2026-10-10T13:55:30Z latency_count{status="200"} 4
2026-10-10T13:55:30Z requests{status="200"} 4
`
	a := histogramStore(t, filepath.Join(dir, "a"), tp)
	r := tgread(t, "", "-f", "tsv", "--metric", "latency", a)
	if r.code != 0 || strings.Contains(r.stdout, "requests") || strings.Count(r.stdout, "latency_") != 4 {
		t.Errorf("--metric latency: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	tgread(t, tp, "-f", "tape", "--kind", "latency=histogram", "--metric", "latency", "--step", "1m", "--quantile", "0.5").want(t, 0,
		`2026-10-10T13:55:00Z latency{status="200",quantile="0.5"} 0.6666666666666666`+"\n")
	// A bare tape without --kind: any NAME_bucket with an le is a
	// histogram's bucket, as histogram_quantile takes it.
	tgread(t, tp, "-f", "tape", "--quantile", "0.5").want(t, 0, `2026-10-10T13:55:30Z latency{status="200",quantile="0.5"} 0.6666666666666666`+"\n")
	r = tgread(t, `2026-10-10T13:55:30Z x_bucket{quantile="a",le="+Inf"} 1`+"\n", "--quantile", "0.5")
	if r.code != 1 || r.stderr != "tgread: histogram x has a label named quantile, so --quantile cannot add one; read its _bucket series without --quantile\n" {
		t.Errorf("a histogram with a quantile label: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = tgread(t, "", "--quantile", "0.5", "--metric", "requests", a)
	if r.code != 0 || r.stdout != "time\tmetric\tlabels\tvalue\n" || !strings.Contains(r.stderr, "--quantile found no histogram") {
		t.Errorf("--quantile of a count: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// OpenMetrics has a histogram family a histogram, each of its points whole
// and in time order: its buckets by le (in Prometheus's canonical form),
// then _count, then _sum. A bare tape without seals says no width, so its
// points are stamped at their bucket's start.
func TestOpenMetricsWritesAHistogramFamilyPointByPoint(t *testing.T) {
	tp := `2026-10-10T13:55:30Z latency_bucket{status="200",le="10"} 4
2026-10-10T13:55:30Z latency_bucket{status="200",le="2.5"} 3
2026-10-10T13:55:30Z latency_bucket{status="200",le="+Inf"} 4
2026-10-10T13:55:30Z latency_sum{status="200"} 5
2026-10-10T13:55:30Z latency_count{status="200"} 4
2026-10-10T13:55:30Z latency_a 1
2026-10-10T13:55:40Z latency_bucket{status="200",le="10"} 1
2026-10-10T13:55:40Z latency_bucket{status="200",le="2.5"} 1
2026-10-10T13:55:40Z latency_bucket{status="200",le="+Inf"} 2
2026-10-10T13:55:40Z latency_sum{status="200"} 20
2026-10-10T13:55:40Z latency_count{status="200"} 2
`
	tgread(t, tp, "-f", "openmetrics", "--kind", "latency=histogram", "--kind", "latency_a=count").want(t, 0, `# TYPE latency histogram
latency_bucket{le="2.5",status="200"} 3 1791640530
latency_bucket{le="10.0",status="200"} 4 1791640530
latency_bucket{le="+Inf",status="200"} 4 1791640530
latency_count{status="200"} 4 1791640530
latency_sum{status="200"} 5 1791640530
latency_bucket{le="2.5",status="200"} 1 1791640540
latency_bucket{le="10.0",status="200"} 1 1791640540
latency_bucket{le="+Inf",status="200"} 2 1791640540
latency_count{status="200"} 2 1791640540
latency_sum{status="200"} 20 1791640540
# TYPE latency_a gauge
latency_a 1 1791640530
# EOF
`)
}

// --plot --quantile draws a line a quantile; with more buckets than
// columns it rolls them up by a step first, since quantiles do not add.
func TestAPlotOfQuantilesRollsUpTheBucketsNotTheEstimates(t *testing.T) {
	var b strings.Builder
	for m := 55; m < 60; m++ {
		for sec := 0; sec < 60; sec += 10 {
			start := fmt.Sprintf("2026-10-10T13:%02d:%02dZ", m, sec)
			b.WriteString(start + ` latency_bucket{le="1"} 1` + "\n" + start + ` latency_bucket{le="+Inf"} 2` + "\n")
		}
	}
	r := tgread(t, b.String(), "--plot", "--width", "40", "--kind", "latency=histogram", "--quantile", "0.5,0.99")
	if r.code != 0 || !strings.Contains(r.stdout, "latency{quantile=0.5}  min 1  max 1  a bar per 20s") || !strings.Contains(r.stdout, "latency{quantile=0.99}") {
		t.Errorf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = tgread(t, b.String(), "-f", "svg", "--kind", "latency=histogram", "--quantile", "0.5,0.99")
	if r.code != 0 || xml.Unmarshal([]byte(r.stdout), new(any)) != nil || !strings.Contains(r.stdout, "latency{quantile=0.99}") || !strings.Contains(r.stdout, "latency{quantile=0.5}") {
		t.Errorf("svg: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// FuzzParseQuantiles: any --quantile list is refused, or gives quantiles
// from 0 to 1, each once, each read back from its text.
func FuzzParseQuantiles(f *testing.F) {
	for _, s := range []string{"0.5,0.99", "0", "1", "1.5", "-0", "NaN", "0x1p-2", "0.5,0.5", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		qs, err := parseQuantiles(strings.Split(s, ","))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "tgread: --quantile ") {
				t.Fatalf("error %q does not say which --quantile", err)
			}
			return
		}
		for i, q := range qs {
			if !(q >= 0 && q <= 1) || slices.Contains(qs[:i], q) {
				t.Fatalf("parseQuantiles(%q) = %v", s, qs)
			}
		}
	})
}

// On a streamed stdin each sealed bucket's quantiles are printed as its
// seal arrives (tail -f tape | tgread --quantile 0.99 -): a sealed group is
// its bucket whole.
func TestAStreamedTapePrintsEachBucketsQuantilesAsItsSealArrives(t *testing.T) {
	pr, pw := io.Pipe()
	var out syncBuffer
	done := make(chan int)
	go func() {
		done <- run([]string{"tgread", "-f", "tape", "--quantile", "0.5"}, pr, &out, io.Discard, false, now)
	}()
	io.WriteString(pw, `2026-10-10T13:55:30Z latency_bucket{le="1"} 3
2026-10-10T13:55:30Z latency_bucket{le="+Inf"} 4
seal 2026-10-10T13:55:30Z width=10s entries=4
2026-10-10T13:55:40Z latency_bucket{le="1"} 1
`)
	waitFor(t, &out, `2026-10-10T13:55:30Z latency{quantile="0.5"} 0.6666666666666666`+"\n")
	io.WriteString(pw, "2026-10-10T13:55:40Z latency_bucket{le=\"+Inf\"} 4\nseal 2026-10-10T13:55:40Z width=10s entries=4\n")
	waitFor(t, &out, `2026-10-10T13:55:40Z latency{quantile="0.5"} 1`+"\n")
	pw.Close()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d", code)
	}
}
