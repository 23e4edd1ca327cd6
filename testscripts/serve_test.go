package testscripts

import (
	"bufio"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// scrapeOnly starts a Prometheus without a remote-write receiver (its
// default) that scrapes target every second, as job tgserve.
func scrapeOnly(t *testing.T, kind, target string) *receiver {
	t.Helper()
	r := newReceiver(t, kind)
	r.scrape = true
	r.config = fmt.Sprintf("global: {scrape_interval: 1s, scrape_timeout: 1s}\nscrape_configs:\n  - job_name: tgserve\n    static_configs: [{targets: [%q]}]\n", target)
	r.start()
	return r
}

// instant evaluates expr now (instantAt).
func (r *receiver) instant(expr string) map[string]float64 {
	r.t.Helper()
	return r.instantAt(expr, time.Now())
}

func seriesKey(m map[string]string) string {
	var labels []string
	for k, v := range m {
		if k != "__name__" && k != "job" && k != "instance" {
			labels = append(labels, k+"="+v)
		}
	}
	slices.Sort(labels)
	return m["__name__"] + "{" + strings.Join(labels, ",") + "}"
}

// serveDoc is liveDoc with a histogram of the response size, whose
// bounds leave as 250.0, 500.0 and 1000.0.
const serveDoc = liveDoc + "metric size histogram=bytes buckets=250,500,1000\n"

// logTotals computes, from the log's text alone, what every counter of
// tgserve must read once the tape accounts for every line: per status the
// entries and their bytes, the size histogram's cumulative buckets, the
// entries, and the lines that are no Apache line (dropped). It parses the
// lines the writer writes; a regular expression, not the toolkit's code.
func logTotals(t *testing.T, path, store string) map[string]float64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	entry := regexp.MustCompile(`^\S+ - - \[[^]]+\] "GET \S+ HTTP/1\.1" (\d+) (\d+) "-" "live"$`)
	want := map[string]float64{}
	add := func(name, labels string, v float64) {
		if labels != "" {
			labels += ","
		}
		want[name+"{"+labels+"tally_store="+store+"}"] += v
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := entry.FindStringSubmatch(sc.Text())
		if m == nil {
			add("timbertally_dropped_entries_total", "reason=format", 1)
			continue
		}
		size, _ := strconv.ParseFloat(m[2], 64)
		add("requests_total", "status="+m[1], 1)
		add("bytes_total", "status="+m[1], size)
		add("timbertally_entries_total", "", 1)
		for _, le := range []float64{250, 500, 1000} {
			if size <= le {
				add("size_bucket", fmt.Sprintf("le=%.1f", le), 1)
			} else {
				add("size_bucket", fmt.Sprintf("le=%.1f", le), 0)
			}
		}
		add("size_bucket", "le=+Inf", 1)
		add("size_count", "", 1)
		add("size_sum", "", size)
	}
	want["timbertally_late_entries_total{tally_store="+store+"}"] += 0
	return want
}

func TestAScrapeOnlyPrometheusReadsTgservesCountersAsTheLogsTotalsAndARestartedTgserveResetsNone(t *testing.T) {
	serve := bin(t, "tgserve")
	port := freePort(t)
	target := fmt.Sprintf("127.0.0.1:%d", port)
	prom := scrapeOnly(t, "prometheus", target)
	dir := t.TempDir()
	log := filepath.Join(dir, "access.log")
	writeFile(t, filepath.Join(dir, "serve.tally"), []byte(serveDoc))
	st := filepath.Join(dir, "web")
	mustRun(t, dir, "tally", "--provision", "--doc", filepath.Join(dir, "serve.tally"), st)
	w := startWriter(t, log)
	waitUntil(t, "the writer's first lines", func() bool { return w.lines.Load() > 0 })
	feed := startCmd(t, dir, "feed.err", "feed", "-q", "--follow", "--idle-tick", "100ms", "--cursor", "feed.cursor", log, "--", "tally", "--run", st)
	argv := []string{serve, "--listen", target, "--poll", "50ms", st}
	up := func() bool { return prom.instant(`up{job="tgserve"}`)["up{}"] == 1 }

	// Kill -9 tgserve at random moments while the tape grows, each time
	// after Prometheus scraped it at least once, and start it again.
	seed := uint64(time.Now().UnixNano())
	rng := mrand.New(mrand.NewPCG(seed, 30))
	kills, began := 0, time.Now()
	for range 4 {
		p := startCmd(t, dir, "serve.err", argv...)
		waitUntil(t, "a scrape of tgserve", up)
		time.Sleep(time.Duration(500+rng.IntN(1500)) * time.Millisecond) // a random moment: the point of the test
		p.Process.Kill()
		p.Wait()
		kills++
		waitUntil(t, "Prometheus to see tgserve down", func() bool { return !up() })
	}
	p := startCmd(t, dir, "serve.err", argv...)
	written := w.halt()
	t.Logf("%s: the writer stopped", time.Since(began))
	waitUntil(t, "the tape to account for every line", func() bool {
		_, entries, late, dropped, _ := tapeAccounts(t, st)
		return entries+late+dropped == float64(written)
	})
	t.Logf("%s: the tape accounts for every line", time.Since(began))
	want := logTotals(t, log, "web")
	var got map[string]float64
	query := `{job="tgserve",tally_store="web",__name__=~".+_total|size_(bucket|count|sum)"}`
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if got = prom.instant(query); fmt.Sprint(got) == fmt.Sprint(want) {
			break
		}
		if time.Now().After(deadline) {
			notes, _ := os.ReadFile(filepath.Join(dir, "serve.err"))
			t.Fatalf("after the last seal Prometheus reads\n%v\nbut the log says\n%v\ntgserve's stderr:\n%s", got, want, notes)
		}
	}
	// resets() drops the name, so it is asked of one metric at a time.
	resets := map[string]float64{}
	for name := range names(want) {
		for s, n := range prom.instant(`resets(` + name + `{job="tgserve",tally_store="web"}[1h])`) {
			resets[name+s] = n
		}
	}
	if len(resets) != len(want) {
		t.Errorf("resets() over %d series, want %d", len(resets), len(want))
	}
	for s, n := range resets {
		if n != 0 {
			t.Errorf("resets(%s[1h]) = %v, want 0", s, n)
		}
	}
	feed.Process.Signal(syscall.SIGTERM)
	feed.Wait()
	p.Process.Signal(syscall.SIGTERM)
	if err := p.Wait(); err != nil {
		t.Errorf("tgserve stopped by SIGTERM: %v", err)
	}
	t.Logf("seed %d: %d lines, %d kills -9 of tgserve, %d series equal to the log's totals, none reset", seed, written, kills, len(want))
	if kills != 4 {
		t.Errorf("%d kills, want 4", kills)
	}
}

// names is the set of metric names of series keyed by seriesKey.
func names(series map[string]float64) map[string]bool {
	out := map[string]bool{}
	for s := range series {
		name, _, _ := strings.Cut(s, "{")
		out[name] = true
	}
	return out
}
