package testscripts

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// bigBucketsLog writes an Apache combined log of three minutes whose
// first two each have 45 000 distinct paths (some requested twice): a
// by=path document makes each minute's group over 2 MB of tape, more than
// tgpush reads at once.
func bigBucketsLog(t *testing.T, path string) {
	t.Helper()
	var b strings.Builder
	for m := range 3 {
		paths := 45000
		if m == 2 {
			paths = 50
		}
		for p := range paths {
			for range 1 + p%7/6 { // one path in seven twice
				fmt.Fprintf(&b, `10.0.%d.%d - - [01/Dec/2026:10:%02d:%02d +0000] "GET /m%d/p%06d HTTP/1.1" 200 %d "-" "curl/8"`+"\n",
					p%200, p%250, m, p%60, m, p, 100+p%900)
			}
		}
	}
	writeFile(t, path, []byte(b.String()))
}

// A store whose buckets each hold 45 000 series (two groups larger than
// tgpush's read) pushed into VictoriaMetrics, tgpush killed -9 at random
// moments: the receiver holds exactly the log's count per minute and path,
// as awk counts them.
func TestBucketsLargerThanTgpushsReadReachVictoriaMetricsExactlyAcrossKills(t *testing.T) {
	vm := newReceiver(t, "victoria-metrics")
	vm.start()
	dir := t.TempDir()
	log := filepath.Join(dir, "access.log")
	bigBucketsLog(t, log)
	st := filepath.Join(dir, "st")
	writeFile(t, filepath.Join(dir, "doc"), []byte("format apache-combined\nwindow 1m\ncap 100000\nmetric requests count by=path\n"))
	mustRun(t, dir, "tally", "--provision", "--doc", "doc", st)
	mustRun(t, dir, "feed", "-q", log, "--", "tally", "--run", st)
	if fi, err := os.Stat(filepath.Join(st, "tape")); err != nil || fi.Size() < 4<<20 {
		t.Fatalf("the tape is %v bytes (%v), want two groups of over 2 MiB", fi.Size(), err)
	}

	kills := killPushes(t, dir, []string{"tgpush", "--once", "--max-samples", "2000", "--url", vm.writeURL(), "--cursor", "push.cursor", st})
	killFloor(t, 1, 1, kills, 3)

	// awk's count per minute and path, at the minute's last millisecond.
	awk := exec.Command("awk", `{ split($4, t, ":"); n[t[3] " " $7]++ } END { for (k in n) { split(k, f, " "); printf "2026-12-01T10:%s:59.999Z\trequests\tpath=%s\t%d\n", f[1], f[2], n[k] } }`, log)
	out, err := awk.Output()
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(strings.TrimSpace(string(out)), "\n")
	sort.Strings(want)
	series, _ := splitQuality(vm.samples("", ""))
	if len(want) < 90000 {
		t.Fatalf("awk counted %d (minute, path) pairs, want over 90 000", len(want))
	}
	sameRows(t, series, want)
}
