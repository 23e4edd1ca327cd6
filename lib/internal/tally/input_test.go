package tally

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/timbertally/timbertally/lib/internal/tallystore"

	"github.com/timbertally/timbertally/lib/internal/doc"
)

// pipeReader returns at most n bytes a read, as a pipe does.
type pipeReader struct {
	r io.Reader
	n int
}

func (p *pipeReader) Read(b []byte) (int, error) {
	return p.r.Read(b[:min(len(b), p.n)])
}

// readyReader is a pipeReader that says what it holds ready, as a pipe
// does through FIONREAD: tally then reads ahead between pieces.
type readyReader struct{ pipeReader }

func (p *readyReader) waiting() int { return min(p.r.(*strings.Reader).Len(), p.n) }

func (p *readyReader) readReady(b []byte) (int, error) { return p.Read(b) }

func (p *readyReader) tells() bool { return true }

// readers returns in as a pipe that reads at most n bytes at a time, both
// without and with saying what it holds ready.
func readers(in string, n int) map[string]io.Reader {
	return map[string]io.Reader{
		"without read-ahead": &pipeReader{strings.NewReader(in), n},
		"with read-ahead":    &readyReader{pipeReader{strings.NewReader(in), n}},
	}
}

// frameBatches frames lines as batches of per entries of store web.
func frameBatches(lines []string, per int) string {
	var b strings.Builder
	b.WriteString("feed v=1\nstore id=web offset=0\n")
	pos := 0
	for i := 0; i < len(lines); i += per {
		body := strings.Join(lines[i:min(i+per, len(lines))], "\n") + "\n"
		fmt.Fprintf(&b, "batch id=web offset=%d end=%d entries=%d\n%s", pos, pos+len(body), min(per, len(lines)-i), body)
		pos += len(body)
	}
	b.WriteString("end id=web\n")
	return b.String()
}

func TestLinesAroundTheInputBufferSizeGiveTheTapeOfTryInAnyBatching(t *testing.T) {
	d, err := doc.Parse("test", []byte(testDoc))
	if err != nil {
		t.Fatal(err)
	}
	// long is an entry of n bytes with its '\n', the last before it a '\r' when cr.
	long := func(n int, cr bool) string {
		s := "130 " + strings.Repeat("x", n-1-len("130 "))
		if cr {
			s = s[:len(s)-1] + "\r"
		}
		return s
	}
	var lines []string
	short := func(k int) {
		for i := range k {
			lines = append(lines, fmt.Sprintf("%d %d", 100+i%50, 200+i%7))
		}
	}
	lines = append(lines, long(inputSize-1, false)) // first
	short(3)
	lines = append(lines, long(inputSize, false), long(inputSize+1, true), long(inputSize, true)) // consecutive
	short(30000)                                                                                  // ~300 KiB: the next starts inside a piece
	lines = append(lines, long(inputSize+1, false))
	short(3)
	lines = append(lines, long(inputSize-1, true), long(inputSize+2, false)) // last
	whole := strings.Join(lines, "\n") + "\n"
	var want bytes.Buffer
	if err := try(d, nil, strings.NewReader(whole), &want, func(string, ...any) {}); err != nil {
		t.Fatal(err)
	}
	for _, per := range []int{1, 7, len(lines)} {
		for _, read := range []int{1 << 20, 4093} {
			for how, in := range readers(frameBatches(lines, per), read) {
				dir := newStore(t)
				var out bytes.Buffer
				if err := run(dir, in, &out, func(string, ...any) {}); err != nil {
					t.Fatalf("batches of %d entries, reads of %d bytes, %s: %v", per, read, how, err)
				}
				if got, w := readTape(t, dir), strings.ReplaceAll(want.String(), "id=stdin", "id=web"); got != strings.ReplaceAll(w, "at=stdin:", "at=web:") {
					t.Fatalf("batches of %d entries, reads of %d bytes, %s: a tape of %d bytes, not try's %d", per, read, how, len(got), len(w))
				}
			}
		}
	}
}

func TestABadBatchWithALineOverTheInputBufferIsNamedByItsOwnHeader(t *testing.T) {
	body := "101 200\n130 " + strings.Repeat("x", inputSize) + "\n102 200\n"
	head := func(end, entries int) string {
		return fmt.Sprintf("batch id=web offset=0 end=%d entries=%d", end, entries)
	}
	next, _ := batch(int64(len(body)), 140)
	for name, tc := range map[string]struct{ in, msg string }{
		"too many entries": {head(len(body), 4) + "\n" + body + next + "end id=web\n", head(len(body), 4) + `": its ` + fmt.Sprint(len(body)) + " bytes hold 3 whole lines"},
		"too few entries":  {head(len(body), 2) + "\n" + body + next + "end id=web\n", head(len(body), 2) + `": its ` + fmt.Sprint(len(body)) + " bytes hold 3 whole lines"},
		"a cut batch":      {head(len(body), 3) + "\n" + body[:len(body)-3], head(len(body), 3) + `": input ended inside the batch (unexpected EOF): nothing of it is on the tape; if feed was stopped, run it again to resume from its cursor`},
		"a short end":      {head(len(body)-1, 3) + "\n" + body + next + "end id=web\n", head(len(body)-1, 3) + `": its`},
	} {
		t.Run(name, func(t *testing.T) {
			for _, read := range []int{1 << 20, 4093} {
				for how, in := range readers("feed v=1\nstore id=web offset=0\n"+tc.in, read) {
					dir := newStore(t)
					err := run(dir, in, io.Discard, func(string, ...any) {})
					if err == nil || !strings.HasPrefix(err.Error(), `"`+tc.msg) {
						t.Fatalf("reads of %d bytes, %s: want an error starting %q, got %.200v", read, how, `"`+tc.msg, err)
					}
					if tp := readTape(t, dir); tp != "" {
						t.Fatalf("reads of %d bytes, %s: the bad batch reached the tape:\n%.300s", read, how, tp)
					}
				}
			}
		})
	}
}

// tapeAtReport is feed's side of the pipe: when a report says taken=at, it
// records how big the tape was at that moment.
type tapeAtReport struct {
	dir, at string
	size    int64 // -1 until the report came
}

func (w *tapeAtReport) Write(b []byte) (int, error) {
	if w.size < 0 && strings.Contains(string(b), " taken="+w.at+"\n") {
		fi, err := os.Stat(tallystore.At(w.dir).Tape())
		if err != nil {
			return 0, err
		}
		w.size = fi.Size()
	}
	return len(b), nil
}

func TestABatchAlreadyInThePipeIsReportedTakenBeforeTheOneBeforeItIsBucketed(t *testing.T) {
	// The first batch seals the bucket of 101 and 105 (112 passes its end),
	// so once it is bucketed the tape is not empty.
	b1, end1 := batch(0, 101, 105, 112)
	b2, end2 := batch(end1, 113, 125)
	head := "feed v=1\nstore id=web offset=0\n" + b1
	for how, r := range readers(head+b2+"end id=web\n", len(head)) { // the first read ends with the first batch
		dir := newStore(t)
		out := &tapeAtReport{dir: dir, at: fmt.Sprint(end2), size: -1}
		if err := run(dir, r, out, func(string, ...any) {}); err != nil {
			t.Fatal(err)
		}
		ahead := how == "with read-ahead"
		if out.size < 0 || (out.size == 0) != ahead {
			t.Errorf("%s: the tape was %d bytes when the second batch was reported taken; want %s", how, out.size, map[bool]string{true: "0 (the first not bucketed yet)", false: "the first batch's seal"}[ahead])
		}
	}
}

func TestAPipeSaysHowManyBytesItHoldsReady(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	src := newFileSource(r)
	if n := src.waiting(); n != 0 {
		t.Fatalf("an empty pipe holds %d bytes ready, want 0", n)
	}
	if _, err := w.Write(make([]byte, 1000)); err != nil {
		t.Fatal(err)
	}
	if n := src.waiting(); n != 1000 {
		t.Fatalf("a pipe written 1000 bytes holds %d ready", n)
	}
	if n := newFileSource(strings.NewReader("abc")).waiting(); n != 0 {
		t.Fatalf("a reader that is not a descriptor cannot tell, so 0; got %d", n)
	}
	// They are called a few times a batch: garbage made there grew tally's
	// heap over a long run.
	buf := make([]byte, 10)
	if allocs := testing.AllocsPerRun(100, func() {
		src.waiting()
		w.Write(buf)
		src.readReady(buf)
	}); allocs != 0 {
		t.Fatalf("waiting and readReady allocate %v times a call, want 0", allocs)
	}
}

// FuzzReadAheadChangesNothing: whatever feed's input, reading ahead between
// pieces gives the same tape and the same error as reading only when tally
// must wait.
func FuzzReadAheadChangesNothing(f *testing.F) {
	b1, end1 := batch(0, 101, 105, 112)
	b2, end2 := batch(end1, 113, 125)
	b3, _ := batch(end2, 126)
	f.Add(b1+b2+"end id=web\n", uint16(7))
	f.Add(b1+"idle id=web quiet=5000\n"+b2+"skip id=web offset="+fmt.Sprint(end2)+" end=900 reason=too-long\n", uint16(40))
	f.Add(b1+strings.Replace(b2, "entries=2", "entries=3", 1)+b3, uint16(300))
	f.Add(b1+b2[:len(b2)-1]+"x\n"+b3, uint16(4000))
	f.Add("batch id=web offset=0 end=4 entries=1\n1 2", uint16(1))
	f.Add(b1+"batch id=web offset="+fmt.Sprint(end1)+" end=9223372036854775807 entries=1\n1 2\n", uint16(9))
	// Two stores for all inputs, their tapes emptied before each run:
	// provisioning per input (fsyncs) made the target ~20 times slower.
	dirs := [2]string{newStore(f), newStore(f)}
	f.Fuzz(func(t *testing.T, body string, read uint16) {
		in := "feed v=1\nstore id=web offset=0\n" + body
		n := int(read)%8192 + 1
		var tapes, errs [2]string
		for i, r := range []io.Reader{&pipeReader{strings.NewReader(in), n}, &readyReader{pipeReader{strings.NewReader(in), n}}} {
			dir := dirs[i]
			if err := os.Truncate(tallystore.At(dir).Tape(), 0); err != nil {
				t.Fatal(err)
			}
			os.Remove(tallystore.At(dir).Bindings()) // a tape emptied is a new store
			if err := run(dir, r, io.Discard, func(string, ...any) {}); err != nil {
				errs[i] = err.Error()
			}
			tapes[i] = readTape(t, dir)
		}
		if errs[0] != errs[1] || tapes[0] != tapes[1] {
			t.Fatalf("reads of %d bytes: without read-ahead %q and the tape\n%s\nwith read-ahead %q and the tape\n%s", n, errs[0], tapes[0], errs[1], tapes[1])
		}
	})
}

func TestABatchHeaderWithTheLargestEndIsAnErrorNamingItNotAPanic(t *testing.T) {
	const huge = "batch id=web offset=%d end=9223372036854775807 entries=1\n1 200\n"
	b1, end1 := batch(0, 101)
	for name, in := range map[string]string{
		"as the batch being read":    fmt.Sprintf(huge, 0),
		"after the batch being read": b1 + fmt.Sprintf(huge, end1),
	} {
		for how, r := range readers("feed v=1\nstore id=web offset=0\n"+in, 1<<20) {
			err := run(newStore(t), r, io.Discard, func(string, ...any) {})
			if err == nil || !strings.Contains(err.Error(), "end=9223372036854775807 entries=1\": input ended inside the batch") {
				t.Errorf("%s, %s: want an error naming the header, got %v", name, how, err)
			}
		}
	}
}

func TestABatchAnnouncingAGigabyteThatNeverComesCostsOnlyWhatCame(t *testing.T) {
	// 3 MiB of one line, over the 2 MiB input buffer, then the input ends.
	line := "130 " + strings.Repeat("x", 3<<20)
	in := fmt.Sprintf("feed v=1\nstore id=web offset=0\nbatch id=web offset=0 end=%d entries=1\n%s", 1<<30, line)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err := run(newStore(t), strings.NewReader(in), io.Discard, func(string, ...any) {})
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "input ended inside the batch") {
		t.Fatalf("want the cut batch named, got %v", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 64<<20 {
		t.Fatalf("allocated %d MiB for 3 MiB of input", got>>20)
	}
}

// lateSource holds bytes that arrive after a few looks, as feed's next
// batch does a few microseconds after tally runs out of input.
type lateSource struct {
	looks, after int
	data         []byte
	blocked      bool // Read, the read that waits, was called
}

func (s *lateSource) waiting() int {
	if s.looks++; s.looks > s.after {
		return len(s.data)
	}
	return 0
}

func (s *lateSource) readReady(p []byte) (int, error) {
	n := copy(p, s.data)
	s.data = s.data[n:]
	return n, nil
}

func (s *lateSource) Read(p []byte) (int, error) {
	s.blocked = true
	return s.readReady(p)
}

func (s *lateSource) tells() bool { return true }

// Out of input, tally polls for feed's next batch before it blocks (and
// sleeps, to be woken onto feed's CPU): bytes that arrive meanwhile are
// read without a wait. It looks once at least: on a loaded machine one
// yield may outlast the whole budget, so the bytes here are there at the
// first look, and the test does not depend on the machine's speed.
func TestTallyPollsForInputThatArrivesSoonInsteadOfBlocking(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2)) // polling is off with one CPU
	src := &lateSource{after: 0, data: []byte("batch id=web offset=0 end=8 entries=1\n")}
	in := newInput(src)
	in.fill(0, false)
	if src.blocked || in.w != len("batch id=web offset=0 end=8 entries=1\n") {
		t.Fatalf("blocked %v, %d bytes read; want the bytes read once they came, without blocking", src.blocked, in.w)
	}
}

// A batch larger than aheadSize that fits the input buffer is read whole
// as soon as it is there, so that it is reported taken (and feed sends the
// next) before it is bucketed; past the batch, only aheadSize is read ahead.
func TestABatchLargerThanTheReadAheadIsReadWholeOnceItHasArrived(t *testing.T) {
	data := bytes.Repeat([]byte("x"), 3*aheadSize)
	for _, c := range []struct {
		until int64
		want  int
	}{{until: int64(2*aheadSize + 10), want: 3 * readSize}, {until: 0, want: aheadSize}} {
		in := newInput(&lateSource{data: bytes.Clone(data)})
		for range 8 { // a batch's pieces each pull once
			in.pull(c.until)
		}
		if got := in.w - in.r; got != c.want {
			t.Errorf("reading ahead to input position %d: %d bytes buffered, want %d", c.until, got, c.want)
		}
	}
}
