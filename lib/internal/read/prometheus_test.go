package read

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/timbertally/timbertally/lib/internal/bucket"
	"github.com/timbertally/timbertally/lib/internal/doc"
)

// server returns the path of an installed server binary, skipping the test
// when it is absent, but failing it under CI=true, where .ci/run installs
// it.
func server(t *testing.T, name, pkg string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err == nil {
		return path
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is not installed (Debian package %s), and CI=true: the check against Prometheus cannot be skipped", name, pkg)
	}
	t.Skipf("%s is not installed (apt-get install %s): the check against Prometheus is skipped", name, pkg)
	return ""
}

// promLatencyDoc is two stores' document: a histogram of microseconds in
// seconds, Prometheus's default bounds.
const promLatencyDoc = `format regex ^(?P<t>\d+) (?P<status>\d+) (?P<us>\S+)$
time t layout=unix
window 10s
metric latency histogram=us scale=0.000001
`

// histogramTapeStore writes a tally store whose tape the bucket package
// made from n generated entries (log-normal durations, a long tail).
func histogramTapeStore(t *testing.T, dir string, seed uint64, n int) string {
	t.Helper()
	d, err := doc.Parse("lat", []byte(promLatencyDoc))
	if err != nil {
		t.Fatal(err)
	}
	r, err := bucket.New(d, nil)
	if err != nil {
		t.Fatal(err)
	}
	st := r.AddStore("web", 0)
	rng := rand.New(rand.NewPCG(seed, 18))
	var pos int64
	for i := range n {
		us := int64(60000 * math.Exp(rng.NormFloat64()*1.3))
		line := fmt.Sprintf("%d %s %d", 1791640200+i*60/n, []string{"200", "200", "500"}[rng.IntN(3)], us)
		r.Entry(st, pos, []byte(line))
		pos += int64(len(line)) + 1
	}
	r.End(st)
	r.Complete()
	write(t, dir, "document", promLatencyDoc)
	write(t, dir, "tape", string(r.Take()))
	return dir
}

// TestPrometheusHistogramQuantileOfTheBackfilledBucketsEqualsTgreadQuantile
// backfills two stores' histograms, kept apart by a tape label, into a
// real Prometheus with promtool, and asks it the fleet's p99 per bucket:
// histogram_quantile(0.99, sum by (le) (latency_bucket)) at each bucket's
// end equals tgread --quantile 0.99 of the two stores merged.
func TestPrometheusHistogramQuantileOfTheBackfilledBucketsEqualsTgreadQuantile(t *testing.T) {
	promtool := server(t, "promtool", "prometheus")
	prometheus := server(t, "prometheus", "prometheus")
	dir := t.TempDir()
	a := histogramTapeStore(t, filepath.Join(dir, "a"), 1, 3000)
	b := histogramTapeStore(t, filepath.Join(dir, "b"), 2, 2000)

	om := tgread(t, "", "-f", "openmetrics", "--by-tape", a, b)
	if om.code != 0 || !strings.HasPrefix(om.stdout, "# TYPE latency histogram\n") {
		t.Fatalf("tgread: exit %d: %s%.300s", om.code, om.stderr, om.stdout)
	}
	omPath, db := filepath.Join(dir, "fleet.om"), filepath.Join(dir, "db")
	write(t, dir, "fleet.om", om.stdout)
	if out, err := exec.Command(promtool, "tsdb", "create-blocks-from", "openmetrics", omPath, db).CombinedOutput(); err != nil {
		t.Fatalf("promtool refused the output: %v\n%s", err, out)
	}
	base := startPrometheus(t, prometheus, dir, db)

	q := tgread(t, "", "-f", "tsv", "--quantile", "0.99", a, b)
	if q.code != 0 {
		t.Fatalf("tgread --quantile: exit %d: %s", q.code, q.stderr)
	}
	rows := strings.Split(strings.TrimSpace(q.stdout), "\n")[1:]
	if len(rows) != 6 {
		t.Fatalf("tgread --quantile printed %d rows, want the 6 buckets of the minute generated:\n%s", len(rows), q.stdout)
	}
	for _, row := range rows {
		cols := strings.Split(row, "\t") // time, metric, labels, value
		ts, err := time.Parse(time.RFC3339, cols[0])
		if err != nil || cols[1] != "latency" || cols[2] != "quantile=0.99" {
			t.Fatalf("row %q is not a p99 of latency", row)
		}
		want, err := strconv.ParseFloat(cols[3], 64)
		if err != nil {
			t.Fatal(err)
		}
		// At the bucket's end, where a plain selector reads the bucket that
		// just ended (its samples are at its last millisecond).
		got := promQuery(t, base, "histogram_quantile(0.99, sum by (le) (latency_bucket))", ts.Add(10*time.Second))
		t.Logf("%s prometheus %v tgread %v", cols[0], got, want)
		if got != want {
			t.Errorf("at %s Prometheus says p99 %v, tgread --quantile 0.99 says %v", cols[0], got, want)
		}
	}
}

// startPrometheus starts prometheus on the TSDB in db, on 127.0.0.1 and a
// free port, and returns its base URL once it is ready; it is stopped when
// the test ends.
func startPrometheus(t *testing.T, prometheus, dir, db string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cfg := write(t, dir, "prometheus.yml", "global:\n  scrape_interval: 1h\n")
	cmd := exec.Command(prometheus, "--config.file="+cfg, "--storage.tsdb.path="+db, "--storage.tsdb.retention.time=100y",
		"--web.listen-address="+addr, "--log.level=warn")
	var logs strings.Builder
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-done
	})
	base := "http://" + addr
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(base + "/-/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return base
			}
		}
		select {
		case err := <-done:
			t.Fatalf("prometheus exited: %v\n%s", err, logs.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("prometheus at %s not ready after 30 s:\n%s", addr, logs.String())
		}
	}
}

// promQuery returns the one value of an instant query at ts.
func promQuery(t *testing.T, base, query string, ts time.Time) float64 {
	t.Helper()
	resp, err := http.Get(base + "/api/v1/query?" + url.Values{"query": {query}, "time": {strconv.FormatInt(ts.Unix(), 10)}}.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Status string
		Data   struct {
			Result []struct {
				Value [2]any
			}
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || body.Status != "success" || len(body.Data.Result) != 1 {
		t.Fatalf("query %s at %s: %v, %+v", query, ts, err, body)
	}
	v, err := strconv.ParseFloat(body.Data.Result[0].Value[1].(string), 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
