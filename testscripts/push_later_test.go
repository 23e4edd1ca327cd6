package testscripts

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// laterLines are records of kinds a later tally may add: well formed (a
// kind word, then key=value words), and of no kind this version knows.
const laterLines = "identity id=access.log dev=1 ino=2\n!mark at=access.log:0 why=test\n"

// rowsAfter is what the tape's text says a receiver must hold of the
// groups from byte off on, worked out apart from tgpush and tgread: one
// tgread-tsv row per series line, and per seal its entries= count.
func rowsAfter(t *testing.T, tp []byte, off int) (rows []string, seals int, entries float64) {
	t.Helper()
	series := regexp.MustCompile(`^(\d\S+) ([a-z_]+)(?:\{(.*)\})? (\S+)$`)
	label := regexp.MustCompile(`([a-z_]+)="([^"]*)"`)
	for _, line := range strings.Split(strings.TrimSuffix(string(tp[off:]), "\n"), "\n") {
		if m := series.FindStringSubmatch(line); m != nil {
			var ls []string
			for _, l := range label.FindAllStringSubmatch(m[3], -1) {
				ls = append(ls, l[1]+"="+l[2])
			}
			sort.Strings(ls)
			rows = append(rows, strings.Join([]string{m[1], m[2], strings.Join(ls, ","), m[4]}, "\t"))
		}
		if f := strings.Fields(line); len(f) > 3 && f[0] == "seal" {
			n, err := strconv.Atoi(strings.TrimPrefix(f[3], "entries="))
			if err != nil {
				t.Fatalf("seal line %q: %v", line, err)
			}
			seals++
			entries += float64(n)
		}
	}
	return stamped(t, rows, 10*time.Second), seals, entries // apache-combined's 10 s window
}

// A tape with well-formed lines of kinds this version does not know, in
// its middle and after its last seal: tally resumes on it and appends
// after them, tgpush --from end starts just past the last seal (reading
// backwards, it passes over them as the forward follower does), and
// Prometheus then holds exactly the groups appended since, over many
// buckets, as the tape's own text counts them.
func TestFromEndOnATapeWithLaterKindsStartsAtTheLastSealAndPushesExactlyWhatFollows(t *testing.T) {
	prom := newReceiver(t, "prometheus")
	prom.start()
	dir := t.TempDir()
	whole, log := filepath.Join(dir, "whole.log"), filepath.Join(dir, "access.log")
	pushLog(t, whole, 1200)
	lines, err := os.ReadFile(whole)
	if err != nil {
		t.Fatal(err)
	}
	half := bytes.Index(lines[len(lines)/2:], []byte("\n")) + len(lines)/2 + 1
	writeFile(t, log, lines[:half])
	st := pipeline(t, dir, log)

	tp := filepath.Join(st, "tape")
	data, err := os.ReadFile(tp)
	if err != nil {
		t.Fatal(err)
	}
	firstSeal := bytes.Index(data, []byte("\nseal ")) + 1
	firstSeal += bytes.IndexByte(data[firstSeal:], '\n') + 1
	data = append(data[:firstSeal], append([]byte(laterLines), data[firstSeal:]...)...)
	data = append(data, laterLines...)
	writeFile(t, tp, data)
	lastSeal := bytes.LastIndex(data, []byte("\nseal ")) + 1
	lastSeal += bytes.IndexByte(data[lastSeal:], '\n') + 1

	// The complete run ended its tape with an end record: the markers
	// after the last seal up to it are a group of their own, which the
	// first run, starting just past the last seal, pushes.
	endRec := len(data) - len(laterLines)
	if !bytes.HasPrefix(data[lastSeal:endRec], []byte("end at=")) && !bytes.Contains(data[lastSeal:endRec], []byte("\nend at=")) {
		t.Fatalf("the complete run's tape does not end with an end record: %q", data[lastSeal:])
	}
	cursor := filepath.Join(dir, "push.cursor")
	mustRun(t, dir, "tgpush", "--once", "-q", "--from", "end", "--cursor", cursor, "--url", prom.writeURL(), st)
	if got := cursorOffset(cursor); got != int64(endRec) {
		t.Fatalf("--from end then --once left the cursor at %d, want %d: past the end record after the last seal", got, endRec)
	}
	if series, _ := splitQuality(prom.samples("", "")); len(series) != 0 {
		t.Fatalf("--from end pushed %d series samples before anything new was sealed", len(series))
	}

	// The rest of the log, counted by the same tally on the same tape.
	f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(lines[half:])
	f.Close()
	mustRun(t, dir, "feed", "-q", log, "--", "tally", "--run", st)
	after, err := os.ReadFile(tp)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(after, data) {
		t.Fatal("tally changed the tape before its end instead of appending")
	}

	stderr, code := run(t, dir, "tgpush", "--once", "--max-samples", "40", "--cursor", cursor, "--url", prom.writeURL(), st)
	if code != 0 || strings.Count(stderr, "passed over") != 2 {
		t.Fatalf("exit %d, want 0 and one note for each of the two later kinds: %s", code, stderr)
	}
	want, seals, entries := rowsAfter(t, after, lastSeal)
	if seals < 10 {
		t.Fatalf("%d buckets sealed after --from end: the test crosses too few", seals)
	}
	series, quality := splitQuality(prom.samples("", ""))
	sameRows(t, series, want)
	var n int
	var sum float64
	for _, q := range quality {
		if c := strings.Split(q, "\t"); c[1] == "timbertally_entries" {
			v, _ := strconv.ParseFloat(c[3], 64)
			n, sum = n+1, sum+v
		}
	}
	if n != seals || sum != entries {
		t.Errorf("the receiver holds %d timbertally_entries samples adding to %v, the tape after the cursor %d seals of %v entries", n, sum, seals, entries)
	}

	// tgread and tgcheck pass over the same lines: tgread holds every
	// series line of the tape, and the tape proves against its log.
	all, _, _ := rowsAfter(t, after, 0)
	if got := tapeRows(t, st); strings.Join(got, "\n") != strings.Join(all, "\n") {
		t.Errorf("tgread holds %d rows, the tape's text %d", len(got), len(all))
	}
	check := exec.Command("tgcheck", "--against", "access.log="+log, "--scan", st)
	out, err := check.CombinedOutput()
	if err != nil || bytes.Count(out, []byte("which a later version added")) != 2 {
		t.Errorf("tgcheck: %v, want exit 0 and a note for each of the two later kinds:\n%s", err, out)
	}
}
