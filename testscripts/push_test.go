package testscripts

import (
	"bufio"
	"bytes"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// pushLog writes n Apache lines at 5 a second of log time that end about a
// minute ago, so that every bucket is inside a Prometheus head's window
// (older samples are refused as out of bounds), 1% of them malformed (so
// !drop markers appear).
func pushLog(t *testing.T, path string, n int) {
	t.Helper()
	start := time.Now().UTC().Add(-time.Minute - time.Duration(n)*time.Second/5).Truncate(time.Second)
	synthesize(t, path, "--seed", "16", "--lines", strconv.Itoa(n), "--rate", "5", "--steady", "--malformed", "0.01", "--start", start.Format(time.RFC3339))
}

// pipeline makes a tally store from the log in one complete run.
func pipeline(t *testing.T, dir, log string) string {
	t.Helper()
	st := filepath.Join(dir, "st")
	mustRun(t, dir, "tally", "--provision", "--doc", "apache-combined", st)
	mustRun(t, dir, "feed", "-q", log, "--", "tally", "--run", st)
	return st
}

// tapeRows is what a receiver must hold of the store: the rows tgread
// --format tsv says it holds (tsvRows), each at its bucket's last
// millisecond, where tgpush stamps a bucket's samples.
func tapeRows(t *testing.T, st string) []string {
	t.Helper()
	return stamped(t, tsvRows(t, st), storeWidth(t, st))
}

// stampFormat is how the tests spell a sample's time: RFC 3339 in UTC with
// milliseconds.
const stampFormat = "2006-01-02T15:04:05.000Z07:00"

// stamped moves each tsv row's time from its bucket's start to the
// bucket's last millisecond (start + width - 1 ms), sorted.
func stamped(t *testing.T, rows []string, width time.Duration) []string {
	t.Helper()
	out := make([]string, 0, len(rows))
	for _, r := range rows {
		ts, rest, _ := strings.Cut(r, "\t")
		start, err := time.Parse(time.RFC3339Nano, ts)
		if err != nil {
			t.Fatalf("row %q: %v", r, err)
		}
		out = append(out, start.Add(width-time.Millisecond).UTC().Format(stampFormat)+"\t"+rest)
	}
	sort.Strings(out)
	return out
}

// storeWidth is the window of a tally store's document.
func storeWidth(t *testing.T, st string) time.Duration {
	t.Helper()
	for _, line := range strings.Split(string(readFile(t, filepath.Join(st, "document"))), "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "window" {
			w, err := time.ParseDuration(f[1])
			if err != nil {
				t.Fatal(err)
			}
			return w
		}
	}
	t.Fatalf("%s/document has no window line", st)
	return 0
}

// tsvRows is what tgread --format tsv says the store holds, without its
// header: each row at its bucket's start.
func tsvRows(t *testing.T, st string) []string {
	t.Helper()
	out, err := exec.Command("tgread", "--format", "tsv", st).Output()
	if err != nil {
		t.Fatalf("tgread: %v", err)
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")[1:]
	sort.Strings(lines)
	return lines
}

// splitQuality separates the data-quality series (timbertally_*) from the
// tape's.
func splitQuality(samples []string) (series, quality []string) {
	for _, s := range samples {
		if strings.Contains(s, "\ttimbertally_") {
			quality = append(quality, s)
		} else {
			series = append(series, s)
		}
	}
	return series, quality
}

// sameRows fails unless the receiver's samples are the tape's, value for
// value and timestamp for timestamp.
func sameRows(t *testing.T, got, want []string) {
	t.Helper()
	if len(want) == 0 {
		t.Fatal("the tape has no rows: the test proves nothing")
	}
	g, w := strings.Join(got, "\n"), strings.Join(want, "\n")
	if g == w {
		t.Logf("the receiver holds the tape's %d rows, value for value", len(want))
		return
	}
	gs, ws := map[string]bool{}, map[string]bool{}
	for _, l := range got {
		gs[l] = true
	}
	for _, l := range want {
		ws[l] = true
	}
	var missing, extra []string
	for _, l := range want {
		if !gs[l] {
			missing = append(missing, l)
		}
	}
	for _, l := range got {
		if !ws[l] {
			extra = append(extra, l)
		}
	}
	t.Fatalf("the receiver holds %d samples, the tape %d rows; missing %d (first %q), extra %d (first %q)",
		len(got), len(want), len(missing), first(missing), len(extra), first(extra))
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

// countLines counts the lines of a file, and those starting with prefix.
func countLines(t *testing.T, path, prefix string) (all, matching int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		all++
		if bytes.HasPrefix(sc.Bytes(), []byte(prefix)) {
			matching++
		}
	}
	return all, matching
}

// checkQuality checks the data-quality samples against counts made apart
// from tgpush: every line of the log is an entry placed, late or dropped,
// and there is one timbertally_entries sample per seal line of the tape.
func checkQuality(t *testing.T, quality []string, log, st string) {
	t.Helper()
	lines, _ := countLines(t, log, "")
	_, seals := countLines(t, filepath.Join(st, "tape"), "seal ")
	sums := map[string]float64{}
	n := map[string]int{}
	for _, q := range quality {
		f := strings.Split(q, "\t")
		v, err := strconv.ParseFloat(f[3], 64)
		if err != nil {
			t.Fatal(err)
		}
		sums[f[1]] += v
		n[f[1]]++
	}
	if n["timbertally_entries"] != seals {
		t.Errorf("%d timbertally_entries samples, want one per seal: %d", n["timbertally_entries"], seals)
	}
	got := sums["timbertally_entries"] + sums["timbertally_late_entries"] + sums["timbertally_dropped_entries"]
	if got != float64(lines) || sums["timbertally_dropped_entries"] == 0 {
		t.Errorf("entries %v + late %v + dropped %v = %v, want the log's %d lines (with some dropped)",
			sums["timbertally_entries"], sums["timbertally_late_entries"], sums["timbertally_dropped_entries"], got, lines)
	}
	if math.IsNaN(got) {
		t.Error("NaN")
	}
}

func TestAOneShotPipelineThenTgpushOnceLeavesPrometheusHoldingExactlyTheTape(t *testing.T) {
	prom, dir, log, st := startedWithStore(t, "prometheus", "access.log", 1500)
	// Small requests, so that the push crosses many request boundaries.
	mustRun(t, dir, "tgpush", "--once", "--max-samples", "100", "--url", prom.writeURL(), st)
	series, quality := splitQuality(prom.samples("", ""))
	sameRows(t, series, tapeRows(t, st))
	checkQuality(t, quality, log, st)

	// A second --once finds nothing new and sends nothing twice.
	mustRun(t, dir, "tgpush", "--once", "--url", prom.writeURL(), st)
	again, _ := splitQuality(prom.samples("", ""))
	sameRows(t, again, series)
}

func TestTgpushOnceBackfillsVictoriaMetricsWithExactlyTheTapeAndTheFleetLabel(t *testing.T) {
	vm, dir, log, st := startedWithStore(t, "victoria-metrics", "access.log", 1500)
	mustRun(t, dir, "tgpush", "--once", "-q", "--label", "host=web1", "--url", vm.writeURL(), st)
	series, quality := splitQuality(vm.samples("", ""))
	var want []string
	for _, r := range tapeRows(t, st) {
		f := strings.Split(r, "\t")
		// host sorts before status: the labels column stays sorted by name.
		f[2] = strings.TrimSuffix("host=web1,"+f[2], ",")
		want = append(want, strings.Join(f, "\t"))
	}
	sort.Strings(want)
	sameRows(t, series, want)
	checkQuality(t, quality, log, st)
}

// synthFile writes n lines of tgsynth's default October log time.
func synthFile(t *testing.T, path string, n int) {
	synthesize(t, path, "--seed", "1", "--lines", strconv.Itoa(n))
}

// withLabel puts host=HOST first among a tsv row's labels (host sorts
// before status).
func withLabel(rows []string, host string) []string {
	var out []string
	for _, r := range rows {
		f := strings.Split(r, "\t")
		f[2] = strings.TrimSuffix("host="+host+","+f[2], ",")
		out = append(out, strings.Join(f, "\t"))
	}
	return out
}

func TestAFleetLandsApartInOneReceiverByItsHostLabelAndWithoutOneIsRefusedNamingTheLabel(t *testing.T) {
	prom := newReceiver(t, "prometheus")
	prom.start()
	var stores []string
	for _, name := range []string{"web1", "web2"} {
		dir := filepath.Join(t.TempDir(), name)
		os.Mkdir(dir, 0o755)
		log := filepath.Join(dir, "access.log")
		// The same buckets on both hosts, with other counts: web2's 200s
		// are 404s.
		pushLog(t, log, 600)
		if name == "web2" {
			data, _ := os.ReadFile(log)
			writeFile(t, log, bytes.ReplaceAll(data, []byte(`" 200 `), []byte(`" 404 `)))
		}
		st := pipeline(t, dir, log)
		mustRun(t, dir, "tgpush", "--once", "-q", "--label", "host="+name, "--url", prom.writeURL(), st)
		stores = append(stores, st)
	}
	series, _ := splitQuality(prom.samples("", ""))
	want := append(withLabel(tapeRows(t, stores[0]), "web1"), withLabel(tapeRows(t, stores[1]), "web2")...)
	sort.Strings(want)
	sameRows(t, series, want)

	// Without labels the two hosts' series are one: the second is refused.
	mustRun(t, "", "tgpush", "--once", "-q", "--cursor", filepath.Join(t.TempDir(), "c1"), "--url", prom.writeURL(), stores[0])
	stderr, code := run(t, "", "tgpush", "--once", "--cursor", filepath.Join(t.TempDir(), "c2"), "--url", prom.writeURL(), stores[1])
	if code != 1 || !strings.Contains(stderr, "another store pushes the same series (give each its own --label, such as host=") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

// docsQuery is the PromQL block of docs/tgpush.md that holds marker, as
// printed (its indented lines, joined).
func docsQuery(t *testing.T, marker string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "docs", "tgpush.md"))
	if err != nil {
		t.Fatal(err)
	}
	var block []string
	for _, l := range strings.Split(string(data), "\n") {
		switch {
		case strings.HasPrefix(l, "    "):
			block = append(block, strings.TrimSpace(l))
		default:
			if q := strings.Join(block, " "); strings.Contains(q, marker) {
				return q
			}
			block = nil
		}
	}
	t.Fatalf("docs/tgpush.md has no query block with %q", marker)
	return ""
}

func TestTheDocsConservationQueryAsPrintedCountsEveryLineOfALogPushedWithALabel(t *testing.T) {
	prom, dir, log, st := startedWithStore(t, "prometheus", "access.log", 1500)
	mustRun(t, dir, "tgpush", "--once", "-q", "--label", "host=web1", "--url", prom.writeURL(), st)
	q := docsQuery(t, "sum_over_time(timbertally_entries[1h])")
	lines, _ := countLines(t, log, "")
	got, ok := prom.query(q, time.Now())
	if !ok || got != float64(lines) {
		t.Fatalf("the docs' query\n%s\nanswers %v (a value: %v); the log has %d lines", q, got, ok, lines)
	}
	t.Logf("%s = %v, the log's %d lines", q, got, lines)
}
