package testscripts

import (
	"bufio"
	"fmt"
	"math"
	mrand "math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// shapesDoc has 10 s buckets, counts and sums by status and a histogram of
// the response size whose 0.99-quantile falls between two bounds.
const shapesDoc = `format apache-combined
window 10s grace=0s
metric requests count by=status
metric bytes sum=bytes by=status
metric size histogram=bytes buckets=250,500,1000,2000
`

// shapesWidth is shapesDoc's window.
const shapesWidth = 10 * time.Second

// shapesLog writes n Apache lines, 10 a second of log time, that end about
// a minute ago (inside a Prometheus head), and returns the first line's
// time. Sizes are random (seeded) below 2 000 bytes, one in 200 of 3 000; status 503 starts
// half-way, so that series are born in the middle of the tape too; every
// 97th line is no Apache line (a !drop).
func shapesLog(t *testing.T, path string, n int) time.Time {
	t.Helper()
	start := time.Now().UTC().Add(-time.Minute - time.Duration(n)*time.Second/10).Truncate(shapesWidth)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	rng := mrand.New(mrand.NewPCG(30, 30))
	statuses := []int{200, 200, 200, 304, 404, 500}
	for i := range n {
		if i%97 == 96 {
			fmt.Fprintln(w, "a line that is no Apache line")
			continue
		}
		status := statuses[i%len(statuses)]
		if i > n/2 && i%13 == 0 {
			status = 503
		}
		at := start.Add(time.Duration(i) * time.Second / 10).Format("02/Jan/2006:15:04:05 -0700")
		size := rng.IntN(2000)
		if i%200 == 0 {
			size = 3000 // a few in the +Inf bucket only
		}
		fmt.Fprintf(w, "10.0.0.%d - - [%s] \"GET /p%d HTTP/1.1\" %d %d \"-\" \"live\"\n", i%7, at, i%5, status, size)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return start
}

// shapesStore makes a tally store of shapesDoc from the log in one run.
func shapesStore(t *testing.T, dir, log string) string {
	t.Helper()
	doc := filepath.Join(dir, "shapes.tally")
	writeFile(t, doc, []byte(shapesDoc))
	st := filepath.Join(dir, "st")
	mustRun(t, dir, "tally", "--provision", "--doc", doc, st)
	mustRun(t, dir, "feed", "-q", log, "--", "tally", "--run", st)
	return st
}

// logBuckets computes, from the log's text alone (a regular expression,
// not the toolkit's code), each bucket's values by series as Prometheus
// names the counters' shape: requests_total and bytes_total by status,
// the size histogram's cumulative size_bucket (le in Prometheus' canonical
// form), size_count and size_sum, timbertally_entries_total, and
// timbertally_dropped_entries_total{reason="format"} for the lines that
// are no Apache line, which count with the bucket of the entry before
// them (tally seals that bucket only at the next entry). Keys are
// "name{k=v,...}" with the labels sorted, the buckets' starts Unix seconds.
func logBuckets(t *testing.T, path string) map[int64]map[string]float64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	entry := regexp.MustCompile(`^\S+ - - \[([^]]+)\] "GET \S+ HTTP/1\.1" (\d+) (\d+) "-" "live"$`)
	out := map[int64]map[string]float64{}
	var bucket int64 = -1
	add := func(key string, v float64) {
		if out[bucket] == nil {
			out[bucket] = map[string]float64{}
		}
		out[bucket][key] += v
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := entry.FindStringSubmatch(sc.Text())
		if m == nil {
			if bucket < 0 {
				t.Fatal("the log starts with a line that is no entry: the test's rule for its bucket does not hold")
			}
			add(`timbertally_dropped_entries_total{reason=format}`, 1)
			continue
		}
		at, err := time.Parse("02/Jan/2006:15:04:05 -0700", m[1])
		if err != nil {
			t.Fatal(err)
		}
		bucket = at.Unix() - at.Unix()%int64(shapesWidth/time.Second)
		size, _ := strconv.ParseFloat(m[3], 64)
		add("requests_total{status="+m[2]+"}", 1)
		add("bytes_total{status="+m[2]+"}", size)
		add("timbertally_entries_total{}", 1)
		for _, le := range []float64{250, 500, 1000, 2000} {
			if size <= le {
				add(fmt.Sprintf("size_bucket{le=%.1f}", le), 1)
			}
		}
		add("size_bucket{le=+Inf}", 1)
		add("size_count{}", 1)
		add("size_sum{}", size)
	}
	return out
}

// shapesSetup makes, in a fresh directory, a tally store of a shapesLog
// of 6 000 lines, and returns it with logBuckets and their starts.
func shapesSetup(t *testing.T) (dir, st string, want map[int64]map[string]float64, starts []int64) {
	t.Helper()
	dir = t.TempDir()
	log := filepath.Join(dir, "access.log")
	shapesLog(t, log, 6000)
	st = shapesStore(t, dir, log)
	want = logBuckets(t, log)
	return dir, st, want, sortedBuckets(want)
}

// sortedBuckets is the bucket starts of logBuckets, in order.
func sortedBuckets(b map[int64]map[string]float64) []int64 {
	var out []int64
	for s := range b {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// killPushes runs tgpush --once with argv again and again, each killed
// (-9) at a random moment, until one finishes by itself, then once more to
// the end; it returns the kills that found tgpush running. The last run
// must exit 0: no refusal (an "out of order" after a kill would be one).
func killPushes(t *testing.T, dir string, argv []string) int {
	t.Helper()
	seed := uint64(time.Now().UnixNano())
	rng := mrand.New(mrand.NewPCG(seed, 30))
	kills, rounds := 0, 0
	for ; rounds < 80; rounds++ {
		p := startCmd(t, dir, "push.err", argv...)
		done := make(chan error, 1)
		go func() { done <- p.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				notes, _ := os.ReadFile(filepath.Join(dir, "push.err"))
				t.Fatalf("tgpush (round %d, seed %d): %v\n%s", rounds, seed, err, tail(string(notes), 10))
			}
			rounds = 1 << 30 // finished by itself
		case <-time.After(killAfter(rng, kills)): // a random moment: the point of the test
			p.Process.Kill()
			if err := <-done; err != nil && strings.Contains(err.Error(), "killed") {
				kills++
			}
		}
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tgpush after %d kills (seed %d): %v\n%s", kills, seed, err, out)
	}
	t.Logf("seed %d: %d kills -9 of tgpush", seed, kills)
	return kills
}

// killAfter is when a round's kill comes: at random in 5-125 ms, and in
// 5-35 ms until the floor's 3 kills are made, so that a push that got
// faster (it takes ~0.5 s in all) still meets the floor before it ends.
func killAfter(rng *mrand.Rand, kills int) time.Duration {
	if kills < 3 {
		return time.Duration(5+rng.IntN(30)) * time.Millisecond
	}
	return time.Duration(5+rng.IntN(120)) * time.Millisecond
}

func TestTgpushCountersIntoPrometheus3HoldTheLogsRunningSumsAtEveryBucketsLastMillisecondAndRateReadsTgreadsQuantile(t *testing.T) {
	prom := newReceiver(t, "prometheus3")
	prom.start()
	dir, st, want, starts := shapesSetup(t)
	if len(starts) < 50 {
		t.Fatalf("the log makes %d buckets, want at least 50", len(starts))
	}
	// Small requests, killed at random moments: every group crosses
	// several request boundaries, and the runs resume from the cursor.
	kills := killPushes(t, dir, []string{"tgpush", "--once", "--counters", "--max-samples", "3", "--url", prom.writeURL(), "--cursor", "push.cursor", st})
	killFloor(t, 1, 1, kills, 3)

	// At each bucket's last millisecond (and at the one before the first),
	// every counter reads the running sum of the log through that bucket;
	// a series born in the next bucket reads its zero.
	width := int64(shapesWidth / time.Millisecond)
	running := map[string]float64{}
	sel := `{__name__=~"requests_total|bytes_total|size_bucket|size_count|size_sum|timbertally_.+"}`
	for i := -1; i < len(starts); i++ {
		var at int64
		if i < 0 {
			at = starts[0]*1000 - 1
		} else {
			at = starts[i]*1000 + width - 1
			for k, v := range want[starts[i]] {
				running[k] += v
			}
		}
		expect := map[string]float64{}
		for k, v := range running {
			expect[k] = v
		}
		expect["timbertally_late_entries_total{}"] = 0 // no entry is late: its zero, then 0 with every bucket
		if i+1 < len(starts) {
			for k := range want[starts[i+1]] {
				if _, ok := expect[k]; !ok {
					expect[k] = 0 // its zero, the bucket before its first
				}
			}
		}
		got := prom.instantAt(sel, time.UnixMilli(at))
		if !mapsEqual(got, expect) {
			t.Fatalf("at %s (the last ms of bucket %d of %d): got\n%v\nwant\n%v", time.UnixMilli(at).UTC().Format(stampFormat), i, len(starts), got, expect)
		}
	}
	if running["requests_total{status=503}"] == 0 || running["timbertally_dropped_entries_total{reason=format}"] == 0 {
		t.Fatal("the log has no series born mid-tape or no drop: the test proves less than it says")
	}

	// rate() over 70 s at a minute's end sees the increase from the
	// sample before the minute to the minute's last: the minute's six
	// buckets, whose 0.99-quantile tgread estimates from the tape.
	checked := 0
	for _, s := range starts[12:] {
		if s%60 != 0 || s+60 > starts[len(starts)-1]+10 {
			continue
		}
		end := (s + 60) * 1000
		got := prom.instantAt(`histogram_quantile(0.99, sum by (le) (rate(size_bucket[70s])))`, time.UnixMilli(end))
		from := time.Unix(s, 0).UTC().Format(time.RFC3339)
		to := time.Unix(s+60, 0).UTC().Format(time.RFC3339)
		out, err := exec.Command("tgread", "--format", "tsv", "--quantile", "0.99", "--step", "1m", "--from", from, "--to", to, st).Output()
		if err != nil {
			t.Fatalf("tgread: %v", err)
		}
		rows := strings.Split(strings.TrimSpace(string(out)), "\n")
		if len(rows) != 2 {
			t.Fatalf("tgread --quantile from %s to %s: %q, want one row", from, to, out)
		}
		f := strings.Split(rows[1], "\t")
		q, _ := strconv.ParseFloat(f[3], 64)
		if len(got) != 1 || math.Abs(got["{}"]-q) > 1e-9*q || q <= 1000 || q >= 2000 {
			t.Errorf("from %s: histogram_quantile of rate(size_bucket[70s]) at the minute's end %v, tgread --quantile 0.99 %v (want equal, between the bounds 1000 and 2000)", from, got, q)
		}
		checked++
	}
	if checked < 5 {
		t.Fatalf("%d minutes checked, want at least 5", checked)
	}
	t.Logf("%d buckets' counters equal the log's running sums; %d minutes' rate() quantiles equal tgread's", len(starts)+1, checked)
}

func mapsEqual(a, b map[string]float64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// rewindCursor rewrites a tgpush cursor (the test's own reading of its
// newest record, written back as one line, as an earlier tgpush wrote
// it) to stand just past the tape's first seal, with zeroed= as
// given: the cursor a kill leaves when it lands after the second group's
// samples were taken and before the cursor moved past them.
func rewindCursor(t *testing.T, cursor, st string, zeroed int) {
	t.Helper()
	tape := string(readFile(t, filepath.Join(st, "tape")))
	i := strings.Index(tape, "\nseal ")
	if i < 0 {
		t.Fatal("the tape has no seal")
	}
	end := i + 1 + strings.IndexByte(tape[i+1:], '\n') + 1
	bucket := strings.Fields(tape[i+1:])[1]
	c := cursorLine(readFile(t, cursor)) + "\n"
	c = regexp.MustCompile(`offset=\d+`).ReplaceAllString(c, "offset="+strconv.Itoa(end))
	c = regexp.MustCompile(`bucket=\S+`).ReplaceAllString(c, "bucket="+bucket)
	c = regexp.MustCompile(`zeroed=\d`).ReplaceAllString(c, "zeroed="+strconv.Itoa(zeroed))
	writeFile(t, cursor, []byte(c))
}

func TestACountersPushKilledAfterANewSeriesTotalWasTakenSendsItAgainWithoutItsZeroAndIsTaken(t *testing.T) {
	prom := newReceiver(t, "prometheus3")
	prom.start()
	dir := t.TempDir()
	log := filepath.Join(dir, "access.log")
	// Two buckets: the second has a status the first has not, a series
	// born there, whose zero goes at the first bucket's last millisecond.
	start := time.Now().UTC().Add(-2 * time.Minute).Truncate(shapesWidth)
	var b strings.Builder
	for i, status := range []int{200, 200, 200, 500} {
		at := start.Add(time.Duration(i) * shapesWidth / 2).Format("02/Jan/2006:15:04:05 -0700")
		fmt.Fprintf(&b, "10.0.0.1 - - [%s] \"GET / HTTP/1.1\" %d 100 \"-\" \"live\"\n", at, status)
	}
	writeFile(t, log, []byte(b.String()))
	st := shapesStore(t, dir, log)
	cursor := filepath.Join(dir, "push.cursor")
	push := []string{"tgpush", "--once", "--counters", "--url", prom.writeURL(), "--cursor", cursor, st}
	mustRun(t, dir, push...)
	before := prom.samples("", "")
	if !slices.Contains(before, time.UnixMilli(start.Add(shapesWidth).UnixMilli()-1).UTC().Format(stampFormat)+"\trequests_total\tstatus=500\t0") {
		t.Fatalf("no zero of requests_total{status=500} at the first bucket's last millisecond:\n%s", strings.Join(before, "\n"))
	}

	// The kill after the second group's totals were taken: the cursor says
	// its zeros were taken (they go first, recorded), so only the totals
	// are sent again, the newest samples of their series: duplicates.
	rewindCursor(t, cursor, st, 1)
	mustRun(t, dir, push...)
	if after := prom.samples("", ""); !slices.Equal(after, before) {
		t.Fatalf("the receiver holds other samples after the re-send:\n%s\nwant\n%s", strings.Join(after, "\n"), strings.Join(before, "\n"))
	}

	// What the cursor's zeroed= prevents: the zero sent again, older than
	// the series' total already taken, which Prometheus refuses.
	rewindCursor(t, cursor, st, 0)
	stderr, code := run(t, dir, push...)
	if code != 1 || !strings.Contains(stderr, "out of order") {
		t.Fatalf("a zero re-sent after its total: exit %d, %s; want Prometheus' out-of-order refusal", code, stderr)
	}
	t.Logf("%d samples, each once; the zero re-sent is refused: %s", len(before), strings.TrimSpace(stderr)[:min(len(stderr), 160)])
}

// otlpKey is a key of logBuckets for a series Prometheus made of OTLP
// points: without the host label, its le as logBuckets spells it
// (Prometheus' OTLP translation writes 250, not the canonical 250.0).
func otlpKey(k string) string {
	k = regexp.MustCompile(`host=web1,?|,host=web1`).ReplaceAllString(k, "")
	return regexp.MustCompile(`le=([0-9.]+)`).ReplaceAllStringFunc(k, func(m string) string {
		f, _ := strconv.ParseFloat(strings.TrimPrefix(m, "le="), 64)
		return fmt.Sprintf("le=%.1f", f)
	})
}

func TestTgpushOTLPIntoPrometheus3KilledAtRandomMomentsHoldsEachBucketOnceAtItsBoundary(t *testing.T) {
	prom := newReceiver(t, "prometheus3", "--web.enable-otlp-receiver", "--enable-feature=otlp-native-delta-ingestion")
	prom.config = "global: {}\notlp:\n  promote_resource_attributes: [host]\n"
	prom.start()
	dir, st, want, starts := shapesSetup(t)
	kills := killPushes(t, dir, []string{"tgpush", "--once", "--protocol", "otlp", "--label", "host=web1", "--max-samples", "5",
		"--url", prom.base() + "/api/v1/otlp/v1/metrics", "--cursor", "push.cursor", st})
	killFloor(t, 1, 1, kills, 3)

	// At each bucket's end, a range of one width holds its delta points:
	// the log's values of that bucket, each once.
	names := []string{"requests_total", "bytes_total", "size_bucket", "size_count", "size_sum",
		"timbertally_entries_total", "timbertally_late_entries_total", "timbertally_dropped_entries_total"}
	// sumOverTime is sum_over_time(NAME{host="web1"}[r]) at ms for every
	// name (a query a name: the function drops the name).
	sumOverTime := func(r string, ms int64) map[string]float64 {
		got := map[string]float64{}
		for _, n := range names {
			for k, v := range prom.instantAt("sum_over_time("+n+`{host="web1"}[`+r+"])", time.UnixMilli(ms)) {
				got[otlpKey(n+k)] = v
			}
		}
		return got
	}
	width := int64(shapesWidth / time.Millisecond)
	total := map[string]float64{}
	for _, s := range starts {
		expect := map[string]float64{"timbertally_late_entries_total{}": 0}
		for k, v := range want[s] {
			expect[k] = v
			total[k] += v
		}
		got := sumOverTime("10s", s*1000+width)
		if !mapsEqual(got, expect) {
			t.Fatalf("sum_over_time(…[10s]) at the end of the bucket at %s: got\n%v\nwant\n%v", time.Unix(s, 0).UTC().Format(time.RFC3339), got, expect)
		}
	}
	// Over the whole tape: the log's totals, so no point was sent twice
	// at another time either.
	end := starts[len(starts)-1]*1000 + width
	span := fmt.Sprintf("%ds", (end/1000-starts[0])+10)
	got := sumOverTime(span, end)
	total["timbertally_late_entries_total{}"] = 0
	if !mapsEqual(got, total) {
		t.Fatalf("sum_over_time over the whole tape: got\n%v\nwant the log's\n%v", got, total)
	}
	t.Logf("%d buckets, each once at its boundary, after %d kills; %v requests in the log", len(starts), kills, total["timbertally_entries_total{}"])
}

func TestRunsThatSealNothingButDropsReachPrometheus3AsCountersAndByOTLPEachOnce(t *testing.T) {
	prom := newReceiver(t, "prometheus3", "--web.enable-otlp-receiver", "--enable-feature=otlp-native-delta-ingestion")
	prom.config = "global: {}\notlp:\n  promote_resource_attributes: [host]\n"
	prom.start()
	dir := t.TempDir()
	log := filepath.Join(dir, "access.log")
	shapesLog(t, log, 300)
	want := logBuckets(t, log) // before the runs that only drop
	doc := filepath.Join(dir, "shapes.tally")
	writeFile(t, doc, []byte(shapesDoc))
	st := filepath.Join(dir, "st")
	mustRun(t, dir, "tally", "--provision", "--doc", doc, st)
	counters := []string{"tgpush", "--once", "--counters", "--label", "host=a", "--max-samples", "2", "--url", prom.writeURL(), st}
	otlp := []string{"tgpush", "--once", "--protocol", "otlp", "--label", "host=b", "--max-samples", "2", "--url", prom.base() + "/api/v1/otlp/v1/metrics", st}
	// A cron job: each run reads what the log gained and pushes; after
	// the first, the log gains only lines that are no Apache line, so
	// each later run seals nothing and ends with its drops alone: a
	// marker-only group, the k-th after the last bucket.
	drops := []int{0, 3, 2, 4}
	for i, n := range drops {
		f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		for range n {
			fmt.Fprintln(f, "a line that is no Apache line")
		}
		f.Close()
		mustRun(t, dir, "feed", "-q", "--cursor", "feed.cursor", log, "--", "tally", "--run", st)
		mustRun(t, dir, counters...)
		mustRun(t, dir, otlp...)
		if i > 0 && !strings.Contains(string(readFile(t, filepath.Join(st, "tape"))), fmt.Sprintf("count=%d reason=format\nend ", n)) {
			t.Fatalf("run %d: the tape does not end with its !drop of %d and an end record", i, n)
		}
	}
	var inBuckets float64
	for _, b := range want {
		inBuckets += b["timbertally_dropped_entries_total{reason=format}"]
	}
	total := inBuckets + 9
	// Counters: the newest total is every drop, and the marker-only runs'
	// totals are at 1, 2 and 3 ms after the last bucket's last millisecond.
	starts := sortedBuckets(want)
	last := starts[len(starts)-1]*1000 + int64(shapesWidth/time.Millisecond) - 1
	var got []string
	for _, s := range prom.samples("", "") {
		if strings.Contains(s, "\ttimbertally_dropped_entries_total\thost=a,") {
			got = append(got, s)
		}
	}
	for k, v := range []float64{inBuckets + 3, inBuckets + 5, total} {
		at := time.UnixMilli(last + int64(k) + 1).UTC().Format(stampFormat)
		if w := at + "\ttimbertally_dropped_entries_total\thost=a,reason=format\t" + strconv.FormatFloat(v, 'f', -1, 64); !slices.Contains(got, w) {
			t.Errorf("no %q among the counters' drops:\n%s", w, strings.Join(got, "\n"))
		}
	}
	// OTLP: the delta points add up to every drop, each once.
	end := time.UnixMilli(last + 1 + 10)
	sum := prom.instantAt(`sum(sum_over_time(timbertally_dropped_entries_total{host="b"}[1h]))`, end)
	if sum["{}"] != total {
		t.Errorf("OTLP: the drops' points add up to %v, want %v", sum, total)
	}
	points := 3.0 // the three runs', a millisecond each after the bucket's end
	if want[starts[len(starts)-1]]["timbertally_dropped_entries_total{reason=format}"] > 0 {
		points++ // and the last bucket's own
	}
	n := prom.instantAt(`count_over_time(timbertally_dropped_entries_total{host="b"}[2s])`, end)
	if len(n) != 1 || n["{host=b,reason=format}"] != points {
		t.Errorf("OTLP: %v points of the drops within 2 s of the last bucket's end, want %v", n, points)
	}
	t.Logf("%v drops, %v of them in runs that sealed nothing, in both shapes", total, 9)
}
