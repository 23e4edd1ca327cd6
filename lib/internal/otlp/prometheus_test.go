package otlp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/timbertally/timbertally/lib/internal/tape"

	colpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
)

// prometheus3 starts the Prometheus 3 that .ci/servers.sh builds (its
// OTLP receiver on, delta sums ingested as they are, the resource
// attribute host made a label), on a free port of 127.0.0.1 with its data
// in a temp dir, and returns its base URL. Absent, the test is skipped
// naming the script, except under CI=true.
func prometheus3(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("TIMBERTALLY_SERVERS")
	if dir == "" {
		cache, _ := os.UserCacheDir()
		dir = filepath.Join(cache, "timbertally", "servers")
	}
	bin := filepath.Join(dir, "prometheus3")
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not built; .ci/run runs .ci/servers.sh first", bin)
		}
		t.Skipf("prometheus3 is not built; run .ci/servers.sh (about 7 minutes, once) to run this test")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	data := t.TempDir()
	cfg := filepath.Join(data, "prometheus.yml")
	if err := os.WriteFile(cfg, []byte("global: {}\notlp:\n  promote_resource_attributes: [host]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	log, _ := os.Create(filepath.Join(data, "server.log"))
	cmd := exec.Command(bin, "--config.file="+cfg, "--storage.tsdb.path="+filepath.Join(data, "tsdb"), "--web.listen-address="+addr,
		"--web.enable-otlp-receiver", "--enable-feature=otlp-native-delta-ingestion")
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait(); log.Close() })
	base := "http://" + addr
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if resp, err := http.Get(base + "/-/ready"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return base
			}
		}
		if time.Now().After(deadline) {
			out, _ := os.ReadFile(filepath.Join(data, "server.log"))
			t.Fatalf("prometheus3 never became ready:\n%s", out)
		}
	}
}

func post(t *testing.T, base string, req *colpb.ExportMetricsServiceRequest) {
	t.Helper()
	body, err := proto.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(base+"/api/v1/otlp/v1/metrics", "application/x-protobuf", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		var b bytes.Buffer
		b.ReadFrom(resp.Body)
		t.Fatalf("OTLP export: %s %s", resp.Status, b.String())
	}
}

// query evaluates expr at t: each series' value by its labels.
func query(t *testing.T, base, expr string, at time.Time) map[string]float64 {
	t.Helper()
	q := url.Values{"query": {expr}, "time": {strconv.FormatFloat(float64(at.UnixMilli())/1000, 'f', 3, 64)}}
	resp, err := http.Get(base + "/api/v1/query?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var res struct {
		Status, Error string
		Data          struct {
			Result []struct {
				Metric map[string]string
				Value  [2]any
			}
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&res); err != nil || res.Status != "success" {
		t.Fatalf("query %s: %v %s", expr, err, res.Error)
	}
	out := map[string]float64{}
	for _, s := range res.Data.Result {
		v, _ := strconv.ParseFloat(s.Value[1].(string), 64)
		out[fmt.Sprint(s.Metric)] = v
	}
	return out
}

// TestPrometheus3TakesTheDeltaPointsAndReadsEachBucketBackAtItsBoundary
// sends three buckets of the group (each with its own counts) to a real
// Prometheus 3 and reads every series of each back with sum_over_time over
// the bucket's width at the bucket's end (its gauge as the value there):
// each is the tape's value, the histogram's classic buckets cumulative
// again.
func TestPrometheus3TakesTheDeltaPointsAndReadsEachBucketBackAtItsBoundary(t *testing.T) {
	base := prometheus3(t)
	now := time.Now().Truncate(10 * time.Second)
	const buckets = 3
	for i := range buckets {
		g := groupOf(t, group)
		g.Start = now.Add(time.Duration(i-6) * 10 * time.Second).UnixNano()
		g.Entries += int64(i) // a value of its own for each bucket
		post(t, base, Request(g, kinds, []tape.Label{{Name: "host", Value: "web1"}}))
	}
	// What the group holds, by series as Prometheus names it (OTLP's
	// translation adds _total to a monotonic Sum).
	want := map[string]float64{
		`requests_total{status="200"}`:                        4,
		`requests_total{status="500"}`:                        1,
		`bytes_total{status="200"}`:                           4000.5,
		`latency_bucket{status="200",le="0.1"}`:               1,
		`latency_bucket{status="200",le="1"}`:                 3,
		`latency_bucket{status="200",le="+Inf"}`:              4,
		`latency_sum{status="200"}`:                           2.5,
		`latency_count{status="200"}`:                         4,
		`timbertally_late_entries_total`:                      7,
		`timbertally_dropped_entries_total{reason="no-time"}`: 3,
		`timbertally_capped_entries_total{metric="requests"}`: 2,
	}
	for i := range buckets {
		end := now.Add(time.Duration(i-5) * 10 * time.Second)
		want[`timbertally_entries_total`] = float64(6 + i)
		for series, v := range want {
			sel := series
			if n := len(sel); sel[n-1] == '}' {
				sel = sel[:n-1] + `,host="web1"}`
			} else {
				sel += `{host="web1"}`
			}
			got := query(t, base, "sum_over_time("+sel+"[10s])", end)
			if len(got) != 1 || first(got) != v {
				t.Errorf("sum_over_time(%s[10s]) at %s: %v, want %v", sel, end.Format("15:04:05"), got, v)
			}
		}
		if got := query(t, base, `slowest{host="web1"}`, end); len(got) != 1 || first(got) != 0.75 {
			t.Errorf("slowest at %s: %v, want 0.75", end.Format("15:04:05"), got)
		}
	}
}

func first(m map[string]float64) float64 {
	for _, v := range m {
		return v
	}
	return -1
}
