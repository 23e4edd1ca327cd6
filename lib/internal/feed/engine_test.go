package feed

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/timbertally/timbertally/lib/internal/store"
)

// slowAck acks each batch's end, but only after holding it for 200 ms: a
// consumer a 1 ms --stall catches parked with no report.
const slowAck = `exec 4>>in.txt
while IFS= read -r line; do
	echo "$line" >&4
	set -- $line
	case $1 in
	batch)
		n=${5#entries=}
		i=0; while [ $i -lt $n ]; do IFS= read -r entry; i=$((i+1)); done
		sleep ${HOLD:-0}
		printf 'progress id=%s offset=%s\n' "${2#id=}" "${4#end=}";;
	esac
done
`

// runFeed runs feed one-shot in a temporary directory over a store s.log
// holding content, with the slowAck consumer holding each batch hold
// seconds; it returns the directory, what was printed and the exit status.
func runFeed(t *testing.T, content, hold string, edit func(*Options)) (string, string, int) {
	t.Helper()
	return runFeedIn(t, t.TempDir(), content, hold, edit)
}

// runFeedIn is runFeed in dir, which may hold a cursor from an earlier run.
func runFeedIn(t *testing.T, dir, content, hold string, edit func(*Options)) (string, string, int) {
	t.Helper()
	os.WriteFile(filepath.Join(dir, "s.log"), []byte(content), 0o644)
	os.WriteFile(filepath.Join(dir, "ack.sh"), []byte(slowAck), 0o644)
	t.Chdir(dir)
	t.Setenv("HOLD", hold)
	var stderr bytes.Buffer
	opt := Options{Stores: []Store{{ID: "s", Path: "s.log"}}, Consumer: []string{"sh", "ack.sh"},
		Cursor: "cur", BatchSize: 512, IdleTick: time.Second, MaxLine: store.DefaultMaxLine, Stderr: &stderr}
	edit(&opt)
	status, err := Run(opt, make(chan os.Signal))
	if err != nil {
		stderr.WriteString(err.Error())
	}
	return dir, stderr.String(), status
}

func TestFromEndStartsAfterTheLastCompleteLine(t *testing.T) {
	dir, stderr, status := runFeed(t, "a\nb\npart", "0", func(o *Options) { o.FromEnd = true })
	in, _ := os.ReadFile(filepath.Join(dir, "in.txt"))
	want := "feed v=1 window=786432 cursor=" + filepath.Join(dir, "cur") + "\nstore id=s offset=4 gen=0 sig=bad43928 siglen=8 from=end spec=s=" + filepath.Join(dir, "s.log") + "\nend id=s\n"
	if status != 0 || string(in) != want {
		t.Fatalf("status %d, %s; the consumer read %q, want the store at 4 and no batch", status, stderr, in)
	}
}

func TestTheFeedLineAndStoreLinesNameTheCursorAndStoresAbsolute(t *testing.T) {
	dir, stderr, status := runFeed(t, "a\nb\n", "0", func(o *Options) {
		o.Stores = []Store{{ID: "s", History: []string{"old log.1"}, Path: "s.log"}}
		os.WriteFile("old log.1", []byte("x\n"), 0o644)
	})
	in, _ := os.ReadFile(filepath.Join(dir, "in.txt"))
	lines := strings.Split(string(in), "\n")
	hello := "feed v=1 window=786432 cursor=" + filepath.Join(dir, "cur")
	spec := " spec=s=" + strings.ReplaceAll(filepath.Join(dir, "old log.1"), " ", "%20") + "," + filepath.Join(dir, "s.log")
	if status != 0 || len(lines) < 2 || lines[0] != hello || !strings.HasSuffix(lines[1], spec) {
		t.Fatalf("status %d, %s; the consumer read %q, want %q and a store line ending %q", status, stderr, in, hello, spec)
	}
}

func TestTheCursorWinsOverFromEndAndResetWinsOverBoth(t *testing.T) {
	dir, _, _ := runFeed(t, "a\nb\n", "0", func(o *Options) { o.FromEnd = true })
	os.WriteFile(filepath.Join(dir, "cur"), []byte("store id=s offset=2\n"), 0o644)
	os.Remove(filepath.Join(dir, "in.txt"))
	for _, c := range []struct {
		reset bool
		want  string
	}{{false, "store id=s offset=2 gen=0 sig=18572a97 siglen=4 from=cursor spec="}, {true, "store id=s offset=0 gen=0 sig=18572a97 siglen=4 from=start spec="}} {
		opt := Options{Stores: []Store{{ID: "s", Path: "s.log"}}, Consumer: []string{"sh", "ack.sh"}, Cursor: "cur",
			BatchSize: 512, IdleTick: time.Second, MaxLine: store.DefaultMaxLine, Stderr: &bytes.Buffer{}, FromEnd: true, Reset: c.reset}
		if status, err := Run(opt, make(chan os.Signal)); status != 0 || err != nil {
			t.Fatalf("reset %v: status %d, %v", c.reset, status, err)
		}
		in, _ := os.ReadFile(filepath.Join(dir, "in.txt"))
		if !strings.Contains(string(in), c.want) {
			t.Fatalf("reset %v: the consumer read %q, want %q", c.reset, in, c.want)
		}
		os.Remove(filepath.Join(dir, "in.txt"))
	}
}

func TestResetReplacesACursorThatDoesNotParse(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "cur.bad"), []byte("garbage\n"), 0o644)
	_, stderr, status := runFeed(t, "a\n", "0", func(o *Options) {
		o.Cursor, o.Reset = filepath.Join(dir, "cur.bad"), true
	})
	got, _ := os.ReadFile(filepath.Join(dir, "cur.bad"))
	if status != 0 || !strings.Contains(stderr, "--reset replaces it") || !strings.HasPrefix(string(got), "store id=s offset=2 ") {
		t.Fatalf("status %d, %q; cursor %q: want it replaced at 2", status, stderr, got)
	}
}

func TestAParkedStoreWithNoReportIsWarnedOnce(t *testing.T) {
	content := strings.Repeat("x\n", 3)
	_, stderr, status := runFeed(t, content, "0.2", func(o *Options) { o.Stall, o.BatchSize = time.Millisecond, 1 })
	if n := strings.Count(stderr, "store s has been parked for 1ms with no report"); status != 0 || n != 1 {
		t.Fatalf("status %d; the stall warning was printed %d times, want once:\n%s", status, n, stderr)
	}
	// A consumer whose report sits in an unflushed buffer (Python's print
	// into a pipe) looks the same: the warning names it, not only taken=.
	if !strings.Contains(stderr, "wrote its report into a buffer it has not flushed (a consumer must flush its stdout after each report") {
		t.Fatalf("the stall warning does not name an unflushed report:\n%s", stderr)
	}
}

func TestQuietSilencesNotesButNeverTheStallWarning(t *testing.T) {
	_, stderr, status := runFeed(t, strings.Repeat("x\n", 3), "0.2", func(o *Options) { o.Stall, o.BatchSize, o.Quiet = time.Millisecond, 1, true })
	if n := strings.Count(stderr, "store s has been parked for 1ms with no report"); status != 0 || n != 1 || strings.Count(stderr, "\n") != 1 {
		t.Fatalf("status %d; -q printed %q, want the stall warning once and nothing else", status, stderr)
	}
}

// diesParked acks the first batch, then dies by SIGKILL holding the second,
// leaving a grandchild (its pid in sleep.pid) that holds its stdout open.
const diesParked = `n=0
while IFS= read -r line; do
	set -- $line
	case $1 in
	batch)
		k=${5#entries=}
		i=0; while [ $i -lt $k ]; do IFS= read -r entry; i=$((i+1)); done
		n=$((n+1))
		if [ $n -lt 2 ]; then printf 'progress id=s offset=%s\n' "${4#end=}"; continue; fi
		sleep 60 </dev/null &
		echo $! > sleep.pid
		kill -9 $$;;
	esac
done
`

func TestAConsumerThatDiesWhileParkedStopsFeedEvenWhenAGrandchildHoldsItsStdout(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	os.WriteFile("s.log", []byte(strings.Repeat("x\n", 10)), 0o644)
	os.WriteFile("dies.sh", []byte(diesParked), 0o644)
	t.Cleanup(func() {
		if b, err := os.ReadFile(filepath.Join(dir, "sleep.pid")); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	var stderr bytes.Buffer
	opt := Options{Stores: []Store{{ID: "s", Path: "s.log"}}, Consumer: []string{"sh", "dies.sh"}, Cursor: "cur",
		BatchSize: 2, IdleTick: time.Second, MaxLine: store.DefaultMaxLine, Stderr: &stderr}
	type result struct {
		status int
		err    error
	}
	done := make(chan result, 1)
	go func() {
		status, err := Run(opt, make(chan os.Signal))
		done <- result{status, err}
	}()
	select {
	case r := <-done:
		cur, _ := os.ReadFile("cur")
		if r.status != 1 || r.err == nil || !strings.Contains(r.err.Error(), "the consumer sh died of signal killed") ||
			!strings.HasPrefix(string(cur), "store id=s offset=4 ") {
			t.Fatalf("status %d, %v; cursor %q: want status 1, the consumer's death named and the cursor at 4", r.status, r.err, cur)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("feed still waits, parked, 20 s after its consumer died")
	}
}

func TestTwoStoresThatAreOneFileAreRefused(t *testing.T) {
	_, stderr, status := runFeed(t, "a\nb\n", "0", func(o *Options) {
		os.Link("s.log", "t.log")
		o.Stores = []Store{{ID: "s", Path: "s.log"}, {ID: "again", Path: "./s.log"}, {ID: "t", Path: "t.log"}}
	})
	if status == 0 || !strings.Contains(stderr, "feed: stores s and again are the same file (./s.log): its entries would be counted twice") {
		t.Fatalf("status %d, stderr %q", status, stderr)
	}
}

// An idle line says a store has nothing new. Its last read may be up to a
// poll interval old when the idle falls due, and lines written meanwhile
// would then be sent after an idle whose quiet time could carry the event
// time past their bucket: they would be late. So the store is read once
// more first, and the idle goes out only if that read finds nothing.
func TestAStoreIsReadOnceMoreBeforeItsIdleLine(t *testing.T) {
	for _, grows := range []bool{true, false} {
		f := openFeeder(t, "", func(o *Options) { o.Follow = true })
		path := f.opt.Stores[0].Path
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		f.w = &writer{fd: int(w.Fd()), wait: func() error { return nil }}
		if err := f.prepare(); err != nil {
			t.Fatal(err)
		}
		s, now := f.streams[0], time.Now()
		// The idle falls due now; the store was last read 200 ms before.
		f.clock.polledAt, s.sentAt, s.dryAt = now, now.Add(-f.opt.IdleTick), now.Add(-f.opt.IdleTick-200*time.Millisecond)
		if grows {
			os.WriteFile(path, []byte("a line written since the last read\n"), 0o644)
		}
		polled, err := f.tick(now)
		if err != nil || !polled || s.dry {
			t.Fatalf("grows %v: want the store read again before its idle, got polled %v, dry %v, %v", grows, polled, s.dry, err)
		}
		if err := f.prepare(); err != nil {
			t.Fatal(err)
		}
		if _, err := f.tick(time.Now()); err != nil {
			t.Fatal(err)
		}
		w.Close()
		out, _ := io.ReadAll(r)
		if idle := strings.HasPrefix(string(out), "idle id=s quiet="); s.ready != grows || idle == grows {
			t.Fatalf("grows %v: want the line ready and no idle, or an idle: ready %v, sent %q", grows, s.ready, out)
		}
	}
}

// The cursor knows a file by its identity, not only by the store's id: the
// same file under a new id would be read again from the start and its
// entries counted twice by a tally store fed from both ids.
func TestAFileTheCursorFollowsUnderAnotherIdIsRefused(t *testing.T) {
	content := strings.Repeat("an entry\n", 10)
	dir, msg, status := runFeed(t, content, "0", func(*Options) {})
	if status != 0 {
		t.Fatalf("first run: exit %d: %s", status, msg)
	}
	t.Chdir(dir)
	var stderr bytes.Buffer
	opt := Options{Stores: []Store{{ID: "t", Path: "s.log"}}, Consumer: []string{"sh", "ack.sh"},
		Cursor: "cur", BatchSize: 512, IdleTick: time.Second, MaxLine: store.DefaultMaxLine, Stderr: &stderr}
	status, err := Run(opt, make(chan os.Signal))
	if status == 0 || err == nil || !strings.Contains(err.Error(), "store t (s.log) is the file the cursor follows as store s; name it s=s.log") {
		t.Fatalf("exit %d, %v", status, err)
	}
	opt.Reset = true
	if status, err := Run(opt, make(chan os.Signal)); status != 0 {
		t.Fatalf("--reset: exit %d, %v", status, err)
	}
	// A FIFO under a new id is not opened to be compared (that would block
	// until a writer came): it is refused as no log file, at once.
	if err := syscall.Mkfifo("fifo", 0o644); err != nil {
		t.Fatal(err)
	}
	opt.Stores, opt.Reset = []Store{{ID: "f", Path: "fifo"}}, false
	done := make(chan error, 1)
	go func() { _, err := Run(opt, make(chan os.Signal)); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a log file") {
			t.Fatalf("a FIFO store: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("feed blocked opening a FIFO store to compare it with the cursor's files")
	}
}

// A wait for the report on the last batch is timed from the send, but
// feed may have spent all of spin.Max since then on its own work (a read
// of the store): it still polls, and a report that is there is taken
// without sleeping.
func TestAWaitThatBeginsLateStillPolls(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2)) // polling is off with one CPU
	f := openFeeder(t, "an entry\n", func(*Options) {})
	now := time.Now()
	reports := parkOnABatch(t, f, now.Add(-time.Second))
	syscall.Write(reports, []byte("progress id=s offset=9 taken=9\n"))
	if !f.poll(now) {
		t.Fatal("a wait a second after the send slept with the report in the pipe")
	}
}

// Before its first report the consumer is starting up: feed sleeps rather
// than poll, so the misses it would make then do not rest polling for the
// batches that follow.
func TestFeedDoesNotPollForAConsumerThatHasNotReportedYet(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2)) // polling is off with one CPU
	f := openFeeder(t, "an entry\n", func(*Options) {})
	reports := parkOnABatch(t, f, time.Now())
	for range 3 {
		if f.poll(time.Now()) {
			t.Fatal("a batch was taken with no report")
		}
	}
	syscall.Write(reports, []byte("progress id=s offset=9 taken=9\n"))
	if !f.poll(time.Now()) {
		t.Fatal("the first report found feed resting: the waits before it counted as misses")
	}
}

// openFeeder opens a feeder over a store s.log holding content, for tests
// of the main loop's parts; edit adjusts its options first. Its stores are
// closed when the test ends.
func openFeeder(t *testing.T, content string, edit func(*Options)) *feeder {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.log")
	os.WriteFile(path, []byte(content), 0o644)
	opt := Options{Stores: []Store{{ID: "s", Path: path}}, BatchSize: 512, IdleTick: time.Second, MaxLine: store.DefaultMaxLine}
	edit(&opt)
	if opt.Stderr == nil {
		opt.Stderr = io.Discard
	}
	f := newFeeder(opt)
	if err := f.open(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.closeStores)
	return f
}

// parkOnABatch has f's store wait for the report on a batch it sent at
// sent, the consumer's reports coming through a pipe whose write end it
// returns.
func parkOnABatch(t *testing.T, f *feeder, sent time.Time) int {
	t.Helper()
	var p [2]int
	if err := pipe2(p[:], syscall.O_NONBLOCK); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(p[0]); syscall.Close(p[1]) })
	f.con = &consumer{rep: p[0], in: -1}
	f.led.deliver(0, 9, true)
	f.streams[0].ready, f.streams[0].sentAt = true, sent
	return p[1]
}

// spliceable is 1 MiB of lines: store.Reader.Source vouches only for
// chunks that far into a file.
var spliceable = strings.Repeat(strings.Repeat("p", 1023)+"\n", 1024)

// chunkAfter writes a store of spliceable then lines, reads the chunk of
// lines after the prefix, and returns it with a stream and a feeder whose
// writer writes to the write end of a pipe it also returns, the feeder's
// end, sized to size bytes. wait is the writer's wait for room.
func chunkAfter(t *testing.T, lines string, size int, wait func() error) (*feeder, *stream, store.Chunk, *os.File, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.log")
	os.WriteFile(path, []byte(spliceable+lines), 0o644)
	r, err := store.Open(path, int64(len(spliceable)), store.DefaultMaxLine)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	c, ok, err := r.Next(1<<20, 8<<20)
	if !ok || err != nil || string(c.Data) != lines {
		t.Fatalf("the chunk after the prefix: %q, %v, %v", c.Data, ok, err)
	}
	pw, pr, err := pipe(false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pr.Close(); syscall.Close(pw) })
	syscall.Syscall(syscall.SYS_FCNTL, uintptr(pw), fSetPipeSz, uintptr(size))
	f := &feeder{w: &writer{fd: pw, wait: wait}, led: &ledger{}}
	return f, &stream{r: r}, c, pr, path
}

// Entries are spliced from the store's file only while it still holds the
// bytes they were cut from: a store truncated in place and regrown with
// other lines between the read and the send gets the lines as read, which
// the batch's header counts, not the new ones.
func TestABatchSendsTheBytesItWasCutFromWhenTheStoreChangedUnderIt(t *testing.T) {
	f, s, c, r, path := chunkAfter(t, "one\ntwo\n", 1<<20, nil)
	os.WriteFile(path, []byte(strings.ToUpper(spliceable)+"ONE\nTWO\nTHREE\n"), 0o644)
	if err := f.sendEntries(s, c); err != nil {
		t.Fatal(err)
	}
	syscall.Close(f.w.fd)
	if out, _ := io.ReadAll(r); string(out) != "one\ntwo\n" {
		t.Fatalf("sent %q, want the lines as read", out)
	}
}

// A batch larger than the pipe is spliced in parts, with waits for the
// consumer between them that may last as long as it takes: a copytruncate
// refilled during one must not put its lines into the rest of the batch.
func TestABatchLargerThanThePipeIsNotSplicedFromAStoreCutWhileItWaits(t *testing.T) {
	lines := strings.Repeat("an old line of the store, read before the cut\n", 2000) // ~92 KiB
	var out []byte
	var r *os.File
	var path string
	cut := false
	wait := func() error {
		if !cut { // the consumer is slow; the store is rotated by copytruncate meanwhile
			cut = true
			os.WriteFile(path, []byte(strings.Repeat("A NEW LINE WRITTEN AFTER THE CUT, NOT SENT YET\n", 40000)), 0o644)
		}
		b := make([]byte, 1<<20)
		n, _ := r.Read(b)
		out = append(out, b[:n]...)
		return nil
	}
	var f *feeder
	var s *stream
	var c store.Chunk
	f, s, c, r, path = chunkAfter(t, lines, 16<<10, wait)
	if err := f.sendEntries(s, c); err != nil {
		t.Fatal(err)
	}
	syscall.Close(f.w.fd)
	rest, _ := io.ReadAll(r)
	if out = append(out, rest...); !cut || string(out) != lines {
		t.Fatalf("waited %v; the batch arrived as %d bytes, %d of them new lines; want the %d bytes as read",
			cut, len(out), strings.Count(string(out), "NEW LINE"), len(lines))
	}
}

// lingerAck acks like slowAck, then closes its stdout and stays until the
// cursor holds its last offset ($END), for at most 5 s: exit 0 if it saw
// it, 3 if not.
const lingerAck = `while IFS= read -r line; do
	set -- $line
	case $1 in
	batch)
		n=${5#entries=}
		i=0; while [ $i -lt $n ]; do IFS= read -r entry; i=$((i+1)); done
		printf 'progress id=%s offset=%s\n' "${2#id=}" "${4#end=}";;
	esac
done
exec >&-
i=0
while [ $i -lt 100 ]; do
	grep -q "offset=$END " cur && exit 0
	sleep 0.05; i=$((i+1))
done
exit 3
`

// The last reports are durable whatever the consumer's exit, so the cursor
// is written as they arrive, while the consumer still exits, not after it.
func TestTheCursorIsWrittenWhileTheConsumerIsStillExiting(t *testing.T) {
	_, stderr, status := runFeed(t, "a\nb\n", "0", func(o *Options) {
		os.WriteFile("linger.sh", []byte(lingerAck), 0o644)
		t.Setenv("END", "4")
		o.Consumer = []string{"sh", "linger.sh"}
	})
	cur, _ := os.ReadFile("cur")
	if status != 0 || !strings.HasPrefix(string(cur), "store id=s offset=4 ") {
		t.Fatalf("exit %d (%s), cursor %q: want 0, and the cursor at 4 before the consumer exited", status, stderr, cur)
	}
}

// A file that looks like a generation renamed away before feed reached it
// is named in a warning: the rotation skips it, but not without a word.
func TestAFileSkippedBetweenTwoRotationsIsNamedInAWarning(t *testing.T) {
	var stderr bytes.Buffer
	f := openFeeder(t, "gen1\n", func(o *Options) { o.Follow, o.Stderr, o.Quiet = true, &stderr, true })
	_, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	f.w = &writer{fd: int(w.Fd()), wait: func() error { return nil }}
	if err := f.prepare(); err != nil {
		t.Fatal(err)
	}
	f.streams[0].ready = false // sent and taken
	p := f.opt.Stores[0].Path
	old := time.Now().Add(-time.Hour)
	os.Chtimes(p, old, old)
	os.Rename(p, p+".2")
	os.WriteFile(p+".1", []byte("gen2\n"), 0o644)
	os.WriteFile(p, []byte("gen3\n"), 0o644)
	if err := f.prepare(); err != nil {
		t.Fatal(err)
	}
	if want := "feed: store s: " + p + ".1 was written after the file feed was reading and renamed away before feed reached it"; !strings.Contains(stderr.String(), want) {
		t.Fatalf("stderr %q; want the skipped file named, even with -q", stderr.String())
	}
}

// windowAck asks for a window of WINDOW bytes before any batch (a report at
// the resume position, 0), then reads BATCHES batches without a report
// between them, and acks the last one's end: only a feed that sends ahead
// of taken gets it that far. Every line it read goes to in.txt.
const windowAck = `exec 4>>in.txt
IFS= read -r hello; echo "$hello" >&4
IFS= read -r store; echo "$store" >&4
printf 'progress id=s offset=0 window=%s\n' "$WINDOW"
b=0
while [ $b -lt $BATCHES ] && IFS= read -r line; do
	echo "$line" >&4
	set -- $line
	n=${5#entries=}; end=${4#end=}
	i=0; while [ $i -lt $n ]; do IFS= read -r entry; i=$((i+1)); done
	b=$((b+1))
done
printf 'progress id=s offset=%s\n' "$end"
while IFS= read -r line; do echo "$line" >&4; done
`

// runWindowed runs feed over "a\n"... (4 entries of 2 bytes, batches of
// one entry) into windowAck asking for window bytes and acking after
// batches; it returns what the consumer read, or fails after 10 s (a feed
// that parks waits for a report that never comes).
func runWindowed(t *testing.T, window, batches int) string {
	t.Helper()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "s.log"), []byte("a\nb\nc\nd\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "ack.sh"), []byte(windowAck), 0o644)
	t.Chdir(dir)
	t.Setenv("WINDOW", strconv.Itoa(window))
	t.Setenv("BATCHES", strconv.Itoa(batches))
	var stderr bytes.Buffer
	opt := Options{Stores: []Store{{ID: "s", Path: "s.log"}}, Consumer: []string{"sh", "ack.sh"},
		Cursor: "cur", BatchSize: 1, IdleTick: time.Second, MaxLine: store.DefaultMaxLine, Stderr: &stderr}
	done := make(chan int, 1)
	go func() {
		status, err := Run(opt, make(chan os.Signal))
		if err != nil {
			stderr.WriteString(err.Error())
		}
		done <- status
	}()
	select {
	case status := <-done:
		in, _ := os.ReadFile(filepath.Join(dir, "in.txt"))
		if status != 0 {
			t.Fatalf("status %d: %s", status, stderr.String())
		}
		return string(in)
	case <-time.After(10 * time.Second):
		in, _ := os.ReadFile(filepath.Join(dir, "in.txt"))
		t.Fatalf("feed and a consumer that asked for a window of %d bytes stalled; it read %q", window, in)
	}
	return ""
}

func TestAConsumerThatAsksForAWindowGetsBatchesBeforeItReports(t *testing.T) {
	in := runWindowed(t, 8, 4)                                                 // four batches of 2 bytes in a window of 8
	in = regexp.MustCompile(` (cursor|spec)=[^ \n]+`).ReplaceAllString(in, "") // TestTheFeedLineAndStoreLinesNameTheCursorAndStoresAbsolute
	want := "feed v=1 window=786432\nstore id=s offset=0 gen=0 sig=17df0c74 siglen=8 from=start\n" +
		"batch id=s offset=0 end=2 entries=1\nbatch id=s offset=2 end=4 entries=1\n" +
		"batch id=s offset=4 end=6 entries=1\nbatch id=s offset=6 end=8 entries=1\nend id=s\n"
	if in != want {
		t.Fatalf("the consumer read\n%s\nwant\n%s", in, want)
	}
}

// With one CPU feed does not poll, but before the consumer's first report
// poll still looks once: a first report already taking the batch in flight
// must then let the next batch go, not leave feed asleep on reports it has
// read while the consumer waits for that batch (a pipeline that hung at
// its start, one run in ~30 at --batch-size 65536 with GOMAXPROCS=1).
func TestWithOneCPUAFirstReportThatTakesTheBatchLetsTheNextOneGo(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	f := openFeeder(t, "an entry\n", func(*Options) {})
	reports := parkOnABatch(t, f, time.Now())
	syscall.Write(reports, []byte("progress id=s offset=0 window=786432\nprogress id=s offset=0 taken=9 window=786432\n"))
	if f.mustWait(time.Now()) {
		t.Fatal("the first report took the batch in flight, and feed would sleep with the next one ready")
	}
	if f.led.parked(0) {
		t.Fatal("the report was not read")
	}
}

// Under --follow a store at its live edge, looked at again and again with
// nothing new, has feed run on one P (spin.Procs); a backlog read brings
// the default back (which P count that is, package spin's tests say: on a
// one-CPU machine it is 1 again).
func TestAFollowedStoreAtItsLiveEdgeRunsFeedOnOneP(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	f := openFeeder(t, "", func(o *Options) { o.Follow = true })
	for range 20 {
		f.streams[0].dry = false
		if err := f.prepare(); err != nil {
			t.Fatal(err)
		}
	}
	if runtime.GOMAXPROCS(0) != 1 {
		t.Fatalf("a store dry 20 times in a row left feed at GOMAXPROCS %d", runtime.GOMAXPROCS(0))
	}
	os.WriteFile(f.streams[0].Path, []byte(strings.Repeat(strings.Repeat("b", 99)+"\n", 3<<14)), 0o644)
	for range 40 { // 512 entries a chunk: 2 MB in all
		f.streams[0].dry, f.streams[0].ready = false, false
		if err := f.prepare(); err != nil {
			t.Fatal(err)
		}
	}
	if f.procs.Lowered() {
		t.Fatalf("a backlog of megabytes left feed on one P (GOMAXPROCS %d)", runtime.GOMAXPROCS(0))
	}
}

// A glob's quiet stores do not outvote one that streams: a turn that reads
// a chunk of any store is work, however many others had nothing new.
func TestQuietStoresBesideOneThatStreamsKeepFeedOnItsPs(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	dir := t.TempDir()
	var stores []Store
	for i := range 12 {
		path := filepath.Join(dir, fmt.Sprintf("q%d.log", i))
		os.WriteFile(path, nil, 0o644)
		stores = append(stores, Store{ID: fmt.Sprintf("q%d", i), Path: path})
	}
	busy := filepath.Join(dir, "busy.log")
	os.WriteFile(busy, []byte(strings.Repeat(strings.Repeat("b", 99)+"\n", 1<<15)), 0o644)
	stores = append(stores, Store{ID: "busy", Path: busy})
	f := newFeeder(Options{Stores: stores, BatchSize: 512, IdleTick: time.Second, MaxLine: store.DefaultMaxLine, Follow: true, Stderr: io.Discard})
	if err := f.open(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.closeStores)
	for range 40 {
		for _, s := range f.streams {
			s.dry, s.ready = false, false
		}
		if err := f.prepare(); err != nil {
			t.Fatal(err)
		}
	}
	if f.procs.Lowered() {
		t.Fatal("twelve quiet stores lowered feed to one P while another streamed")
	}
}
