package bucket

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/timbertally/timbertally/lib/internal/doc"
	"github.com/timbertally/timbertally/lib/internal/synth"
	"github.com/timbertally/timbertally/lib/internal/tape"
)

// simpleDoc buckets lines "UNIXSECONDS STATUS BYTES" into 10 s windows.
const simpleDoc = `format regex ^(?P<t>\S+) (?P<status>\S+) (?P<bytes>\S+)$
time t layout=unix
window 10s grace=%s
cap %d
metric requests count by=status
metric bytes sum=bytes by=status
`

func newRoller(t *testing.T, grace string, cap int, k *Known) *Roller {
	t.Helper()
	return rollerFor(t, fmt.Sprintf(simpleDoc, grace, cap), k)
}

// rollerFor returns a Roller for the document text.
func rollerFor(t *testing.T, text string, k *Known) *Roller {
	t.Helper()
	d, err := doc.Parse("test", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	r, err := New(d, k)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// feedLines gives lines to store st from pos and returns the end position.
func feedLines(r *Roller, st int, pos int64, lines ...string) int64 {
	for _, l := range lines {
		r.Entry(st, pos, []byte(l))
		pos += int64(len(l)) + 1
	}
	return pos
}

func TestEntriesInOrderAreSealedWhenEventTimePassesEndPlusGrace(t *testing.T) {
	r := newRoller(t, "5s", 100, nil)
	st := r.AddStore("a", 0)
	feedLines(r, st, 0, "100 200 1", "105 200 2", "109 404 3", "114 200 4")
	if out := string(r.Take()); out != "" {
		t.Fatalf("sealed before 110+5 was reached:\n%s", out)
	}
	feedLines(r, st, 40, "115 200 5")
	want := `1970-01-01T00:01:40Z requests{status="200"} 2
1970-01-01T00:01:40Z requests{status="404"} 1
1970-01-01T00:01:40Z bytes{status="200"} 3
1970-01-01T00:01:40Z bytes{status="404"} 3
seal 1970-01-01T00:01:40Z width=10s entries=3 at=a:50
`
	if out := string(r.Take()); out != want {
		t.Fatalf("got\n%s\nwant\n%s", out, want)
	}
	if s := r.Safe(st); s != 30 {
		t.Fatalf("safe offset %d, want 30 (the first entry of the open bucket)", s)
	}
}

func TestOutOfOrderEntriesWithinGraceLandInTheirOwnBucket(t *testing.T) {
	r := newRoller(t, "5s", 100, nil)
	st := r.AddStore("a", 0)
	end := feedLines(r, st, 0, "108 200 1", "112 200 1", "109 200 1", "114 200 1", "130 200 1")
	r.End(st)
	r.Complete()
	out := string(r.Take())
	if !strings.Contains(out, "1970-01-01T00:01:40Z requests{status=\"200\"} 2\n") || strings.Contains(out, "!late") {
		t.Fatalf("the entry at 109 should be in bucket 100 with no marker:\n%s", out)
	}
	if !strings.HasSuffix(out, fmt.Sprintf("end at=a:%d\n", end)) {
		t.Fatalf("no end record:\n%s", out)
	}
}

func TestEntriesBeyondGraceBecomeOneLateMarkerPerRun(t *testing.T) {
	r := newRoller(t, "0s", 100, nil)
	st := r.AddStore("a", 0)
	// 100 200 1 = 9 bytes a line: entries at 0, 10, 20, ...
	feedLines(r, st, 0, "101 200 1", "111 200 1", "102 200 1", "103 200 1", "112 200 1", "104 200 1")
	r.End(st)
	r.Complete()
	out := string(r.Take())
	for _, want := range []string{
		"!late 1970-01-01T00:01:40Z id=a offset=20 end=40 count=2\n",
		"!late 1970-01-01T00:01:40Z id=a offset=50 end=60 count=1\n",
		"seal 1970-01-01T00:01:40Z width=10s entries=1 at=a:20\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
}

func TestSeriesOverTheCapBecomeCapMarkersAndStillCountInEntries(t *testing.T) {
	r := newRoller(t, "0s", 2, nil)
	st := r.AddStore("a", 0)
	feedLines(r, st, 0, "101 200 1", "101 404 1", "101 500 1", "101 503 1", "101 200 1", "101 502 1")
	r.End(st)
	r.Complete()
	out := string(r.Take())
	for _, want := range []string{
		"!cap 1970-01-01T00:01:40Z metric=requests id=a offset=20 end=40 count=2\n",
		"!cap 1970-01-01T00:01:40Z metric=requests id=a offset=50 end=60 count=1\n",
		"!cap 1970-01-01T00:01:40Z metric=bytes id=a offset=20 end=40 count=2\n",
		"seal 1970-01-01T00:01:40Z width=10s entries=6 at=a:60\n",
		"requests{status=\"200\"} 2\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	if i, j := strings.Index(out, "!cap"), strings.Index(out, "seal"); i > j {
		t.Errorf("a bucket's !cap markers come before its seal:\n%s", out)
	}
}

func TestUnparseableEntriesAreDroppedWithAReasonAndSkipsCountOne(t *testing.T) {
	r := newRoller(t, "0s", 100, nil)
	st := r.AddStore("a", 0)
	feedLines(r, st, 0, "garbage", "x 200 1")
	r.Skip(st, 16, 2000000, "too-long")
	feedLines(r, st, 2000000, "101 200 1")
	r.End(st)
	r.Complete()
	out := string(r.Take())
	for _, want := range []string{
		"!drop id=a offset=0 end=8 count=1 reason=format\n",
		"!drop id=a offset=8 end=16 count=1 reason=time\n",
		"!drop id=a offset=16 end=2000000 count=1 reason=too-long\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
}

func TestCombinedEventTimeIsTheMinimumOverLiveStores(t *testing.T) {
	r := newRoller(t, "0s", 100, nil)
	a, b := r.AddStore("a", 0), r.AddStore("b", 0)
	feedLines(r, a, 0, "101 200 1", "125 200 1")
	if out := r.Take(); len(out) > 0 {
		t.Fatalf("store b has said nothing of its time, yet a bucket was sealed:\n%s", out)
	}
	feedLines(r, b, 0, "108 200 1")
	if out := r.Take(); len(out) > 0 {
		t.Fatalf("store b is at 108, yet a bucket was sealed:\n%s", out)
	}
	feedLines(r, b, 10, "111 200 1")
	out := string(r.Take())
	if !strings.Contains(out, "requests{status=\"200\"} 2\n") || !strings.Contains(out, "seal 1970-01-01T00:01:40Z width=10s entries=2 at=a:20,b:20\n") {
		t.Fatalf("bucket 100 should hold one entry of each store:\n%s", out)
	}
}

func TestAnEndedStoreStopsHoldingOthersBack(t *testing.T) {
	r := newRoller(t, "0s", 100, nil)
	a, b := r.AddStore("a", 0), r.AddStore("b", 0)
	feedLines(r, a, 0, "101 200 1", "125 200 1")
	r.End(b)
	if out := string(r.Take()); !strings.Contains(out, "seal 1970-01-01T00:01:40Z") {
		t.Fatalf("b ended, so a's time should seal bucket 100:\n%s", out)
	}
}

func TestIdleRaisesEventTimeByQuietAtTheLiveEdge(t *testing.T) {
	r := newRoller(t, "5s", 100, nil)
	st := r.AddStore("a", 0)
	feedLines(r, st, 0, "101 200 1")
	r.Idle(st, 13*time.Second)
	if out := r.Take(); len(out) > 0 {
		t.Fatalf("101+13 is short of 115, yet a bucket was sealed:\n%s", out)
	}
	r.Idle(st, 14*time.Second)
	if out := string(r.Take()); !strings.Contains(out, "seal 1970-01-01T00:01:40Z") {
		t.Fatalf("101+14 reaches 110+5: bucket 100 should be sealed:\n%s", out)
	}
	if s := r.Safe(st); s != 10 {
		t.Fatalf("with no open bucket the safe offset is everything processed (10), got %d", s)
	}
}

func TestAnIdleStoreWithNoEntryHoldsNothingBack(t *testing.T) {
	r := newRoller(t, "0s", 100, nil)
	a, b := r.AddStore("a", 0), r.AddStore("b", 0)
	feedLines(r, a, 0, "101 200 1", "125 200 1")
	if out := r.Take(); len(out) > 0 {
		t.Fatalf("b has not said where it is, yet a bucket was sealed:\n%s", out)
	}
	r.Idle(b, time.Second) // b is at its live edge with nothing to deliver (an empty store, or one replayed to its end)
	if out := string(r.Take()); !strings.Contains(out, "seal 1970-01-01T00:01:40Z") {
		t.Fatalf("b is idle with no entry: a's time alone should seal bucket 100:\n%s", out)
	}
}

func TestEventTimeNeverGoesBackwardsWhenAnIdleStoreDeliversAgain(t *testing.T) {
	r := newRoller(t, "0s", 100, nil)
	st := r.AddStore("a", 0)
	feedLines(r, st, 0, "101 200 1")
	r.Idle(st, 30*time.Second) // event time 131: bucket 100 sealed
	r.Take()
	feedLines(r, st, 10, "115 200 1") // bucket 110 was passed while idle
	r.End(st)
	r.Complete()
	if out := string(r.Take()); !strings.Contains(out, "!late 1970-01-01T00:01:50Z id=a offset=10 end=20 count=1") {
		t.Fatalf("an entry for a bucket the idle time passed is late:\n%s", out)
	}
}

// entry is one line of a store and its position.
type entry struct {
	pos  int64
	line []byte
}

func splitStore(data []byte) []entry {
	var es []entry
	pos := int64(0)
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		es = append(es, entry{pos, data[:i]})
		pos += int64(i) + 1
		data = data[i+1:]
	}
	return es
}

// apacheDoc has a short grace and a small cap so that synthetic data with
// jitter and malformed lines makes every kind of record.
const apacheDoc = `format apache-combined
window 10s grace=2s
cap 4
metric requests count by=status
metric bytes sum=bytes by=status
metric largest max=bytes by=method
metric size histogram=bytes buckets=100,1000,10000 by=status
`

// snapshot is what a crash can leave: the tape bytes appended up to some
// moment, and the safe offset reported at an earlier one.
type snapshot struct {
	tapeLen int
	safe    int64
}

// runUntil processes es from index from, recording a snapshot after each
// entry, and completes when it reaches the end.
func runUntil(t *testing.T, d *doc.Doc, k *Known, resume int64, es []entry, stop int) ([]byte, []snapshot) {
	r, err := New(d, k)
	if err != nil {
		t.Fatal(err)
	}
	st := r.AddStore("web", resume)
	var out []byte
	var snaps []snapshot
	for _, e := range es {
		if e.pos < resume {
			continue
		}
		if len(snaps) == stop {
			return out, snaps
		}
		r.Entry(st, e.pos, e.line)
		out = append(out, r.Take()...)
		snaps = append(snaps, snapshot{len(out), r.Safe(st)})
	}
	r.End(st)
	r.Complete()
	return append(out, r.Take()...), snaps
}

// repaired returns tp as tape.OpenWriter leaves it after a crash.
func repaired(t *testing.T, tp []byte) []byte {
	t.Helper()
	p := filepath.Join(t.TempDir(), "tape")
	if err := os.WriteFile(p, tp, 0o644); err != nil {
		t.Fatal(err)
	}
	w, _, err := tape.OpenWriter(p)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	out, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func knownFrom(t *testing.T, tp []byte, resume int64) *Known {
	t.Helper()
	k := NewKnown(map[string]int64{"web": resume})
	err := tape.ScanBack(bytes.NewReader(tp), int64(len(tp)), func(r *tape.Record, _ int64) bool {
		k.Add(r)
		return !k.Enough()
	})
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestARestartFromAnyDurablePointWritesTheUninterruptedTape is the
// exactly-once property of docs/design.md §5: crash after any entry, with the tape
// holding any prefix of records between the last reported offset and the
// crash, replay from that offset, and the tape is byte for byte the one an
// uninterrupted run writes.
func TestARestartFromAnyDurablePointWritesTheUninterruptedTape(t *testing.T) {
	var log bytes.Buffer
	if err := synth.Write(&log, synth.Config{Seed: 3, N: 3000, Rate: 40, Jitter: 5 * time.Second, Malformed: 0.02, Paths: 30}); err != nil {
		t.Fatal(err)
	}
	d, err := doc.Parse("test", []byte(apacheDoc))
	if err != nil {
		t.Fatal(err)
	}
	es := splitStore(log.Bytes())
	want, snaps := runUntil(t, d, nil, 0, es, -1)
	for _, kind := range []string{"!late", "!drop", "!cap", "seal"} {
		if !bytes.Contains(want, []byte(kind)) {
			t.Fatalf("the data should make %s records", kind)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 300; round++ {
		crash := rng.IntN(len(snaps))
		reported := rng.IntN(crash + 1) // the offset feed persisted comes from an earlier moment
		// The tape holds every record appended before the report (it was
		// fsynced) and possibly some of those after it, cut at a line.
		lo, hi := snaps[reported].tapeLen, snaps[crash].tapeLen
		cut := lo + rng.IntN(hi-lo+1)
		if i := bytes.LastIndexByte(want[:cut], '\n'); cut > lo {
			cut = i + 1
		}
		tp := repaired(t, want[:max(cut, lo)])
		resume := snaps[reported].safe
		rest, _ := runUntil(t, d, knownFrom(t, tp, resume), resume, es, -1)
		if got := append(tp, rest...); !bytes.Equal(got, want) {
			t.Fatalf("round %d (crash after entry %d, offset from entry %d, tape %d bytes): the tape differs from the uninterrupted one", round, crash, reported, len(tp))
		}
	}
}

func TestReplayingFromZeroIntoACompleteTapeAddsNothing(t *testing.T) {
	var log bytes.Buffer
	if err := synth.Write(&log, synth.Config{Seed: 4, N: 2000, Rate: 40, Jitter: 5 * time.Second, Malformed: 0.02}); err != nil {
		t.Fatal(err)
	}
	d, err := doc.Parse("test", []byte(apacheDoc))
	if err != nil {
		t.Fatal(err)
	}
	es := splitStore(log.Bytes())
	want, _ := runUntil(t, d, nil, 0, es, -1)
	again, _ := runUntil(t, d, knownFrom(t, want, 0), 0, es, -1)
	if len(again) != 0 {
		t.Fatalf("a replay from 0 into a complete tape wrote:\n%.500s", again)
	}
}

// TestStartUpReadsOnlyTheTapesRecentTail: resuming near the end of a long
// tape, the backward scan stops after a handful of records, however long
// the tape (start-up stays fast on a tape of millions of lines).
func TestStartUpReadsOnlyTheTapesRecentTail(t *testing.T) {
	var log bytes.Buffer
	if err := synth.Write(&log, synth.Config{Seed: 5, N: 40000, Rate: 50, Jitter: 5 * time.Second, Malformed: 0.01}); err != nil {
		t.Fatal(err)
	}
	d, err := doc.Parse("test", []byte(apacheDoc))
	if err != nil {
		t.Fatal(err)
	}
	es := splitStore(log.Bytes())
	tp, snaps := runUntil(t, d, nil, 0, es, 30000)
	resume := snaps[len(snaps)-1].safe
	k := NewKnown(map[string]int64{"web": resume})
	read := 0
	err = tape.ScanBack(bytes.NewReader(tp), int64(len(tp)), func(r *tape.Record, _ int64) bool {
		read++
		k.Add(r)
		return !k.Enough()
	})
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Count(tp, []byte{'\n'})
	t.Logf("read %d of %d records", read, lines)
	if read > 400 || lines < 20*read {
		t.Fatalf("the scan read %d of the tape's %d records to resume at %d", read, lines, resume)
	}
}

func TestAHugeFieldIsNotANumberSoNoTapeValueIsInfinite(t *testing.T) {
	r := newRoller(t, "0s", 100, nil)
	st := r.AddStore("a", 0)
	huge := strings.Repeat("9", 400)
	feedLines(r, st, 0, "101 200 "+huge, "102 200 "+huge, "103 200 3")
	r.End(st)
	r.Complete()
	out := r.Take()
	if !bytes.Contains(out, []byte(`bytes{status="200"} 3`+"\n")) {
		t.Fatalf("a field beyond 2^53 should add 0 to a sum:\n%s", out)
	}
	for _, line := range bytes.SplitAfter(bytes.TrimSuffix(out, []byte{'\n'}), []byte{'\n'}) {
		if _, err := tape.Parse(bytes.TrimSuffix(line, []byte{'\n'})); err != nil {
			t.Fatalf("the tape does not parse back: %v", err)
		}
	}
}

func TestAnIdleQuietBeyondInt64TimeSealsAsTheLongestQuiet(t *testing.T) {
	for _, quiet := range []time.Duration{math.MaxInt64, math.MaxInt64 - 50*time.Second} {
		r := newRoller(t, "5s", 100, nil)
		st := r.AddStore("a", 0)
		feedLines(r, st, 0, "101 200 1")
		r.Idle(st, quiet) // 101 s + quiet overflows int64 nanoseconds
		if out := string(r.Take()); !strings.Contains(out, "seal 1970-01-01T00:01:40Z") {
			t.Fatalf("quiet %d: bucket 100 should be sealed:\n%s", quiet, out)
		}
	}
}

// A bucket that took !late entries is closed, though it was never sealed
// (it was empty when an idle store's quiet time passed its end): after a
// restart, an entry for it is still late. Resuming the event time at the
// last seal alone reopened it, and the bucket was then sealed below its
// own !late marker's entries, against its seal's at= (docs/design.md §5).
func TestABucketClosedByALateMarkerStaysClosedAfterARestart(t *testing.T) {
	r := newRoller(t, "5s", 100, nil)
	st := r.AddStore("web", 0)
	pos := feedLines(r, st, 0, "101 200 1")
	r.Idle(st, 30*time.Second) // event time 131: 100 sealed, 110 closed, 120 open
	pos = feedLines(r, st, pos, "112 404 2")
	resume := pos
	pos = feedLines(r, st, pos, "121 200 3")
	tp := r.Take()
	if !bytes.Contains(tp, []byte("!late 1970-01-01T00:01:50Z id=web")) || bytes.Contains(tp, []byte("seal 1970-01-01T00:01:50Z")) {
		t.Fatalf("the first run should mark 112 late and seal only 100:\n%s", tp)
	}
	r = newRoller(t, "5s", 100, knownFrom(t, tp, resume))
	st = r.AddStore("web", resume)
	feedLines(r, st, resume, "121 200 3", "113 500 4")
	r.End(st)
	r.Complete()
	out := string(r.Take())
	if strings.Contains(out, "seal 1970-01-01T00:01:50Z") || !strings.Contains(out, fmt.Sprintf("!late 1970-01-01T00:01:50Z id=web offset=%d", pos)) {
		t.Fatalf("after the restart 113 must be late, its bucket unsealed:\n%s", out)
	}
}

// A store that goes quiet on late entries gets their !late marker at its
// idle line: held open for a next late entry that does not come, the run
// would keep the store's durable offset below entries already accounted.
func TestAnIdleStoreWritesTheLateRunItEndedOn(t *testing.T) {
	r := newRoller(t, "0s", 100, nil)
	st := r.AddStore("a", 0)
	pos := feedLines(r, st, 0, "101 200 1", "125 200 2")
	feedLines(r, st, pos, "102 404 3", "103 404 4")
	r.Idle(st, time.Second)
	if out := string(r.Take()); !strings.Contains(out, fmt.Sprintf("!late 1970-01-01T00:01:40Z id=a offset=%d", pos)) || !strings.Contains(out, "count=2") {
		t.Fatalf("want the two late entries marked at the idle line:\n%s", out)
	}
}

// One entry stamped far ahead of the wall clock (a broken clock, a broken
// line) is a !drop reason=future, not a jump of its store's event time:
// the entries after it are bucketed as before, none late. The clock is
// the test's, at 1000 s; the document allows an hour ahead.
func TestAFarFutureEntryIsDroppedNotAnEventTime(t *testing.T) {
	r := rollerFor(t, strings.Replace(fmt.Sprintf(simpleDoc, "0s", 100), "cap 100\n", "cap 100\nfuture 1h\n", 1), nil)
	r.SetClock(func() time.Time { return time.Unix(1000, 0) })
	st := r.AddStore("a", 0)
	end := feedLines(r, st, 0, "100 200 1", "4601 200 7", "105 200 3")
	if out := string(r.Take()); out != "!drop id=a offset=10 end=21 count=1 reason=future\n" {
		t.Fatalf("want the one entry over an hour ahead dropped as future; got\n%s", out)
	}
	r.Complete()
	out := string(r.Take())
	if strings.Contains(out, "!late") || !strings.Contains(out, `1970-01-01T00:01:40Z requests{status="200"} 2`) {
		t.Fatalf("the entries after the future one are late or lost:\n%s", out)
	}
	if r.Safe(st) != end {
		t.Fatalf("safe %d, want everything processed (%d)", r.Safe(st), end)
	}
}

// The bound is read from the wall clock: a document with no future
// directive allows a day, and "future none" lifts the bound.
func TestTheFutureBoundIsTheDocumentsDayOrNone(t *testing.T) {
	for _, c := range []struct {
		directive string
		dropped   bool
		at        string
	}{{"", false, "3600"}, {"future none\n", false, "3600"}, {"future 1m\n", true, "3600"}, {"future 1h\n", false, "3600"}, {"future 1h\n", true, "3601"}} {
		r := rollerFor(t, strings.Replace(fmt.Sprintf(simpleDoc, "0s", 100), "cap 100\n", "cap 100\n"+c.directive, 1), nil)
		r.SetClock(func() time.Time { return time.Unix(0, 0) })
		st := r.AddStore("a", 0)
		feedLines(r, st, 0, c.at+" 200 1") // an hour ahead, or a second more
		r.Complete()
		if got := strings.Contains(string(r.Take()), "reason=future"); got != c.dropped {
			t.Errorf("%q, an entry at %s s: dropped %v, want %v", c.directive, c.at, got, c.dropped)
		}
	}
}
