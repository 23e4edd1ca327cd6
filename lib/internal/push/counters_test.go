package push

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/timbertally/timbertally/lib/internal/slotfile"
)

func TestCountersRunOnAcrossRunsWithAZeroBeforeEachSeriesAndEachMarkerOnlyGroupAtItsOwnMillisecond(t *testing.T) {
	f := newFake(t, nil)
	dir := store(t, threeGroups+"!drop id=web offset=1000 end=1100 count=4 reason=no-time\nend at=web:1100\n")
	push := func() {
		t.Helper()
		if code, stderr := tgpush(context.Background(), "--once", "--counters", "--max-samples", "2", "--url", f.url(), dir); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
	}
	push()
	// Each run starts from the totals the tape holds before its cursor.
	appendTape(t, dir, "!drop id=web offset=1100 end=1200 count=3 reason=no-time\n!late 2026-12-01T10:35:30Z id=web offset=1200 end=1300 count=5\nend at=web:1300\n")
	push()
	appendTape(t, dir, "2026-12-01T10:36:00Z requests{status=\"200\"} 1\n!drop id=web offset=1300 end=1400 count=1 reason=no-time\nseal 2026-12-01T10:36:00Z width=10s entries=1 at=web:1400\n")
	push()
	const b0, b4 = b1 - 10000, b3 + 10000
	// Worked by hand from the tapes: running totals, a zero at the last
	// millisecond of the bucket before a series' first, the markers of
	// the k-th run that sealed nothing k ms after the last bucket's.
	s := func(series string, ms int64, v float64) string {
		return fmt.Sprintf("__name__=%s %d %v", series, ms, v)
	}
	want := []string{
		s("requests_total,status=200", b0, 0), s("requests_total,status=200", b1, 4), s("requests_total,status=200", b2, 11), s("requests_total,status=200", b4, 12),
		s("requests_total,status=404", b0, 0), s("requests_total,status=404", b1, 1),
		s("requests_total,status=500", b2, 0), s("requests_total,status=500", b3, 2),
		s("timbertally_entries_total", b0, 0), s("timbertally_entries_total", b1, 5), s("timbertally_entries_total", b2, 15), s("timbertally_entries_total", b3, 17), s("timbertally_entries_total", b4, 18),
		s("timbertally_late_entries_total", b0, 0), s("timbertally_late_entries_total", b1, 0), s("timbertally_late_entries_total", b2, 2), s("timbertally_late_entries_total", b3, 2),
		s("timbertally_late_entries_total", b3+1, 2), s("timbertally_late_entries_total", b3+2, 7), s("timbertally_late_entries_total", b4, 7),
		s("timbertally_dropped_entries_total,reason=no-time", b1, 0), s("timbertally_dropped_entries_total,reason=no-time", b2, 1),
		s("timbertally_dropped_entries_total,reason=no-time", b3+1, 5), s("timbertally_dropped_entries_total,reason=no-time", b3+2, 8), s("timbertally_dropped_entries_total,reason=no-time", b4, 9),
		s("timbertally_capped_entries_total,metric=requests", b1, 0), s("timbertally_capped_entries_total,metric=requests", b2, 3),
	}
	sameSamples(t, f.got(), want)
}

func TestACursorOfAnotherShapeIsRefusedNamingTheFlagsThatGoOn(t *testing.T) {
	f := newFake(t, nil)
	dir := store(t, threeGroups)
	if code, stderr := tgpush(context.Background(), "--once", "--url", f.url(), dir); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	appendTape(t, dir, "2026-12-01T10:36:00Z requests{status=\"200\"} 1\nseal 2026-12-01T10:36:00Z width=10s entries=1 at=web:1400\n")
	before := len(f.got())
	code, stderr := tgpush(context.Background(), "--once", "--counters", "--url", f.url(), dir)
	if code != 1 || !strings.Contains(stderr, "was pushed a sample per bucket (no --counters), and this run would send as running totals (--counters); nothing was pushed") ||
		!strings.Contains(stderr, "run tgpush without --counters and --protocol") || !strings.Contains(stderr, "--from 2026-12-01T10:36:00Z") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if len(f.got()) != before {
		t.Fatal("samples were sent")
	}
	// A v=2 cursor (before sends=, one line written whole) was a
	// per-bucket push: refused alike.
	cursor := DefaultCursor(dir, f.url())
	data, err := os.ReadFile(cursor)
	if err != nil {
		t.Fatal(err)
	}
	rec, _, err := slotfile.Read(data)
	if err != nil {
		t.Fatal(err)
	}
	v2 := strings.Replace(strings.Replace(string(rec), "v=3", "v=2", 1), " sends=buckets zeroed=0", "", 1)
	if err := os.WriteFile(cursor, []byte(v2), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, stderr := tgpush(context.Background(), "--once", "--counters", "--url", f.url(), dir); code != 1 || !strings.Contains(stderr, "a sample per bucket") {
		t.Fatalf("a v=2 cursor with --counters: exit %d: %s", code, stderr)
	}
	// As it was pushed, it goes on.
	if code, stderr := tgpush(context.Background(), "--once", "--url", f.url(), dir); code != 0 || len(f.got()) != before+3 {
		t.Fatalf("exit %d: %s; %d samples, want %d", code, stderr, len(f.got()), before+3)
	}
}

func TestCountersByOTLPAndAnUnknownProtocolAreUsageErrors(t *testing.T) {
	dir := store(t, threeGroups)
	for _, args := range [][]string{{"--protocol", "otlp", "--counters"}, {"--protocol", "grpc"}} {
		code, stderr := tgpush(context.Background(), append(args, "--once", dir)...)
		if code != 2 || !strings.Contains(stderr, "--") {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
		if m, _ := filepath.Glob(filepath.Join(dir, "tgpush.*")); len(m) > 0 {
			t.Errorf("%v: it left %v", args, m)
		}
	}
}

func TestCountersFromEndOrATimeGoOnFromTheTotalsOfTheWholeTape(t *testing.T) {
	next := "2026-12-01T10:36:00Z requests{status=\"200\"} 1\nseal 2026-12-01T10:36:00Z width=10s entries=1 at=web:1400\n"
	s := func(series string, ms int64, v float64) string {
		return fmt.Sprintf("__name__=%s %d %v", series, ms, v)
	}
	const b4 = b3 + 10000
	// --from end: nothing of the tape is sent, the next bucket's totals
	// count it; no zero before series the tape had already.
	f := newFake(t, nil)
	dir := store(t, threeGroups)
	if code, stderr := tgpush(context.Background(), "--once", "--counters", "--from", "end", "--url", f.url(), dir); code != 0 || len(f.got()) != 0 {
		t.Fatalf("exit %d: %s; sent %v", code, stderr, f.got())
	}
	appendTape(t, dir, next)
	if code, stderr := tgpush(context.Background(), "--once", "--counters", "--url", f.url(), dir); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	sameSamples(t, f.got(), []string{s("requests_total,status=200", b4, 12), s("timbertally_entries_total", b4, 18), s("timbertally_late_entries_total", b4, 2)})

	// --from TIME: the buckets before it are read, not sent.
	f = newFake(t, nil)
	dir = store(t, threeGroups)
	if code, stderr := tgpush(context.Background(), "--once", "--counters", "--from", "2026-12-01T10:35:50Z", "--url", f.url(), dir); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	sameSamples(t, f.got(), []string{s("requests_total,status=500", b2, 0), s("requests_total,status=500", b3, 2), s("timbertally_entries_total", b3, 17), s("timbertally_late_entries_total", b3, 2)})
}
