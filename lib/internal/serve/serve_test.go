package serve

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/timbertally/timbertally/lib/internal/command"
)

const document = `format apache-combined
window 10s grace=0s
metric requests count by=status
metric latency histogram=bytes buckets=0.25,1,2.5
`

const firstGroups = `2026-10-10T13:55:00Z requests{status="200"} 4
2026-10-10T13:55:00Z latency_bucket{le="0.25"} 1
2026-10-10T13:55:00Z latency_bucket{le="1"} 3
2026-10-10T13:55:00Z latency_bucket{le="2.5"} 4
2026-10-10T13:55:00Z latency_bucket{le="+Inf"} 4
2026-10-10T13:55:00Z latency_sum 2.5
2026-10-10T13:55:00Z latency_count 4
seal 2026-10-10T13:55:00Z width=10s entries=4 at=w:100
!drop id=w offset=100 end=120 count=1 reason=no-time
2026-10-10T13:55:10Z requests{status="200"} 2
2026-10-10T13:55:10Z requests{status="5\"0\\0"} 1
seal 2026-10-10T13:55:10Z width=10s entries=3 at=w:200
`

// newStore makes a tally store directory named name holding document and
// the tape text.
func newStore(t *testing.T, name, text string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for file, data := range map[string]string{"document": document, "tape": text} {
		if err := os.WriteFile(filepath.Join(dir, file), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// started serves o on a free port of 127.0.0.1 until the test ends, and
// returns its base URL.
func started(t *testing.T, o *Options) (string, *server) {
	t.Helper()
	o.Stderr, o.Poll = io.Discard, 10*time.Millisecond
	sv, err := newServer(o)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	o.Listen = l.Addr().String()
	for _, s := range sv.stores {
		if err := s.catchUp(); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- sv.serve(ctx, l, o) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
		sv.close()
	})
	return "http://" + o.Listen, sv
}

func scrape(t *testing.T, base, accept string) (string, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", base+"/metrics", nil)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return string(body), resp.Header.Get("Content-Type")
}

// parsed reads a text exposition with the Prometheus project's own parser.
func parsed(t *testing.T, text string) map[string]*dto.MetricFamily {
	t.Helper()
	p := expfmt.NewTextParser(model.LegacyValidation)
	mfs, err := p.TextToMetricFamilies(strings.NewReader(text))
	if err != nil {
		t.Fatalf("the exposition does not parse: %v\n%s", err, text)
	}
	return mfs
}

func TestTheTextFormatHoldsTheTapesRunningTotalsAsCountersAndAHistogram(t *testing.T) {
	base, _ := started(t, &Options{Stores: []string{newStore(t, "web", firstGroups)}, Labels: []string{"host=w1"}})
	text, ctype := scrape(t, base, "")
	if !strings.HasPrefix(ctype, "text/plain; version=0.0.4") {
		t.Errorf("Content-Type %q", ctype)
	}
	mfs := parsed(t, text)
	req := mfs["requests_total"]
	if req.GetType() != dto.MetricType_COUNTER || len(req.Metric) != 2 {
		t.Fatalf("requests_total: %v", req)
	}
	got := map[string]float64{}
	for _, m := range req.Metric {
		var status, host, store string
		for _, l := range m.Label {
			switch l.GetName() {
			case "status":
				status = l.GetValue()
			case "host":
				host = l.GetValue()
			case StoreLabel:
				store = l.GetValue()
			}
		}
		if host != "w1" || store != "web" {
			t.Errorf("labels %v, want host=w1 and %s=web", m.Label, StoreLabel)
		}
		got[status] = m.GetCounter().GetValue()
	}
	// 4 + 2 for 200; the other status is the bytes as logged, shown as
	// tgpush sends them (a backslash doubled, so that no logged text can
	// pass for the \xHH of a byte that is not UTF-8).
	if got["200"] != 6 || got[`5"0\\0`] != 1 {
		t.Errorf("requests_total %v, want 200: 6 and 5\"0\\\\0: 1", got)
	}
	h := mfs["latency"].GetMetric()[0].GetHistogram()
	if h.GetSampleCount() != 4 || h.GetSampleSum() != 2.5 || len(h.Bucket) != 4 || h.Bucket[1].GetCumulativeCount() != 3 {
		t.Errorf("latency: %v", h)
	}
	for _, le := range []string{`le="0.25"`, `le="1.0"`, `le="2.5"`, `le="+Inf"`} {
		if !strings.Contains(text, le) {
			t.Errorf("no %s: bounds leave in Prometheus's canonical float form\n%s", le, text)
		}
	}
	for name, want := range map[string]float64{"timbertally_entries_total": 7, "timbertally_dropped_entries_total": 1, "timbertally_late_entries_total": 0} {
		if v := mfs[name].GetMetric()[0].GetCounter().GetValue(); v != want {
			t.Errorf("%s %v, want %v", name, v, want)
		}
	}
	if mfs["go_goroutines"] == nil || mfs["timbertally_newest_bucket_end_seconds"].GetMetric()[0].GetGauge().GetValue() != 1791640520 {
		t.Errorf("the process's metrics or the newest bucket's end are missing: %v", mfs["timbertally_newest_bucket_end_seconds"])
	}
}

func TestOpenMetricsIsServedWhenAskedWithCreatedAndEOF(t *testing.T) {
	base, _ := started(t, &Options{Stores: []string{newStore(t, "web", firstGroups)}})
	text, ctype := scrape(t, base, "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5")
	if !strings.HasPrefix(ctype, "application/openmetrics-text; version=1.0.0") {
		t.Errorf("Content-Type %q", ctype)
	}
	for _, want := range []string{
		"# TYPE requests counter\n",
		`requests_total{status="200",tally_store="web"} 6` + "\n" + `requests_created{status="200",tally_store="web"} 1791640500` + "\n",
		`latency_sum{tally_store="web"} 2.5` + "\n" + `latency_created{tally_store="web"} 1791640500` + "\n",
		`timbertally_dropped_entries_created{reason="no-time",tally_store="web"} 1791640510` + "\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in\n%s", want, text)
		}
	}
	if !strings.HasSuffix(text, "\n# EOF\n") || strings.Count(text, "# EOF") != 1 {
		t.Errorf("OpenMetrics must end with one # EOF:\n%s", text[max(0, len(text)-200):])
	}
}

func TestAGroupIsServedOnlyOnceItsSealIsOnTheTape(t *testing.T) {
	dir := newStore(t, "web", firstGroups)
	base, sv := started(t, &Options{Stores: []string{dir}})
	f, err := os.OpenFile(filepath.Join(dir, "tape"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	value := func() float64 {
		for _, m := range parsed(t, first(scrape(t, base, "")))["requests_total"].GetMetric() {
			if m.Label[0].GetValue() == "200" {
				return m.GetCounter().GetValue()
			}
		}
		return -1
	}
	line := "2026-10-10T13:55:20Z requests{status=\"200\"} 10\n"
	f.WriteString(line + "2026-10-10T13:55:20Z requests{sta")
	s := sv.stores[0]
	read := func() int64 {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.off
	}
	for deadline := time.Now().Add(30 * time.Second); read() != int64(len(firstGroups)+len(line)); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the series line was not read: offset %d", read())
		}
	}
	if v := value(); v != 6 {
		t.Fatalf("before the seal: %v, want 6", v)
	}
	f.WriteString("tus=\"500\"} 1\nseal 2026-10-10T13:55:20Z width=10s entries=11 at=w:300\n")
	for deadline := time.Now().Add(30 * time.Second); value() != 16; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("after the seal: %v, want 16", value())
		}
	}
}

func first(a, _ string) string { return a }

func TestALabelOfTheTapesSeriesOrTwoStoresOfOneNameAreRefusedAsUsage(t *testing.T) {
	web := newStore(t, "web", firstGroups)
	for _, o := range []*Options{
		{Stores: []string{web}, Labels: []string{"status=x"}},
		{Stores: []string{web}, Labels: []string{StoreLabel + "=x"}},
		{Stores: []string{web, newStore(t, "web", firstGroups)}},
	} {
		o.Stderr = io.Discard
		_, err := newServer(o)
		if !command.IsUsage(err) {
			t.Errorf("%v %v: got %v, want a usage error", o.Stores, o.Labels, err)
		}
	}
}

func TestMetricsThatWouldBeServedUnderOneNameAreRefusedAsUsage(t *testing.T) {
	for _, metrics := range []string{
		"metric hits count\nmetric hits_total count\n",                     // both hits_total
		"metric latency histogram=bytes\nmetric latency_sum_total count\n", // latency_sum twice
		"metric timbertally_entries count\n",                               // tgserve's own
	} {
		dir := newStore(t, "web", firstGroups)
		text := "format apache-combined\nwindow 10s grace=0s\n" + metrics
		if err := os.WriteFile(filepath.Join(dir, "document"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := newServer(&Options{Stores: []string{dir}, Stderr: io.Discard})
		if !command.IsUsage(err) || !strings.Contains(err.Error(), "would both be served as") {
			t.Errorf("%q: got %v, want a usage error naming the clash", metrics, err)
		}
	}
}
