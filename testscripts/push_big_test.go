package testscripts

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// bigBucketsLog writes an Apache combined log of three minutes from start
// whose first two each have 45 000 distinct paths (some requested twice):
// a by=path document makes each minute's group over 2 MB of tape, more
// than tgpush reads at once.
func bigBucketsLog(t *testing.T, path string, start time.Time) {
	t.Helper()
	var b strings.Builder
	for m := range 3 {
		paths := 45000
		if m == 2 {
			paths = 50
		}
		for p := range paths {
			at := start.Add(time.Duration(m)*time.Minute + time.Duration(p%60)*time.Second)
			for range 1 + p%7/6 { // one path in seven twice
				fmt.Fprintf(&b, `10.0.%d.%d - - [%s] "GET /m%d/p%06d HTTP/1.1" 200 %d "-" "curl/8"`+"\n",
					p%200, p%250, at.Format("02/Jan/2006:15:04:05 -0700"), m, p, 100+p%900)
			}
		}
	}
	writeFile(t, path, []byte(b.String()))
}

// A store whose buckets each hold 45 000 series (two groups larger than
// tgpush's read, each sent in parts, each part in requests two at a time)
// pushed into each receiver, tgpush killed -9 at random moments: the
// receiver holds exactly the log's count per minute and path, as awk
// counts them. Prometheus takes a re-sent part only as the duplicate of
// each series' newest sample: nothing of a later group was sent before.
func TestBucketsLargerThanTgpushsReadReachEachReceiverExactlyAcrossKills(t *testing.T) {
	for _, kind := range []string{"victoria-metrics", "prometheus"} {
		t.Run(kind, func(t *testing.T) { bigBucketsAcrossKills(t, kind) })
	}
}

func bigBucketsAcrossKills(t *testing.T, kind string) {
	r := newReceiver(t, kind)
	r.start()
	dir := t.TempDir()
	log := filepath.Join(dir, "access.log")
	// Inside a Prometheus head's window: minutes that ended a little ago.
	start := time.Now().UTC().Add(-10 * time.Minute).Truncate(time.Minute)
	bigBucketsLog(t, log, start)
	st := filepath.Join(dir, "st")
	writeFile(t, filepath.Join(dir, "doc"), []byte("format apache-combined\nwindow 1m\ncap 100000\nmetric requests count by=path\n"))
	mustRun(t, dir, "tally", "--provision", "--doc", "doc", st)
	mustRun(t, dir, "feed", "-q", log, "--", "tally", "--run", st)
	if fi, err := os.Stat(filepath.Join(st, "tape")); err != nil || fi.Size() < 4<<20 {
		t.Fatalf("the tape is %v bytes (%v), want two groups of over 2 MiB", fi.Size(), err)
	}

	kills := killPushes(t, dir, []string{"tgpush", "--once", "--max-samples", "2000", "--url", r.writeURL(), "--cursor", "push.cursor", st})
	killFloor(t, 1, 1, kills, 3)

	// awk's count per minute and path, at the minute's last millisecond,
	// the minute read whole from each line's own time (the three minutes
	// may cross an hour or a day).
	awk := exec.Command("awk", `BEGIN { split("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec", m, " "); for (i in m) mon[m[i]] = sprintf("%02d", i) }
		{ split($4, t, ":"); split(substr(t[1], 2), d, "/"); n[d[3] "-" mon[d[2]] "-" d[1] "T" t[2] ":" t[3] " " $7]++ }
		END { for (k in n) { split(k, f, " "); printf "%s:59.999Z\trequests\tpath=%s\t%d\n", f[1], f[2], n[k] } }`, log)
	out, err := awk.Output()
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(strings.TrimSpace(string(out)), "\n")
	sort.Strings(want)
	series, _ := splitQuality(r.samples("", ""))
	if len(want) < 90000 {
		t.Fatalf("awk counted %d (minute, path) pairs, want over 90 000", len(want))
	}
	sameRows(t, series, want)
}
