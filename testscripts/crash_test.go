//go:build linux

package testscripts

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The crash harness. Replay a failure with
//
//	go test ./testscripts -run TestKillingFeedOrTallyAnywhereLosesAndDoublesNothing -crash.seed S
//
// (rounds are drawn from the seed in order; the kill moments themselves
// depend on timing, so a replay retries the same kinds of kill, not the
// same nanosecond).
var (
	crashSeed   = flag.Uint64("crash.seed", 0, "seed of the crash harness (0: from the clock, printed)")
	crashRounds = flag.Int("crash.rounds", 120, "rounds of the crash harness")
	crashBudget = flag.Duration("crash.budget", 25*time.Second, "stop starting crash rounds after this long")
)

// crashEntries is tens of thousands of entries: ~5 MB, hundreds of
// batches at the smaller batch sizes, so kills land mid-stream.
const crashEntries = 30000

// crashDoc has a short grace against synth's 6 s jitter, so !late markers
// appear, and a cap of 6 series per metric per bucket against synth's ~15
// statuses, so !cap markers appear; 2% malformed lines make !drop. The
// histogram (one series for the cap, its lines a group's many) must
// replay byte for byte too.
const crashDoc = `format apache-combined
window 5s grace=2s
cap 6
metric requests count by=status
metric bytes sum=bytes by=status
metric size histogram=bytes buckets=0.1,1,10,100 scale=0.001 by=status
`

// crashBatchSizes vary where batch boundaries fall relative to the kills.
var crashBatchSizes = []int{64, 512, 4096}

// A killKind says whom to kill and when.
type killKind int

const (
	killFeedSoon      killKind = iota // feed after a random delay
	killTallySoon                     // tally after a random delay
	killBothSoon                      // both after a random delay
	killTallyOnTape                   // tally right after the tape grows (before its fsync)
	killBothOnTape                    // both right after the tape grows
	killFeedOnCursor                  // feed right after the cursor changes
	killTallyOnCursor                 // tally right after the cursor changes
	killKinds
)

func (k killKind) String() string {
	return [...]string{"feed after a delay", "tally after a delay", "both after a delay",
		"tally on a tape write", "both on a tape write", "feed on a cursor write",
		"tally on a cursor write"}[k]
}

// crashJSONDoc is crashDoc for synth's JSON lines: the same markers.
const crashJSONDoc = `format json
time ts layout=unix
window 5s grace=2s
cap 6
metric requests count by=status
metric bytes sum=size by=status
`

// formatW3C makes the harness's store an IIS log: synth's combined lines
// as W3C columns, under a #Fields header that changes the columns' order
// every 4 000 lines (w3cFromCombined), its malformed lines kept.
const formatW3C = "w3c"

// crashW3CDoc is crashDoc for that log: the same markers; the header
// lines are no entries, so the tape still accounts for crashEntries.
const crashW3CDoc = `format w3c
window 5s grace=2s
cap 6
metric requests count by=status
metric bytes sum=bytes by=status,method
`

// The same harness over a W3C store whose columns change mid-file: a
// restart must replay from the #Fields header in force at the durable
// offset, or the lines after it are read with the wrong columns.
func TestKillingFeedOrTallyAnywhereLosesAndDoublesNothingInAW3CStoreWhoseColumnsChange(t *testing.T) {
	crashTest(t, crashW3CDoc, formatW3C, min(*crashRounds, 20), min(*crashBudget, 8*time.Second))
}

// w3cFromCombined rewrites combined lines as W3C ones (date time
// cs-method cs-uri-stem sc-status sc-bytes, in UTC), a #Fields header
// every 4 000 lines alternating two orders of the columns; a line that
// is not combined stays as it is (a !drop).
func w3cFromCombined(combined []byte) []byte {
	re := regexp.MustCompile(`^\S+ \S+ \S+ \[([^\]]+)\] "(\S+) (\S+) [^"]*" (\d{3}) (\d+|-) `)
	orders := [][]string{{"date", "time", "cs-method", "cs-uri-stem", "sc-status", "sc-bytes"},
		{"date", "time", "sc-bytes", "sc-status", "cs-uri-stem", "cs-method"}}
	var out bytes.Buffer
	for i, line := range bytes.Split(bytes.TrimSuffix(combined, []byte("\n")), []byte("\n")) {
		cols := orders[i/4000%2]
		if i%4000 == 0 {
			fmt.Fprintf(&out, "#Software: Microsoft Internet Information Services 10.0\n#Fields: %s\n", strings.Join(cols, " "))
		}
		m := re.FindSubmatch(line)
		var at time.Time
		var err error
		if m != nil {
			at, err = time.Parse("02/Jan/2006:15:04:05 -0700", string(m[1]))
		}
		if m == nil || err != nil {
			if bytes.HasPrefix(line, []byte("#")) {
				out.WriteByte('x') // a malformed line, not a W3C directive: keep it an entry
			}
			out.Write(line) // synth's malformed line: a !drop either way
			out.WriteByte('\n')
			continue
		}
		at = at.UTC()
		v := map[string]string{"date": at.Format("2006-01-02"), "time": at.Format("15:04:05"), "cs-method": string(m[2]),
			"cs-uri-stem": string(m[3]), "sc-status": string(m[4]), "sc-bytes": string(m[5])}
		for k, c := range cols {
			if k > 0 {
				out.WriteByte(' ')
			}
			out.WriteString(v[c])
		}
		out.WriteByte('\n')
	}
	return out.Bytes()
}

func TestKillingFeedOrTallyAnywhereLosesAndDoublesNothing(t *testing.T) {
	crashTest(t, crashDoc, "combined", *crashRounds, *crashBudget)
}

// The same harness over a JSON store, for fewer rounds: what differs is
// the extractor, not the protocol the kills test.
func TestKillingFeedOrTallyAnywhereLosesAndDoublesNothingInAJSONStore(t *testing.T) {
	crashTest(t, crashJSONDoc, "json", min(*crashRounds, 20), min(*crashBudget, 8*time.Second))
}

func crashTest(t *testing.T, doc, format string, maxRounds int, budget time.Duration) {
	if testing.Short() {
		t.Skip("crash harness skipped in -short mode")
	}
	seed := *crashSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("crash harness seed %d (replay with -crash.seed %d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	h := newCrashHarness(t, doc, format)

	begun := time.Now()
	var rounds, kills, lost, twice int64
	for round := 0; round < maxRounds && time.Since(begun) < budget; round++ {
		r := h.round(rng, round)
		if r.err != nil {
			t.Fatalf("seed %d round %d (batch size %d, kills %s): %v", seed, round, r.batch, r.kinds, r.err)
		}
		rounds++
		kills += r.kills
		if r.accounted < crashEntries {
			lost += crashEntries - r.accounted
		} else {
			twice += r.accounted - crashEntries
		}
		if r.differs != "" {
			t.Errorf("seed %d round %d (batch size %d, kills %s): the tape differs from the uninterrupted run's: %s", seed, round, r.batch, r.kinds, r.differs)
		}
	}
	t.Logf("crash harness: %d rounds, %d kills (SIGKILL of feed, tally or both), %d entries lost, %d counted twice, in %v",
		rounds, kills, lost, twice, time.Since(begun).Round(time.Millisecond))
	// A round tries 1 to 4 kills, and most land while a process runs.
	killFloor(t, int(rounds), min(maxRounds, 3), int(kills), int(rounds))
}

// crashHarness holds what every round shares: the store, the document, the
// reference tape and how long an uninterrupted run takes.
type crashHarness struct {
	t      *testing.T
	root   string
	feed   string // the feed binary: testscript's link to this test binary
	store  string
	doc    string
	want   []byte        // the uninterrupted tape
	runFor time.Duration // how long the uninterrupted run took
}

func newCrashHarness(t *testing.T, doc, format string) *crashHarness {
	h := &crashHarness{t: t, root: t.TempDir()}
	var err error
	if h.feed, err = exec.LookPath("feed"); err != nil {
		t.Fatalf("testscript put no feed on PATH: %v", err)
	}
	h.store = filepath.Join(h.root, "access.log")
	h.doc = filepath.Join(h.root, "crash.tally")
	writeFile(t, h.doc, []byte(doc))
	if format == formatW3C {
		combined := filepath.Join(h.root, "combined.log")
		synthesize(t, combined, "--seed", "6", "--lines", strconv.Itoa(crashEntries), "--jitter", "6s", "--malformed", "0.02", "--format", "combined")
		writeFile(t, h.store, w3cFromCombined(readFile(t, combined)))
	} else {
		synthesize(t, h.store, "--seed", "6", "--lines", strconv.Itoa(crashEntries), "--jitter", "6s", "--malformed", "0.02", "--format", format)
	}

	dir := h.provision("whole")
	begun := time.Now()
	if out, err := h.command(dir, 512).CombinedOutput(); err != nil {
		t.Fatalf("the uninterrupted run failed: %v\n%s", err, out)
	}
	h.runFor = time.Since(begun)
	if h.want, err = os.ReadFile(filepath.Join(dir, "tape")); err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{"\n!late ", "\n!drop ", "\n!cap ", "\nseal ", "\nend "} {
		if !bytes.Contains(h.want, []byte(kind)) {
			t.Fatalf("the uninterrupted tape has no %q record; the harness must exercise every kind", kind[1:])
		}
	}
	if n := accounted(t, h.want); n != crashEntries {
		t.Fatalf("the uninterrupted tape accounts for %d entries, not %d", n, crashEntries)
	}
	return h
}

// provision makes a fresh tally store named name under the harness root.
func (h *crashHarness) provision(name string) string {
	dir := filepath.Join(h.root, name)
	cmd := exec.Command("tally", "--provision", "--doc", h.doc, dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		h.t.Fatalf("tally --provision: %v\n%s", err, out)
	}
	return dir
}

// command is the pipeline every run of a round repeats, unchanged.
// command is the pipeline of a round. feed runs in a process group of its
// own, which its tally inherits, so the harness can wait for every process
// of a killed pipeline to be gone, whenever feed had started its tally.
func (h *crashHarness) command(dir string, batch int) *exec.Cmd {
	cmd := exec.Command(h.feed, "-q", "--cursor", dir+".cursor", "--batch-size", strconv.Itoa(batch),
		h.store, "--", "tally", "--run", dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd
}

// roundResult is what one round found.
type roundResult struct {
	batch     int
	kinds     kindList
	kills     int64  // processes SIGKILLed (a kill drawn after the run ended kills none)
	accounted int64  // entries the final tape accounts for, counting every line
	differs   string // empty when the final tape is the uninterrupted one
	err       error  // the harness itself could not go on
}

type kindList []killKind

func (l kindList) String() string {
	s := make([]string, len(l))
	for i, k := range l {
		s[i] = k.String()
	}
	return "[" + strings.Join(s, ", ") + "]"
}

// round provisions a fresh store, kills the pipeline one to four times at
// moments drawn from rng, runs the same command once more to completion
// and compares the tape with the uninterrupted one.
func (h *crashHarness) round(rng *rand.Rand, n int) roundResult {
	dir := h.provision(fmt.Sprintf("round%d", n))
	r := roundResult{batch: crashBatchSizes[rng.IntN(len(crashBatchSizes))]}
	for range 1 + rng.IntN(4) {
		kind := killKind(rng.IntN(int(killKinds)))
		delay, err := h.delay(dir, rng.Float64())
		if err != nil {
			r.err = err
			return r
		}
		r.kinds = append(r.kinds, kind)
		killed, err := h.killedRun(dir, r.batch, kind, delay)
		if r.err = err; err != nil {
			return r
		}
		r.kills += int64(killed)
	}
	cmd := h.command(dir, r.batch)
	if out, err := cmd.CombinedOutput(); err != nil {
		r.err = fmt.Errorf("the run after the kills failed: %v\n%s", err, out)
		return r
	}
	got, err := os.ReadFile(filepath.Join(dir, "tape"))
	if err != nil {
		r.err = err
		return r
	}
	r.accounted = accounted(h.t, got)
	if !bytes.Equal(got, h.want) {
		r.differs = firstDifference(got, h.want)
		return r
	}
	os.RemoveAll(dir)
	return r
}

// delay scales u in [0, 1) to a moment in what is left of the run: up to
// the time an uninterrupted run takes for the part of the store past the
// cursor, plus a tenth of a whole run so that some kills land after the
// end, where the run must have been exact all the same.
func (h *crashHarness) delay(dir string, u float64) (time.Duration, error) {
	c, err := cursorOffsets(dir + ".cursor")
	if err != nil {
		return 0, err
	}
	st, err := os.Stat(h.store)
	if err != nil {
		return 0, err
	}
	left := 1 - float64(c[filepath.Base(h.store)])/float64(st.Size())
	return time.Duration(u * (left + 0.1) * float64(h.runFor)), nil
}

// killRun starts cmd (a feed in a process group of its own), kills as
// kind says after delay, and waits until its processes are gone and the
// tally store's lock is free. It returns how many processes it killed.
func killRun(cmd *exec.Cmd, dir string, kind killKind, delay time.Duration) (int, error) {
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	killed := kill(cmd.Process.Pid, dir, kind, delay, done)
	return killed, stopped(cmd, done, dir, fmt.Sprint(kind))
}

// stopped waits until cmd, whose Wait closes done, has ended, its processes
// are gone and the tally store dir's lock is free; after says, for the
// error, what should have stopped it.
func stopped(cmd *exec.Cmd, done <-chan struct{}, dir, after string) error {
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		return fmt.Errorf("feed kept running 20 s after %s", after)
	}
	if err := waitGone(cmd.Process.Pid, 20*time.Second); err != nil {
		return err
	}
	return waitUnlocked(filepath.Join(dir, "lock"), 20*time.Second)
}

// killedRun starts the pipeline, kills as kind says, and waits until the
// store's lock is free again (a tally whose feed was killed must see EOF
// and exit by itself). It returns how many processes it killed.
func (h *crashHarness) killedRun(dir string, batch int, kind killKind, delay time.Duration) (int, error) {
	cmd := h.command(dir, batch)
	logf, err := os.Create(dir + ".stderr")
	if err != nil {
		return 0, err
	}
	defer logf.Close()
	cmd.Stdout, cmd.Stderr = logf, logf
	return killRun(cmd, dir, kind, delay)
}

// kill waits for kind's moment (or for the pipeline to end first) and
// sends SIGKILL to whom kind names, returning how many it killed.
func kill(feedPid int, dir string, kind killKind, delay time.Duration, done <-chan struct{}) int {
	switch kind {
	case killTallyOnTape, killBothOnTape:
		if !waitChange(filepath.Join(dir, "tape"), done) {
			return 0
		}
	case killFeedOnCursor, killTallyOnCursor:
		if !waitChange(dir+".cursor", done) {
			return 0
		}
	default:
		select {
		case <-time.After(delay):
		case <-done:
			return 0
		}
	}
	var victims []int
	if kind != killFeedSoon && kind != killFeedOnCursor {
		victims = append(victims, childrenOf(feedPid)...)
	}
	if kind != killTallySoon && kind != killTallyOnTape && kind != killTallyOnCursor {
		victims = append(victims, feedPid)
	}
	killed := 0
	for _, pid := range victims {
		if syscall.Kill(pid, syscall.SIGKILL) == nil {
			killed++
		}
	}
	return killed
}

// waitGone polls until no process of the process group pgid runs (gone,
// or a zombie nobody reaps): a tally whose feed was killed may not have
// taken its lock yet, so a free lock alone does not say it is gone.
func waitGone(pgid int, limit time.Duration) error {
	for deadline := time.Now().Add(limit); ; {
		alive := groupAlive(pgid)
		if alive == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d processes of the killed pipeline still run %v after its feed was killed: tally did not exit on EOF", alive, limit)
		}
		time.Sleep(time.Millisecond)
	}
}

// groupAlive counts the processes of group pgid that are not zombies.
func groupAlive(pgid int) int {
	ents, _ := os.ReadDir("/proc")
	alive := 0
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// After the parenthesised command name: state, ppid, pgrp.
		f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(f) > 2 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" {
			alive++
		}
	}
	return alive
}

// waitChange polls path every 50 µs until its size, inode or modification
// time changes, and reports whether it did before done. A fine poll is what
// lands a kill between a write and the fsync that follows it.
func waitChange(path string, done <-chan struct{}) bool {
	before := fileStamp(path)
	for {
		select {
		case <-done:
			return false
		default:
		}
		if fileStamp(path) != before {
			return true
		}
		time.Sleep(50 * time.Microsecond)
	}
}

type stamp struct {
	size, ino, mtime int64
}

func fileStamp(path string) stamp {
	var st syscall.Stat_t
	if syscall.Stat(path, &st) != nil {
		return stamp{}
	}
	return stamp{st.Size, int64(st.Ino), st.Mtim.Nano()}
}

// childrenOf lists the processes whose parent is pid, from /proc.
func childrenOf(pid int) []int {
	ents, _ := os.ReadDir("/proc")
	var kids []int
	for _, e := range ents {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// Fields after the parenthesised command name: state, then ppid.
		i := bytes.LastIndexByte(stat, ')')
		f := strings.Fields(string(stat[i+1:]))
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			kids = append(kids, child)
		}
	}
	return kids
}

// waitUnlocked polls until the flock on path can be taken (no tally --run
// holds the store), then releases it.
func waitUnlocked(path string, limit time.Duration) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	for deadline := time.Now().Add(limit); ; {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the tally store %s is still locked %v after its feed ended: tally did not exit on EOF", filepath.Dir(path), limit)
		}
		time.Sleep(time.Millisecond)
	}
}

// firstDifference names the first line where got and want part.
func firstDifference(got, want []byte) string {
	g, w := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
	for i := 0; i < len(g) && i < len(w); i++ {
		if !bytes.Equal(g[i], w[i]) {
			return fmt.Sprintf("line %d is %q, want %q", i+1, g[i], w[i])
		}
	}
	return fmt.Sprintf("%d lines, want %d", len(g)-1, len(w)-1)
}
