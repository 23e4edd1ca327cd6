package testscripts

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// openMetrics writes series (keyed name{labels}, samples at Unix ms) as
// OpenMetrics for promtool tsdb create-blocks-from openmetrics: one
// family a name, of type unknown, each series' samples in time order.
func openMetrics(series ...map[string][]sample) string {
	byName := map[string][]string{}
	all := map[string][]sample{}
	for _, m := range series {
		for k, s := range m {
			name, _, _ := strings.Cut(k, "{")
			byName[name] = append(byName[name], k)
			all[k] = s
		}
	}
	var b strings.Builder
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		fmt.Fprintf(&b, "# TYPE %s unknown\n", name)
		keys := byName[name]
		slices.Sort(keys)
		for _, k := range keys {
			for _, s := range all[k] {
				fmt.Fprintf(&b, "%s %s %d.%03d\n", k, strconv.FormatFloat(s.v, 'f', -1, 64), s.ms/1000, s.ms%1000)
			}
		}
	}
	b.WriteString("# EOF\n")
	return b.String()
}

// instantAt evaluates expr at t and returns each series' value by its
// labels (seriesKey).
func (r *receiver) instantAt(expr string, t time.Time) map[string]float64 {
	r.t.Helper()
	var res struct {
		Status string
		Error  string
		Data   struct {
			Result []struct {
				Metric map[string]string
				Value  [2]any
			}
		}
	}
	q := url.Values{"query": {expr}, "time": {strconv.FormatFloat(float64(t.UnixMilli())/1000, 'f', 3, 64)}}
	r.getJSON("/api/v1/query?"+q.Encode(), "", "", &res)
	if res.Status != "success" {
		r.t.Fatalf("query %s: %s", expr, res.Error)
	}
	out := map[string]float64{}
	for _, s := range res.Data.Result {
		v, _ := strconv.ParseFloat(s.Value[1].(string), 64)
		out[seriesKey(s.Metric)] = v
	}
	return out
}

// dashboardTargets are the queries of every panel of the shipped
// dashboard, by panel title and refId, with $host at its All value.
func dashboardTargets(t *testing.T) map[string]string {
	t.Helper()
	var d struct {
		Panels []struct {
			Title   string
			Targets []struct {
				RefID string `json:"refId"`
				Expr  string
			}
		}
	}
	if err := json.Unmarshal(readFile(t, "../deploy/grafana/timbertally.json"), &d); err != nil {
		t.Fatalf("deploy/grafana/timbertally.json: %v", err)
	}
	out := map[string]string{}
	for _, p := range d.Panels {
		for _, tg := range p.Targets {
			out[p.Title+" "+tg.RefID] = strings.ReplaceAll(tg.Expr, "$host", ".*")
		}
	}
	return out
}

// minuteRows is tgread --step 1m of the requests: by minute, by status.
func minuteRows(t *testing.T, st string) map[time.Time]map[string]float64 {
	t.Helper()
	res := map[time.Time]map[string]float64{}
	for _, f := range tgreadTSV(t, st, "--step", "1m", "--metric", "requests") {
		at, _ := time.Parse(time.RFC3339, f[0])
		if res[at] == nil {
			res[at] = map[string]float64{}
		}
		res[at][strings.TrimPrefix(f[2], "status=")], _ = strconv.ParseFloat(f[3], 64)
	}
	return res
}

// TestEveryDashboardQueryReadsEachMinuteOfATapeInPrometheusAsTgreadAndTheTapeSay
// puts a real tape into a real Prometheus in both shapes (host web1 per
// bucket, stamped at each bucket's last millisecond as tgpush sends it;
// host web2 as counters at the same stamps, as tgpush --counters sends
// them), written by the test from the tape's text (shapes) and backfilled
// by promtool, and evaluates every query of the dashboard at each minute,
// 70 s after its end, against tgread --step 1m and the tape.
func TestEveryDashboardQueryReadsEachMinuteOfATapeInPrometheusAsTgreadAndTheTapeSay(t *testing.T) {
	promtool := tool(t, "promtool", "prometheus")
	dir := t.TempDir()
	st := rulesTape(t, dir, 6000)
	buckets := tapeBuckets(t, st)
	epoch := time.Unix(0, 0)
	perBucket, counters := shapes(buckets, epoch)
	prom := newReceiver(t, "prometheus", "--storage.tsdb.retention.time=100y")
	om := filepath.Join(dir, "tape.om")
	writeFile(t, om, []byte(openMetrics(perBucket, counters)))
	if out, err := exec.Command(promtool, "tsdb", "create-blocks-from", "openmetrics", om, filepath.Join(prom.data, "tsdb")).CombinedOutput(); err != nil {
		t.Fatalf("promtool tsdb create-blocks-from openmetrics: %v\n%s", err, out)
	}
	prom.start()
	targets := dashboardTargets(t)
	if len(targets) != 14 {
		t.Fatalf("%d queries in the dashboard, want 14 (update this test with the panels)", len(targets))
	}
	rows := minuteRows(t, st)
	p50, p99 := quantiles(t, st, "0.5"), quantiles(t, st, "0.99")
	last := buckets[len(buckets)-1].start
	checked := 0
	for m := buckets[0].start.Truncate(time.Minute); !m.Add(time.Minute).After(last.Add(buckets[0].width)); m = m.Add(time.Minute) {
		at := m.Add(time.Minute + 70*time.Second) // read offset window + grace
		end := m.Add(time.Minute).UnixMilli() - 1 // the last stamp of the minute
		want := expectedPanels(buckets, rows[m], p50[m], p99[m], end)
		for name, expr := range targets {
			got := prom.instantAt(expr, at)
			if fmt.Sprint(got) != fmt.Sprint(want[name]) {
				t.Errorf("%s at %s (the minute %s):\n%s\ngot  %v\nwant %v", name, at.Format(time.RFC3339), m.Format("15:04"), expr, got, want[name])
			}
		}
		checked++
	}
	if checked < 15 {
		t.Errorf("%d minutes checked, want at least 15", checked)
	}
	t.Logf("%d queries at %d minutes of %d buckets: each as tgread and the tape say", len(targets), checked, len(buckets))
}

// expectedPanels is what each dashboard query must read for the minute
// whose last stamp is end (Unix ms): the requests and quantiles as tgread
// --step 1m says (rows, p50, p99), the data-quality counts of the ten
// minutes before as the tape's text says. A per-bucket query (A, and A, B
// for the latency) reads host web1, a counter query host web2; a counter
// that did not move reads 0 where a per-bucket sum has no sample at all.
func expectedPanels(buckets []*tapeBucket, rows map[string]float64, p50, p99 string, end int64) map[string]map[string]float64 {
	w := map[string]map[string]float64{}
	set := func(name, key string, v float64) {
		if w[name] == nil {
			w[name] = map[string]float64{}
		}
		w[name][key] = v
	}
	all, fivexx := 0.0, 0.0
	for status, n := range rows {
		set("Requests per second by status A", "{status="+status+"}", n/60)
		all += n
		if strings.HasPrefix(status, "5") {
			fivexx += n
		}
	}
	// The counters of every status seen so far read the minute's count,
	// 0 for a status the minute did not have.
	// (A counter has a zero at the bucket before its first.)
	for i, b := range buckets {
		if buckets[max(0, i-1)].stampMs(time.Unix(0, 0)) <= end {
			for k := range b.series {
				if status, ok := strings.CutPrefix(k, `requests{status="`); ok {
					status = strings.TrimSuffix(status, `"}`)
					set("Requests per second by status B", "{status="+status+"}", rows[status]/60)
				}
			}
		}
	}
	set("5xx share B", "{}", fivexx/all)
	if fivexx > 0 {
		set("5xx share A", "{}", fivexx/all)
	}
	q50, _ := strconv.ParseFloat(p50, 64)
	q99, _ := strconv.ParseFloat(p99, 64)
	set("Latency p50 and p99 A", "{}", q50)
	set("Latency p50 and p99 B", "{}", q99)
	set("Latency p50 and p99 C", "{}", q50)
	set("Latency p50 and p99 D", "{}", q99)
	in10 := func(f func(*tapeBucket) float64) float64 {
		return sumIn(buckets, time.Unix(0, 0), end-600_000, end, f)
	}
	entries := in10(func(b *tapeBucket) float64 { return b.entries })
	late := in10(func(b *tapeBucket) float64 { return b.late })
	dropped := in10(func(b *tapeBucket) float64 {
		s := 0.0
		for _, v := range b.dropped {
			s += v
		}
		return s
	})
	capped := in10(func(b *tapeBucket) float64 { return b.capped["pages"] })
	share := dropped / (entries + late + dropped)
	set("Dropped share per host B", "{host=web2}", share)
	set("Late entries per host A", "{host=web1}", late)
	set("Late entries per host B", "{host=web2}", late)
	set("Capped entries per host and metric B", "{host=web2,metric=pages}", capped)
	if dropped > 0 {
		set("Dropped share per host A", "{host=web1}", share)
	}
	if capped > 0 {
		set("Capped entries per host and metric A", "{host=web1,metric=pages}", capped)
	}
	return w
}
