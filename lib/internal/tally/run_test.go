package tally

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/timbertally/timbertally/lib/internal/tallystore"

	"github.com/timbertally/timbertally/lib/internal/doc"
)

// testDoc buckets "UNIXSECONDS STATUS" lines into 10 s windows, no grace.
const testDoc = `format regex ^(?P<t>\S+) (?P<status>\S+)$
time t layout=unix
window 10s grace=0s
metric requests count by=status
`

func newStore(t testing.TB) string {
	t.Helper()
	d, err := doc.Parse("test", []byte(testDoc))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "s")
	if _, err := tallystore.Provision(dir, d, false, time.Now()); err != nil {
		t.Fatal(err)
	}
	return dir
}

// input frames entries "T 200" for times ts as one batch of store web from pos.
func batch(pos int64, ts ...int) (string, int64) {
	var body strings.Builder
	for _, t := range ts {
		fmt.Fprintf(&body, "%d 200\n", t)
	}
	end := pos + int64(body.Len())
	return fmt.Sprintf("batch id=web offset=%d end=%d entries=%d\n%s", pos, end, len(ts), body.String()), end
}

func runInput(t *testing.T, dir, in string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := run(dir, strings.NewReader(in), &out, func(string, ...any) {})
	return out.String(), err
}

func readTape(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(tallystore.At(dir).Tape())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestCompleteInputSealsEverythingAndReportsTheEnd(t *testing.T) {
	dir := newStore(t)
	b1, end1 := batch(0, 101, 105, 112)
	b2, end2 := batch(end1, 113, 125)
	out, err := runInput(t, dir, "feed v=1\nstore id=web offset=0\n"+b1+b2+"end id=web\n")
	if err != nil {
		t.Fatal(err)
	}
	tp := readTape(t, dir)
	if strings.Count(tp, "seal ") != 3 || !strings.HasSuffix(tp, fmt.Sprintf("end at=web:%d\n", end2)) {
		t.Fatalf("want three seals and the end record, got\n%s", tp)
	}
	if !strings.HasSuffix(out, fmt.Sprintf("progress id=web offset=%d\n", end2)) {
		t.Fatalf("the last report should say everything is durable, got\n%s", out)
	}
}

func TestUnknownLinesAreIgnoredBeforeAndAfterTheStoreLines(t *testing.T) {
	dir := newStore(t)
	b1, end1 := batch(0, 101)
	in := "feed v=1\nhello x=1\nstore id=web offset=0\nnews id=web\n" + b1 + "end id=web\n"
	if _, err := runInput(t, dir, in); err != nil {
		t.Fatal(err)
	}
	if tp := readTape(t, dir); !strings.HasSuffix(tp, fmt.Sprintf("end at=web:%d\n", end1)) {
		t.Fatalf("want a complete tape, got\n%s", tp)
	}
}

func TestTakenIsReportedForEachBatchAndOffsetStaysAtTheOpenBucket(t *testing.T) {
	dir := newStore(t)
	b1, end1 := batch(0, 101, 105)
	b2, end2 := batch(end1, 106, 107)
	out, err := runInput(t, dir, "feed v=1\nstore id=web offset=0\n"+b1+b2)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("progress id=web offset=0 taken=%d\nprogress id=web offset=0 taken=%d\n", end1, end2)
	if out != want {
		t.Fatalf("got reports\n%s\nwant\n%s", out, want)
	}
}

func TestInterruptedInputSealsNothing(t *testing.T) {
	dir := newStore(t)
	b1, _ := batch(0, 101, 105, 131)
	if _, err := runInput(t, dir, "feed v=1\nstore id=web offset=0\n"+b1); err != nil {
		t.Fatal(err)
	}
	if tp := readTape(t, dir); strings.Contains(tp, "seal 1970-01-01T00:02:10Z") || strings.Contains(tp, "end") {
		t.Fatalf("interrupted input sealed the open bucket or wrote an end:\n%s", tp)
	}
}

func TestProtocolViolationsAreRefusedWithTheLine(t *testing.T) {
	b1, end1 := batch(0, 101)
	gap, _ := batch(end1+5, 102)
	for name, tc := range map[string]struct{ in, msg string }{
		"another version":                {"feed v=2\n", "v=2"},
		"a CRLF hello":                   {"feed v=1\r\n", `input starts with "feed v=1\r": feed speaks protocol v="1\r"`},
		"no hello":                       {"store id=web offset=0\n", "not \"feed v=1\""},
		"a gap":                          {"feed v=1\nstore id=web offset=0\n" + b1 + gap, "must be contiguous"},
		"an unknown store":               {"feed v=1\nstore id=web offset=0\nidle id=other quiet=5\n", "not declared"},
		"a short count":                  {"feed v=1\nstore id=web offset=0\n" + strings.Replace(b1, "entries=1", "entries=2", 1), "entries=2"},
		"a cut batch":                    {"feed v=1\nstore id=web offset=0\n" + b1[:len(b1)-3], "ended inside the batch"},
		"a cut last entry":               {"feed v=1\nstore id=web offset=0\nbatch id=web offset=0 end=9 entries=1\n101 200\nxend id=web\n", "9 bytes do not end with a newline"},
		"a store declared twice mid-run": {"feed v=1\nstore id=web offset=0\n" + b1 + "store id=web offset=0\n", "declared twice"},
		"a second hello":                 {"feed v=1\nstore id=web offset=0\n" + b1 + "feed v=1\n", "comes once, first"},
		"end twice":                      {"feed v=1\nstore id=web offset=0\nend id=web\nend id=web\n", "ended already"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := runInput(t, newStore(t), tc.in)
			if err == nil || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("want an error mentioning %q, got %v", tc.msg, err)
			}
		})
	}
}

func TestASecondRunOnALockedStoreIsRefusedNamingTheFirst(t *testing.T) {
	dir := newStore(t)
	l, err := tallystore.Lock(dir, "tally")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, err = runInput(t, dir, "feed v=1\n")
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) {
		t.Fatalf("want a refusal naming pid %d, got %v", os.Getpid(), err)
	}
}

func TestProvisionRefusesAnExistingStoreAndReplaceKeepsTheOldTape(t *testing.T) {
	dir := newStore(t)
	d, _ := doc.Parse("test", []byte(testDoc))
	if _, err := tallystore.Provision(dir, d, false, time.Now()); err == nil || !strings.Contains(err.Error(), "--replace") {
		t.Fatalf("want a refusal naming --replace, got %v", err)
	}
	os.WriteFile(tallystore.At(dir).Tape(), []byte("end\n"), 0o644)
	moved, err := tallystore.Provision(dir, d, true, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if old, _ := os.ReadFile(moved); string(old) != "end\n" || !strings.HasSuffix(moved, "tape.replaced.2026-01-02T03:04:05Z") {
		t.Fatalf("the old tape should be at tape.replaced.TIME, got %s holding %q", moved, old)
	}
	if tp := readTape(t, dir); tp != "" {
		t.Fatalf("the new tape should be empty, got %q", tp)
	}
}

func TestATornTapeIsCutAndItsEntriesReplayed(t *testing.T) {
	dir := newStore(t)
	b1, _ := batch(0, 101, 112, 125)
	in := "feed v=1\nstore id=web offset=0\n" + b1 + "end id=web\n"
	if _, err := runInput(t, dir, in); err != nil {
		t.Fatal(err)
	}
	whole := readTape(t, dir)
	// A crash in the middle of the last group: its seal half written.
	torn := whole[:strings.LastIndex(whole, "seal ")+9]
	os.WriteFile(tallystore.At(dir).Tape(), []byte(torn), 0o644)
	var notes []string
	var out bytes.Buffer
	err := run(dir, strings.NewReader(in), &out, func(f string, a ...any) { notes = append(notes, fmt.Sprintf(f, a...)) })
	if err != nil {
		t.Fatal(err)
	}
	if got := readTape(t, dir); got != whole {
		t.Fatalf("after the repair and replay the tape should be the whole one:\n%s\nwant\n%s", got, whole)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "torn") {
		t.Fatalf("want one note about the torn tape, got %q", notes)
	}
}

func TestALineLargerThanTheInputBufferIsReadWithTheRestOfItsBatchAndTheNextBatchAfterIt(t *testing.T) {
	dir := newStore(t)
	huge := strings.Repeat("x", inputSize+1) // one entry, no field: a !drop
	body := "101 200\n" + huge + "\n"
	b1 := fmt.Sprintf("batch id=web offset=0 end=%d entries=2\n%s", len(body), body)
	b2, end2 := batch(int64(len(body)), 102, 125)
	out, err := runInput(t, dir, "feed v=1\nstore id=web offset=0\n"+b1+b2+"end id=web\n")
	if err != nil {
		t.Fatal(err)
	}
	tp := readTape(t, dir)
	if !strings.Contains(tp, "requests{status=\"200\"} 2\n") || !strings.Contains(tp, "!drop ") || !strings.HasSuffix(tp, fmt.Sprintf("end at=web:%d\n", end2)) {
		t.Fatalf("want the two entries counted, the huge one dropped and the end, got\n%.2000s", tp)
	}
	if !strings.Contains(out, fmt.Sprintf("taken=%d\n", len(body))) {
		t.Fatalf("the huge batch was not reported taken:\n%s", out)
	}
}

func TestTryReadsALineLongerThanItsReadSizeWhole(t *testing.T) {
	d, err := doc.Parse("test", []byte(testDoc))
	if err != nil {
		t.Fatal(err)
	}
	long := "101 " + strings.Repeat("x", 3*tryReadSize) // one entry, status xxx…
	in := "100 200\n" + long + "\n102 200\n"
	var out bytes.Buffer
	if err := try(d, nil, strings.NewReader(in), &out, func(f string, a ...any) { t.Errorf(f, a...) }); err != nil {
		t.Fatal(err)
	}
	tp := out.String()
	if !strings.Contains(tp, "requests{status=\"200\"} 2\n") || strings.Count(tp, "requests{") != 2 || strings.Contains(tp, "!drop") {
		t.Fatalf("want both short entries and the long one counted in one bucket, got\n%.300s", tp)
	}
}

func TestABatchBucketedPieceByPieceGivesTheTapeOfOneEntryBatches(t *testing.T) {
	var lines []string
	for i := range 200000 { // ~2.3 MiB: more than the input buffer, nine pieces
		lines = append(lines, fmt.Sprintf("%d %d", 100+i/1000, 200+i%7))
		if i == 30000 { // a line longer than two pieces, across their bounds
			lines = append(lines, fmt.Sprintf("%d %s", 130, strings.Repeat("x", 2*pieceSize+5)))
		}
	}
	whole := strings.Join(lines, "\n") + "\n"
	one, piecewise := newStore(t), newStore(t)
	if _, err := runInput(t, one, frameBatches(lines, 1)); err != nil {
		t.Fatal(err)
	}
	if _, err := runInput(t, piecewise, frameBatches(lines, len(lines))); err != nil {
		t.Fatal(err)
	}
	if a, b := readTape(t, one), readTape(t, piecewise); a != b || !strings.HasSuffix(b, fmt.Sprintf("end at=web:%d\n", len(whole))) {
		t.Fatalf("one batch of %d bytes gave another tape than one-entry batches (%d and %d bytes)", len(whole), len(b), len(a))
	}
}

func TestABatchWithMoreLinesThanItsEntriesWritesNothingOfIt(t *testing.T) {
	dir := newStore(t)
	b1, _ := batch(0, 101, 125, 131) // would seal 100 and 120 under grace 0
	bad := strings.Replace(b1, "entries=3", "entries=2", 1)
	_, err := runInput(t, dir, "feed v=1\nstore id=web offset=0\n"+bad+"end id=web\n")
	if err == nil || !strings.Contains(err.Error(), "hold 3 whole lines, not entries=2") {
		t.Fatalf("want the miscount named, got %v", err)
	}
	if tp := readTape(t, dir); tp != "" {
		t.Fatalf("a bad batch reached the tape:\n%s", tp)
	}
}

// quiet= is milliseconds up to 2^63-1; in nanoseconds that wraps. Every
// quiet too long for int64 time is the longest quiet there is, and seals
// the open bucket (2e13 ms wrapped to a negative, and sealed nothing).
func TestAnIdleQuietTooLongForInt64TimeSealsTheOpenBucket(t *testing.T) {
	b1, _ := batch(0, 101)
	for _, q := range []string{"10000000000000", "20000000000000", "9223372036854775807"} {
		dir := newStore(t)
		if _, err := runInput(t, dir, "feed v=1\nstore id=web offset=0\n"+b1+"idle id=web quiet="+q+"\n"); err != nil {
			t.Fatal(err)
		}
		if tp := readTape(t, dir); !strings.Contains(tp, "seal 1970-01-01T00:01:40Z") {
			t.Errorf("quiet=%s: the open bucket was not sealed:\n%s", q, tp)
		}
	}
}

// syncRecorder is a tape that records when it is fsynced.
type syncRecorder struct{ at chan time.Time }

func (r syncRecorder) Sync() error { r.at <- time.Now(); return nil }
func (r syncRecorder) Size() int64 { return 0 }

// Fsyncs are syncInterval apart, the first one included: a run's first
// seal comes a few ms in, and its fsync would fall among the first
// batches.
func TestTheFirstFsyncWaitsTheIntervalToo(t *testing.T) {
	tp := syncRecorder{at: make(chan time.Time, 2)}
	start := time.Now()
	s := newSyncer(tp, newReporter(io.Discard))
	defer s.stop()
	s.submit(100, nil)
	if at := <-tp.at; at.Sub(start) < syncInterval {
		t.Fatalf("the first fsync came %v after start, want at least %v", at.Sub(start), syncInterval)
	}
}

func TestTallyAsksForTheWindowFeedOffersAndReportsTakenInHalvesOfIt(t *testing.T) {
	dir := newStore(t)
	in := "feed v=1 window=64\nstore id=web offset=0\n"
	pos := int64(0)
	for i := range 6 {
		b, end := batch(pos, 101+i, 101+i) // 16 bytes each
		in += b
		pos = end
	}
	out, err := runInput(t, dir, in)
	if err != nil {
		t.Fatal(err)
	}
	// A report at the resume position asks for the window before any
	// batch; then taken goes out each time half the window (32 bytes) is
	// taken since the last report; the input's end reports the rest.
	want := "progress id=web offset=0 window=64\n" +
		"progress id=web offset=0 taken=32 window=64\n" +
		"progress id=web offset=0 taken=64 window=64\n" +
		"progress id=web offset=0 taken=96 window=64\n"
	if !strings.HasPrefix(out, want) || strings.Count(out, "\n") != 4 {
		t.Fatalf("got reports\n%s\nwant\n%s", out, want)
	}
}

func TestWithoutAWindowOfferTallyAsksForNone(t *testing.T) {
	dir := newStore(t)
	b1, _ := batch(0, 101)
	out, err := runInput(t, dir, "feed v=1\nstore id=web offset=0\n"+b1)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "window=") || !strings.HasPrefix(out, "progress id=web offset=0 taken=") {
		t.Fatalf("an old feed, offering no window, got\n%s\nwant reports without window= (it would ignore it, but a consumer asks only when offered)", out)
	}
}

// TestTallyReportsWhatItOwesBeforeItWaitsForInput: with a window, taken
// short of half of it is held back, but not across a wait for input: feed
// may be waiting for that very report before it sends more.
func TestTallyReportsWhatItOwesBeforeItWaitsForInput(t *testing.T) {
	dir := newStore(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- run(dir, inR, outW, func(string, ...any) {}) }()
	b1, end1 := batch(0, 101)
	go io.WriteString(inW, "feed v=1 window=1000000\nstore id=web offset=0\n"+b1)
	lines := bufio.NewScanner(outR)
	want := []string{"progress id=web offset=0 window=1000000", fmt.Sprintf("progress id=web offset=0 taken=%d window=1000000", end1)}
	got := make(chan string)
	go func() {
		for lines.Scan() {
			got <- lines.Text()
		}
		close(got)
	}()
	for _, w := range want {
		select {
		case l := <-got:
			if l != w {
				t.Fatalf("report %q, want %q", l, w)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no report %q while tally waits for input with %d bytes taken and unreported: feed and tally would wait for each other", w, end1)
		}
	}
	inW.Close()
	go func() {
		for range got {
		}
	}()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	outW.Close()
}

func TestReportingTakenAllocatesNothingPerBatchWithOrWithoutAWindow(t *testing.T) {
	for _, w := range []int64{0, 786432} {
		r := newReporter(io.Discard)
		r.add("web", 0)
		r.ask(w)
		var taken int64
		allocs := testing.AllocsPerRun(1000, func() {
			taken += 100_000 // a batch of 512 ~200-byte entries
			if err := r.took(0, taken); err != nil {
				t.Fatal(err)
			}
			if err := r.owed(); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("window %d: %.1f allocations per batch reported, want 0", w, allocs)
		}
	}
}

func TestAStoreJoiningMidRunCountsFromItsFirstEntryAndItsOlderOnesAreLate(t *testing.T) {
	dir := newStore(t)
	b1, end1 := batch(0, 101, 112, 125)
	// The joiner's first entry is for a bucket sealed already (event time
	// 125 sealed [100,110) and [110,120)); its second is for the open one.
	j := strings.ReplaceAll(func() string { s, _ := batch(0, 115, 126); return s }(), "id=web", "id=new")
	b2, end2 := batch(end1, 131)
	in := "feed v=1\nstore id=web offset=0\n" + b1 + "store id=new offset=0\n" + j + b2 + "end id=web\nend id=new\n"
	out, err := runInput(t, dir, in)
	if err != nil {
		t.Fatal(err)
	}
	tp := readTape(t, dir)
	for _, want := range []string{
		"!late 1970-01-01T00:01:50Z id=new offset=0 end=8 count=1\n",
		"1970-01-01T00:02:00Z requests{status=\"200\"} 2\n",
		fmt.Sprintf("end at=web:%d,new:16\n", end2),
	} {
		if !strings.Contains(tp, want) {
			t.Errorf("tape lacks %q:\n%s", want, tp)
		}
	}
	if !strings.Contains(out, "progress id=new offset=16") {
		t.Errorf("no durable report for the joiner:\n%s", out)
	}
}

func TestAStoreJoiningMidRunThatTheTapeKnowsIsNotCountedTwice(t *testing.T) {
	dir := newStore(t)
	nb, _ := batch(0, 101, 102)
	nb = strings.ReplaceAll(nb, "id=web", "id=new")
	wb, wend := batch(0, 103)
	if _, err := runInput(t, dir, "feed v=1\nstore id=web offset=0\nstore id=new offset=0\n"+wb+nb+"end id=web\nend id=new\n"); err != nil {
		t.Fatal(err)
	}
	// A run without it: the tape's tail no longer names it.
	wb2, wend2 := batch(wend, 115, 125)
	if _, err := runInput(t, dir, fmt.Sprintf("feed v=1\nstore id=web offset=%d\n%send id=web\n", wend, wb2)); err != nil {
		t.Fatal(err)
	}
	before := readTape(t, dir)
	// It joins mid-run, replayed from 0: the tape already holds its entries.
	wb3, _ := batch(wend2, 135)
	if _, err := runInput(t, dir, fmt.Sprintf("feed v=1\nstore id=web offset=%d\n%sstore id=new offset=0\n%send id=web\nend id=new\n", wend2, wb3, nb)); err != nil {
		t.Fatal(err)
	}
	after := readTape(t, dir)
	if !strings.HasPrefix(after, before) || strings.Contains(after[len(before):], "id=new") || strings.Count(after, `requests{status="200"} 3`) != 1 {
		t.Fatalf("the joiner's entries were counted again:\n%s", after)
	}
}

func TestAStoreJoiningMidRunIsAskedTheWindowFeedOffered(t *testing.T) {
	dir := newStore(t)
	b1, _ := batch(0, 101)
	out, err := runInput(t, dir, "feed v=1 window=64\nstore id=web offset=0\n"+b1+"store id=new offset=0\n")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "progress id=new offset=0 window=64\n") {
		t.Fatalf("no window asked for the joiner:\n%s", out)
	}
}

// A tape may hold a line a later tally wrote, of a kind this one does not
// know (versions are additive). Reading the tape's tail backwards to
// resume, tally passes over it as every reader does, keeps it where it is
// (cutting only the torn group after it), and writes the same records as
// on a tape without it.
func TestALaterKindsLineOnTheTapeIsPassedOverOnResumeAndKeptWhereItIs(t *testing.T) {
	b1, _ := batch(0, 101, 112, 125)
	first := "feed v=1\nstore id=web offset=0\n" + b1 // interrupted: the bucket of 125 stays open
	b2, _ := batch(16, 125, 131)                      // from the open bucket's first entry, at byte 16
	second := "feed v=1\nstore id=web offset=16\n" + b2 + "end id=web\n"
	plain := newStore(t)
	for _, in := range []string{first, second} {
		if _, err := runInput(t, plain, in); err != nil {
			t.Fatal(err)
		}
	}
	const later = "identity id=web dev=1 ino=2\n"
	for _, torn := range []string{"", "2026-01-01T00:00:00Z requests{status=\"200\"} 1\n"} {
		dir := newStore(t)
		if _, err := runInput(t, dir, first); err != nil {
			t.Fatal(err)
		}
		before := readTape(t, dir)
		os.WriteFile(tallystore.At(dir).Tape(), []byte(before+later+torn), 0o644)
		if _, err := runInput(t, dir, second); err != nil {
			t.Fatalf("torn %q: %v", torn, err)
		}
		if got, want := readTape(t, dir), strings.Replace(readTape(t, plain), before, before+later, 1); got != want {
			t.Fatalf("torn %q: the tape is\n%s\nwant\n%s", torn, got, want)
		}
	}
}

// A damaged line in the tail tally reads to resume stops it before it
// writes anything, naming the line's byte and how to make the tape again.
func TestADamagedLineInTheTapesTailStopsTallyNamingItsByteAndTheFix(t *testing.T) {
	b1, _ := batch(0, 101, 112, 125)
	first := "feed v=1\nstore id=web offset=0\n" + b1
	dir := newStore(t)
	if _, err := runInput(t, dir, first); err != nil {
		t.Fatal(err)
	}
	before := readTape(t, dir)
	damaged := before + "garbage here\n"
	os.WriteFile(tallystore.At(dir).Tape(), []byte(damaged), 0o644)
	b2, _ := batch(16, 125, 131)
	_, err := runInput(t, dir, "feed v=1\nstore id=web offset=16\n"+b2+"end id=web\n")
	if err == nil {
		t.Fatal("tally resumed on a damaged tape")
	}
	for _, want := range []string{fmt.Sprintf("the line at byte %d:", len(before)), `"garbage here"`, "tgcheck --scan " + dir, "tally --provision --replace --doc"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error lacks %q: %v", want, err)
		}
	}
	if got := readTape(t, dir); got != damaged {
		t.Errorf("the tape was changed:\n%s", got)
	}
}

// --fields shows what the tape gets: a line's one trailing '\r' is not
// part of its fields, a second one is (bufio.ScanLines took one more).
func TestTryFieldsCutsALineEndingInTwoCRsAsTheTapeDoes(t *testing.T) {
	d, err := doc.Parse("test", []byte("format apache \"%h %t %>s %v\"\nfuture none\nwindow 10s grace=60s\nmetric r count by=vhost\n"))
	if err != nil {
		t.Fatal(err)
	}
	in := "h [10/Oct/2026:13:55:00 +0000] 200 v\r\r\nh [10/Oct/2026:13:55:01 +0000] 200 w\r\n"
	var tp, fields bytes.Buffer
	if err := try(d, nil, strings.NewReader(in), &tp, func(f string, a ...any) { t.Errorf(f, a...) }); err != nil {
		t.Fatal(err)
	}
	if err := tryFields(d, nil, strings.NewReader(in), &fields); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(tp.String(), "r{vhost=\"v\r\"} 1\n") || !strings.Contains(tp.String(), "r{vhost=\"w\"} 1\n") {
		t.Fatalf("the tape:\n%s", tp.String())
	}
	if !strings.Contains(fields.String(), "vhost  \"v\r\"\n") || !strings.Contains(fields.String(), "vhost  \"w\"\n") {
		t.Errorf("--fields, against the tape's v\\r and w:\n%q", fields.String())
	}
}
