package testscripts

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// What tgpush sends reads right in every receiver (issue 26): the tests
// below push real stores into real servers and read them back through
// the queries an operator (or Grafana) asks.

// apacheLine is an Apache combined line as this test reads it, apart from
// tally: its time and its status. A line synth cut short (malformed) has
// no closing quote and status after its request, and does not match; one
// whose date no calendar has does not parse (logCounts).
var apacheLine = regexp.MustCompile(`\[(\d{2}/\w{3}/\d{4}:\d{2}:\d{2}:\d{2} [+-]\d{4})\] "[^"]*" (\d{3}) `)

// logCounts counts a log's entries per second of log time and status.
func logCounts(t *testing.T, path string) map[int64]map[string]int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[int64]map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		m := apacheLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		ts, err := time.Parse("02/Jan/2006:15:04:05 -0700", m[1])
		if err != nil {
			continue // a date no calendar has (synth writes some): no entry
		}
		if out[ts.Unix()] == nil {
			out[ts.Unix()] = map[string]int{}
		}
		out[ts.Unix()][m[2]]++
	}
	return out
}

// logWindow sums the counts of the seconds in [end-width, end), by status
// (byStatus) or all together under "".
func logWindow(counts map[int64]map[string]int, end int64, width time.Duration, byStatus bool) map[string]float64 {
	out := map[string]float64{}
	for s := end - int64(width/time.Second); s < end; s++ {
		for status, n := range counts[s] {
			if !byStatus {
				status = ""
			}
			out[status] += float64(n)
		}
	}
	return out
}

// queryRange asks a receiver's query_range API, as Grafana does, and
// returns each step's values by the series' status label ("" without one).
func (r *receiver) queryRange(query string, start, end int64, step time.Duration) map[int64]map[string]float64 {
	r.t.Helper()
	if r.kind == "victoria-metrics" {
		r.getJSON("/internal/force_flush", "", "", nil)
	}
	q := url.Values{"query": {query}, "start": {strconv.FormatInt(start, 10)}, "end": {strconv.FormatInt(end, 10)},
		"step": {strconv.FormatInt(int64(step/time.Second), 10)}, "nocache": {"1"}}
	var res struct {
		Status string
		Error  string
		Data   struct {
			Result []struct {
				Metric map[string]string
				Values [][2]any
			}
		}
	}
	r.getJSON("/api/v1/query_range?"+q.Encode(), "", "", &res)
	if res.Status != "success" {
		r.t.Fatalf("%s: query_range %s failed: %s", r.kind, query, res.Error)
	}
	out := map[int64]map[string]float64{}
	for _, s := range res.Data.Result {
		for _, v := range s.Values {
			at := int64(v[0].(float64))
			x, err := strconv.ParseFloat(v[1].(string), 64)
			if err != nil {
				r.t.Fatal(err)
			}
			if out[at] == nil {
				out[at] = map[string]float64{}
			}
			out[at][s.Metric["status"]] = x
		}
	}
	return out
}

// boundaryQueries checks query at every step from start to end against
// the log's own counts (divided by per), a value the receiver leaves out
// being 0; it returns how many values it compared.
func boundaryQueries(t *testing.T, r *receiver, query string, counts map[int64]map[string]int, start, end int64, step time.Duration, byStatus bool, per float64) int {
	t.Helper()
	got := r.queryRange(query, start, end, step)
	n, wrong := 0, 0
	for at := start; at <= end; at += int64(step / time.Second) {
		want := logWindow(counts, at, step, byStatus)
		for status := range want {
			want[status] /= per
		}
		for status := range got[at] {
			if _, ok := want[status]; !ok {
				want[status] = 0
			}
		}
		for status, w := range want {
			n++
			if g := got[at][status]; g != w {
				wrong++
				if wrong <= 5 {
					t.Errorf("%s: %s at %s, status %q: %v, the log has %v", r.kind, query, time.Unix(at, 0).UTC().Format(time.RFC3339), status, g, w)
				}
			}
		}
	}
	if wrong > 0 {
		t.Errorf("%s: %s: %d of %d values differ from the log", r.kind, query, wrong, n)
	}
	return n
}

// On Prometheus 2.42 (closed ranges), Prometheus 3 and VictoriaMetrics
// (left-open ranges), the documented queries asked at every boundary, as
// Grafana asks them (query_range with the step equal to the range), equal
// the log's own counts, and the raw samples sit at each bucket's last
// millisecond.
func TestRangeQueriesAtEveryBucketAndMinuteBoundaryEqualTheLogOnEveryReceiver(t *testing.T) {
	for _, kind := range []string{"prometheus", "prometheus3", "victoria-metrics"} {
		t.Run(kind, func(t *testing.T) {
			r, dir, log, st := startedWithStore(t, kind, "access.log", 2400)
			mustRun(t, dir, "tgpush", "--once", "-q", "--url", r.writeURL(), st)
			series, quality := splitQuality(r.samples("", ""))
			sameRows(t, series, tapeRows(t, st)) // each at its bucket's last millisecond
			checkQuality(t, quality, log, st)

			counts := logCounts(t, log)
			secs := slices.Sorted(func(yield func(int64) bool) {
				for s := range counts {
					if !yield(s) {
						return
					}
				}
			})
			first, last := secs[0]-secs[0]%10+10, secs[len(secs)-1]-secs[len(secs)-1]%10+10
			// docs/tgpush.md's examples, as written there.
			n := boundaryQueries(t, r, `sum by (status) (sum_over_time(requests[10s]))`, counts, first, last, 10*time.Second, true, 1)
			m := boundaryQueries(t, r, `sum(sum_over_time(requests[1m]))`, counts, first-first%60+60, last-last%60, time.Minute, false, 1)
			boundaryQueries(t, r, `sum by (status) (sum_over_time(requests[10s])) / 10`, counts, first, last, 10*time.Second, true, 10)
			if n < 100 || m < 5 {
				t.Fatalf("%d bucket and %d minute values compared: the test proves too little", n, m)
			}
			if !t.Failed() {
				t.Logf("%s: %d values at bucket boundaries and %d at minute boundaries equal the log", kind, n, m)
			}
		})
	}
}

// tapeCounts sums the count= of a tape's marker lines of kind (!drop,
// !late), reading the tape's text apart from tgpush.
func tapeCounts(t *testing.T, st, kind string) float64 {
	t.Helper()
	var sum float64
	count := regexp.MustCompile(` count=(\d+)`)
	for _, line := range strings.Split(string(readFile(t, filepath.Join(st, "tape"))), "\n") {
		if strings.HasPrefix(line, kind+" ") {
			n, _ := strconv.Atoi(count.FindStringSubmatch(line)[1])
			sum += float64(n)
		}
	}
	return sum
}

// receiverSum sums the raw samples of a metric the receiver holds.
func receiverSum(r *receiver, metric string) float64 {
	var sum float64
	for _, s := range r.samples("", "") {
		if f := strings.Split(s, "\t"); f[1] == metric {
			v, _ := strconv.ParseFloat(f[3], 64)
			sum += v
		}
	}
	return sum
}

// Cron-style runs of feed that seal nothing, only adding malformed lines
// (or only late ones), each end in a marker-only group: each reaches
// Prometheus once, at a millisecond of its own, and tgpush --once after
// each exits 0 (stamped alike, they collided: 400 duplicate sample, then
// a permanent stop).
func TestRunsThatOnlyAddMalformedOrLateLinesEachReachPrometheusOnceAndNeverStopTgpush(t *testing.T) {
	for _, c := range []struct{ kind, marker, metric string }{
		{"malformed", "!drop", "timbertally_dropped_entries"},
		{"late", "!late", "timbertally_late_entries"},
	} {
		t.Run(c.kind, func(t *testing.T) {
			prom, dir, log, st := startedWithStore(t, "prometheus", "access.log", 600)
			mustRun(t, dir, "tgpush", "--once", "-q", "--url", prom.writeURL(), st)
			var early string // a well-formed line of the log's start: late now
			for _, l := range strings.Split(string(readFile(t, log)), "\n") {
				if apacheLine.MatchString(l) {
					early = l
					break
				}
			}
			before := tapeCounts(t, st, c.marker)
			for run := 1; run <= 4; run++ {
				f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND, 0)
				if err != nil {
					t.Fatal(err)
				}
				for i := 0; i < run; i++ {
					line := fmt.Sprintf("no Apache line, run %d\n", run)
					if c.kind == "late" {
						line = early + "\n"
					}
					f.WriteString(line)
				}
				f.Close()
				mustRun(t, dir, "feed", "-q", log, "--", "tally", "--run", st)
				added := tapeCounts(t, st, c.marker) - before
				if added != float64(run*(run+1)/2) {
					t.Fatalf("run %d: the tape's %s markers grew by %v, want %d: the runs do not add what the test means", run, c.marker, added, run*(run+1)/2)
				}
				stderr, code := run2(t, dir, "tgpush", "--once", "--url", prom.writeURL(), st)
				if code != 0 {
					t.Fatalf("run %d: tgpush exit %d: %s", run, code, stderr)
				}
				if got, want := receiverSum(prom, c.metric), tapeCounts(t, st, c.marker); got != want {
					t.Fatalf("run %d: Prometheus holds %v %s entries, the tape %v", run, got, c.metric, want)
				}
			}
		})
	}
}

// run2 is run: a name that does not shadow the loop variable run above.
func run2(t *testing.T, dir string, argv ...string) (string, int) { return run(t, dir, argv...) }

// A fleet's --label host=… on a document with by=host (Apache's %h, nginx's
// $host) would name two things one label: it is refused before any sample,
// naming the label, the metric and the field.
func TestAFleetLabelTheDocumentAlsoGivesIsRefusedBeforeAnySampleOnEachHost(t *testing.T) {
	prom := newReceiver(t, "prometheus")
	prom.start()
	for _, host := range []string{"web1", "web2"} {
		dir := filepath.Join(t.TempDir(), host)
		os.Mkdir(dir, 0o755)
		log := filepath.Join(dir, "access.log")
		pushLog(t, log, 400)
		writeFile(t, filepath.Join(dir, "vhost.tally"), []byte("format apache-combined\nwindow 10s grace=60s\nmetric requests count by=host,status\n"))
		st := filepath.Join(dir, "st")
		mustRun(t, dir, "tally", "--provision", "--doc", filepath.Join(dir, "vhost.tally"), st)
		mustRun(t, dir, "feed", "-q", log, "--", "tally", "--run", st)
		stderr, code := run(t, dir, "tgpush", "--once", "--label", "host="+host, "--url", prom.writeURL(), st)
		for _, want := range []string{"--label host=" + host + " names a label", "metric requests has the label host", "by=host", "field host", "nothing was pushed"} {
			if code != 2 || !strings.Contains(stderr, want) {
				t.Errorf("%s: exit %d, stderr lacks %q: %s", host, code, want, stderr)
			}
		}
	}
	if got := prom.samples("", ""); len(got) != 0 {
		t.Errorf("Prometheus holds %d samples, want none: %q", len(got), first(got))
	}
}

// faultProxy stands between tgpush and a receiver and spoils the first
// answers: a 200 and a 503 cut after their headers (the receiver took the
// samples, as a load balancer's blip after the write leaves it), a 200 cut
// before the receiver saw the request, and a 200 whose body dribbles
// slower than tgpush's --timeout. The rest pass through.
type faultProxy struct {
	t      *testing.T
	target string
	n      atomic.Int64
	srv    *http.Server
	url    string
}

const proxyFaults = 4

func startFaultProxy(t *testing.T, target string) *faultProxy {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &faultProxy{t: t, target: target, url: "http://" + l.Addr().String() + "/api/v1/write"}
	p.srv = &http.Server{Handler: p}
	go p.srv.Serve(l)
	t.Cleanup(func() { p.srv.Close() })
	return p
}

func (p *faultProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := p.n.Add(1)
	body, _ := io.ReadAll(r.Body)
	forward := func() (int, []byte) {
		req, _ := http.NewRequest(http.MethodPost, p.target, strings.NewReader(string(body)))
		req.Header = r.Header.Clone()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return http.StatusBadGateway, []byte(err.Error())
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	cut := func(status string) {
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			p.t.Error(err)
			return
		}
		buf.WriteString("HTTP/1.1 " + status + "\r\nContent-Length: 64\r\n\r\npart of")
		buf.Flush()
		conn.Close()
	}
	switch n {
	case 1:
		forward()
		cut("200 OK")
	case 2:
		forward()
		cut("503 Service Unavailable")
	case 3:
		cut("200 OK")
	case 4:
		forward()
		w.Header().Set("Content-Length", "64")
		w.WriteHeader(http.StatusOK)
		for i := 0; i < 30 && r.Context().Err() == nil; i++ {
			w.Write([]byte("."))
			w.(http.Flusher).Flush()
			time.Sleep(100 * time.Millisecond)
		}
	default:
		status, b := forward()
		w.WriteHeader(status)
		w.Write(b)
	}
}

// Answers cut (with a 200 or a 503) or slower than --timeout are faults,
// retried like a connection error with one note per change of state:
// tgpush --once finishes and the TSDB holds exactly the tape.
func TestAnswersAProxyCutsOrDribblesAreRetriedAndPrometheusHoldsExactlyTheTape(t *testing.T) {
	prom, dir, log, st := startedWithStore(t, "prometheus", "access.log", 1000)
	proxy := startFaultProxy(t, prom.writeURL())
	stderr, code := run(t, dir, "tgpush", "--once", "--timeout", "1s", "--retry-max", "100ms", "--url", proxy.url, st)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"the receiver's answer (200 OK) was cut", "the receiver's answer (503 Service Unavailable) was cut",
		"the receiver's answer (200 OK) did not arrive whole within --timeout", "the receiver takes samples again"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if n := proxy.n.Load(); n <= proxyFaults {
		t.Fatalf("the proxy answered %d requests, fewer than its %d faults and one more", n, proxyFaults)
	}
	series, quality := splitQuality(prom.samples("", ""))
	sameRows(t, series, tapeRows(t, st))
	checkQuality(t, quality, log, st)
}

// The cursor keeps the --label set: a run with another is refused and
// sends nothing. A lost cursor: the run without one is refused with the
// way to find where the receiver's copy ends, and that advice, run as
// printed, leaves Prometheus with each sample once.
func TestALabelChangedOnACursorIsRefusedAndALostCursorsAdviceRunAsPrintedPushesEachSampleOnce(t *testing.T) {
	prom := newReceiver(t, "prometheus")
	prom.start()
	dir := t.TempDir()
	whole, log := filepath.Join(dir, "whole.log"), filepath.Join(dir, "access.log")
	pushLog(t, whole, 1500)
	lines := strings.SplitAfter(string(readFile(t, whole)), "\n")
	half := len(lines) / 2
	writeFile(t, log, []byte(strings.Join(lines[:half], "")))
	st := pipeline(t, dir, log)
	cursor := filepath.Join(dir, "push.cursor")
	mustRun(t, dir, "tgpush", "--once", "-q", "--label", "host=web1", "--cursor", cursor, "--url", prom.writeURL(), st)
	pushed := len(prom.samples("", ""))

	// More buckets, then a run under another label set: refused, nothing sent.
	f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(strings.Join(lines[half:], ""))
	f.Close()
	mustRun(t, dir, "feed", "-q", log, "--", "tally", "--run", st)
	stderr, code := run(t, dir, "tgpush", "--once", "--label", "host=web2", "--cursor", cursor, "--url", prom.writeURL(), st)
	if code != 1 || !strings.Contains(stderr, "was pushed under --label host=web1, and this run gives --label host=web2") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if n := len(prom.samples("", "")); n != pushed {
		t.Fatalf("the refused run sent %d samples", n-pushed)
	}

	// The cursor lost: the refusal's advice, run as printed.
	os.Remove(cursor)
	stderr, code = run(t, dir, "tgpush", "--once", "--label", "host=web1", "--cursor", cursor, "--url", prom.writeURL(), st)
	m := regexp.MustCompile(`(T=\$\(curl .*?) \(the markers of runs`).FindStringSubmatch(stderr)
	if code != 1 || m == nil || strings.Contains(stderr, "give each its own --label") {
		t.Fatalf("exit %d, no advice to run: %s", code, stderr)
	}
	t.Logf("the advice: %s", m[1])
	if out, err := exec.Command("sh", "-c", "cd "+dir+" && "+m[1]).CombinedOutput(); err != nil {
		t.Fatalf("the advice failed: %v\n%s", err, out)
	}
	series, quality := splitQuality(prom.samples("", ""))
	sameRows(t, series, withLabel(tapeRows(t, st), "web1"))
	checkQuality(t, quality, whole, st)
}

// query asks a receiver's instant query API for a one-value result.
func (r *receiver) query(q string, at time.Time) (float64, bool) {
	r.t.Helper()
	var res struct {
		Status string
		Error  string
		Data   struct{ Result []struct{ Value [2]any } }
	}
	r.getJSON("/api/v1/query?"+url.Values{"query": {q}, "time": {strconv.FormatInt(at.Unix(), 10)}}.Encode(), "", "", &res)
	if res.Status != "success" {
		r.t.Fatalf("%s: query %s failed: %s", r.kind, q, res.Error)
	}
	if len(res.Data.Result) != 1 {
		return 0, false
	}
	v, err := strconv.ParseFloat(res.Data.Result[0].Value[1].(string), 64)
	if err != nil {
		r.t.Fatal(err)
	}
	return v, true
}

// A histogram's bounds leave tgpush in Prometheus's canonical form, as
// Prometheus 3 writes a scraped classic histogram's (so the two join), and
// histogram_quantile over the pushed series, at each bucket's end, equals
// tgread --quantile.
func TestPushedHistogramsHaveCanonicalBoundsAndPrometheus3sQuantilesEqualTgreads(t *testing.T) {
	r := newReceiver(t, "prometheus3")
	r.start()
	dir := t.TempDir()
	log := filepath.Join(dir, "access.log")
	pushLog(t, log, 1200)
	writeFile(t, filepath.Join(dir, "size.tally"), []byte("format apache-combined\nwindow 10s grace=60s\nmetric size histogram=bytes buckets=100,1000,10000,1000000\n"))
	st := filepath.Join(dir, "st")
	mustRun(t, dir, "tally", "--provision", "--doc", filepath.Join(dir, "size.tally"), st)
	mustRun(t, dir, "feed", "-q", log, "--", "tally", "--run", st)
	mustRun(t, dir, "tgpush", "--once", "-q", "--url", r.writeURL(), st)

	var les struct{ Data []string }
	r.getJSON("/api/v1/label/le/values", "", "", &les)
	if want := []string{"+Inf", "100.0", "1000.0", "10000.0", "1e+06"}; !slices.Equal(les.Data, want) {
		t.Errorf("le values %q, want Prometheus's canonical %q", les.Data, want)
	}
	out, err := exec.Command("tgread", "--format", "tsv", "--quantile", "0.9", st).Output()
	if err != nil {
		t.Fatalf("tgread --quantile: %v", err)
	}
	rows := strings.Split(strings.TrimSpace(string(out)), "\n")[1:]
	if len(rows) < 20 {
		t.Fatalf("tgread --quantile gave %d rows: the test proves too little", len(rows))
	}
	for _, row := range rows {
		c := strings.Split(row, "\t") // time, metric, labels, value
		start, err := time.Parse(time.RFC3339, c[0])
		if err != nil {
			t.Fatal(err)
		}
		want, _ := strconv.ParseFloat(c[3], 64)
		got, ok := r.query("histogram_quantile(0.9, sum by (le) (sum_over_time(size_bucket[10s])))", start.Add(10*time.Second))
		if !ok || got != want {
			t.Errorf("bucket %s: Prometheus 3's p90 %v (%v), tgread --quantile 0.9 %v", c[0], got, ok, want)
		}
	}
}
