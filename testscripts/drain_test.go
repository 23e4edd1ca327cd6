//go:build linux

package testscripts

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// drainDoc counts every entry under a status (malformed lines as !drop,
// jitter beyond grace as !late), for accounted.
const drainDoc = `format apache-combined
window 1s grace=1s
metric requests count by=status
`

// drainRate is the corpus's lines per second of log time, which the
// writer keeps to in wall time, as a server's log does.
const drainRate = 400

// server writes a corpus of lines into a log as a server under logrotate
// does: through a file it holds open, a few lines every 20 ms, the log
// renamed and a new one created under it. gens[k] is what generation k
// (access.log.N once renamed) received, so that they concatenated are the
// corpus.
type server struct {
	t     *testing.T
	dir   string
	lines [][]byte
	next  int // the next line of the corpus to write
	mu    sync.Mutex
	gens  [][]byte
}

// take returns the corpus's next n lines (fewer at its end).
func (s *server) take(n int) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	end := min(s.next+n, len(s.lines))
	b := bytes.Join(s.lines[s.next:end], nil)
	s.next = end
	return b
}

// writeFor writes the corpus's lines into f, generation k, for d at
// drainRate, and returns the lines written.
func (s *server) writeFor(f *os.File, k int, d time.Duration) {
	const every = 20 * time.Millisecond
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(every) {
		b := s.take(drainRate * int(every) / int(time.Second))
		if len(b) == 0 || !s.put(f, k, b) {
			return
		}
	}
}

// put writes b into f, generation k, and records it there.
func (s *server) put(f *os.File, k int, b []byte) bool {
	if _, err := f.Write(b); err != nil {
		s.t.Error(err)
		return false
	}
	s.mu.Lock()
	s.gens[k] = append(s.gens[k], b...)
	s.mu.Unlock()
	return true
}

// writeBlock writes b into f, generation k, in even pieces over d.
func (s *server) writeBlock(f *os.File, k int, b []byte, d time.Duration) {
	const pieces = 100
	lines := bytes.SplitAfter(b, []byte("\n"))
	per := max(1, len(lines)/pieces)
	for i := 0; i < len(lines); i += per {
		if !s.put(f, k, bytes.Join(lines[i:min(i+per, len(lines))], nil)) {
			return
		}
		time.Sleep(d / pieces)
	}
}

// rotate renames access.log.N to .N+1, access.log to access.log.1, and
// creates a new access.log (logrotate's rename and create); the server
// still holds the renamed file. It returns the new file, not yet written.
func (s *server) rotate() *os.File {
	p := filepath.Join(s.dir, "access.log")
	for n := len(s.gens) - 1; n >= 1; n-- {
		if err := os.Rename(p+"."+strconv.Itoa(n), p+"."+strconv.Itoa(n+1)); err != nil {
			s.t.Error(err)
		}
	}
	if err := os.Rename(p, p+".1"); err != nil {
		s.t.Error(err)
	}
	f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		s.t.Fatal(err)
	}
	s.mu.Lock()
	s.gens = append(s.gens, nil)
	s.mu.Unlock()
	return f
}

// run writes the whole corpus: three rotations, the first and the last
// with the server appending to the renamed file for 2 s before it reopens
// (nginx's USR1), the second with the old writers finishing into the
// renamed file for 2 s while the new ones write the new file (Apache's
// graceful restart); 6 s of writing the new file after each (a cursor two
// generations behind after a kill is refused: docs/feed.md).
func (s *server) run() {
	f, err := os.OpenFile(filepath.Join(s.dir, "access.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		s.t.Fatal(err)
	}
	s.gens = [][]byte{nil}
	s.writeFor(f, 0, 3*time.Second)
	for r := range 3 {
		k := len(s.gens) - 1
		nf := s.rotate()
		if r == 1 {
			// The old writers' lines, 2 s of them, come before the new
			// ones' in the corpus (their requests began first).
			old := s.take(2 * drainRate)
			var wg sync.WaitGroup
			wg.Add(1)
			go func() { defer wg.Done(); s.writeBlock(f, k, old, 2*time.Second) }()
			s.writeFor(nf, k+1, 2*time.Second)
			wg.Wait()
		} else {
			s.writeFor(f, k, 2*time.Second)
		}
		f.Close()
		f = nf
		s.writeFor(f, k+1, 6*time.Second)
	}
	s.writeFor(f, len(s.gens)-1, time.Hour) // the rest of the corpus
	f.Close()
}

// followCommand is the pipeline a kill test repeats: feed -q, the cursor
// beside tally store dir, batches of 256, args (its options and stores),
// --follow when follow, into tally --run dir, in a process group of its
// own (startFollowed, followed.kill).
func followCommand(dir string, follow bool, args ...string) *exec.Cmd {
	all := append([]string{"-q", "--cursor", dir + ".cursor", "--batch-size", "256"}, args...)
	if follow {
		all = append(all, "--follow")
	}
	cmd := exec.Command("feed", append(all, "--", "tally", "--run", dir)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd
}

// killHarness is a kill test's start: skipped in -short mode, a harness
// whose root holds doc, and a random source from a seed it logs.
func killHarness(t *testing.T, doc string) (*crashHarness, *rand.Rand) {
	if testing.Short() {
		t.Skip("kill rounds skipped in -short mode")
	}
	h := &crashHarness{t: t, root: t.TempDir()}
	h.doc = filepath.Join(h.root, "kill.tally")
	writeFile(t, h.doc, []byte(doc))
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	return h, rand.New(rand.NewPCG(seed, 0))
}

// TestAServerWritingItsRenamedLogIsReadToItsEndUnderKills runs a server
// writing through logrotate's rotations as nginx and Apache do (server.run)
// under feed --follow --rotate-wait, while feed, tally or both are killed
// (SIGKILL) at random moments and the same command started again; a last
// one-shot run completes the tape. Every line written is accounted for
// once (the test's own count against the tape's series and markers), and
// the tape is, byte for byte, the one re-derived from the history: every
// byte at the position the generations concatenated give it.
func TestAServerWritingItsRenamedLogIsReadToItsEndUnderKills(t *testing.T) {
	h, rng := killHarness(t, drainDoc)
	const rounds = 2
	kills := 0
	for round := range rounds {
		kills += drainRound(t, h, rng, round)
	}
	t.Logf("%d rounds, %d kills", rounds, kills)
	if kills < 6*rounds {
		t.Errorf("%d kills in %d rounds: the harness must kill at least %d times", kills, rounds, 6*rounds)
	}
}

func drainRound(t *testing.T, h *crashHarness, rng *rand.Rand, round int) int {
	logs := filepath.Join(h.root, fmt.Sprintf("logs%d", round))
	os.MkdirAll(logs, 0o755)
	corpus := filepath.Join(h.root, fmt.Sprintf("corpus%d", round))
	synth := exec.Command("tgsynth", "--lines", "10000", "--seed", strconv.Itoa(round+21), "--rate", strconv.Itoa(drainRate),
		"--jitter", "1s", "--malformed", "0.02", "--output", corpus)
	if out, err := synth.CombinedOutput(); err != nil {
		t.Fatalf("tgsynth: %v\n%s", err, out)
	}
	s := &server{t: t, dir: logs, lines: bytes.SplitAfter(readFile(t, corpus), []byte("\n"))}
	if n := len(s.lines); len(s.lines[n-1]) == 0 {
		s.lines = s.lines[:n-1]
	}
	dir := h.provision(fmt.Sprintf("drain%d", round))
	errs := &bytes.Buffer{} // what every run said, for a failure
	command := func(follow bool) *exec.Cmd {
		cmd := followCommand(dir, follow, "--rotate-wait", "1500ms", "--idle-tick", "1h", filepath.Join(logs, "access.log"))
		cmd.Stderr = errs
		return cmd
	}
	done := make(chan struct{})
	go func() { defer close(done); s.run() }()
	p := startFollowed(t, command(true))
	kills := 0
	for running := true; running; {
		select {
		case <-done:
			running = false
		case <-time.After(time.Duration(300+rng.IntN(1200)) * time.Millisecond):
			kind := killKind(rng.IntN(int(killKinds)))
			kills += p.kill(t, dir, kind, time.Duration(rng.IntN(300))*time.Millisecond)
			p = startFollowed(t, command(true))
		}
	}
	syscall.Kill(p.cmd.Process.Pid, syscall.SIGINT)
	p.wait(t, dir)
	last := command(false)
	last.Stderr = nil
	if out, err := last.CombinedOutput(); err != nil {
		t.Fatalf("round %d: the one-shot run failed: %v\n%s\nthe runs before it said:\n%s", round, err, out, errs)
	}
	got := readFile(t, filepath.Join(dir, "tape"))
	if n := accounted(t, got); n != int64(len(s.lines)) {
		// feed's warnings say whether the test's own writer stalled past
		// --rotate-wait on a starved machine (a writer later than the
		// drain, which feed warns of and does not count, by contract).
		t.Errorf("round %d (%d kills): the tape accounts for %d entries, the server wrote %d; feed's runs said:\n%s", round, kills, n, len(s.lines), errs)
	}

	// The re-derivation from the history: the generations, oldest first.
	again := h.provision(fmt.Sprintf("again%d", round))
	var hist []byte
	for k := len(s.gens) - 1; k >= 1; k-- {
		hist = fmt.Appendf(hist, "%s.%d,", filepath.Join(logs, "access.log"), k)
	}
	spec := "access.log=" + string(hist) + filepath.Join(logs, "access.log")
	if out, err := exec.Command("feed", "-q", "--reset", "--cursor", again+".cursor", spec, "--", "tally", "--run", again).CombinedOutput(); err != nil {
		t.Fatalf("round %d: the re-derivation failed: %v\n%s", round, err, out)
	}
	if want := readFile(t, filepath.Join(again, "tape")); !bytes.Equal(got, want) {
		t.Errorf("round %d (%d kills): the tape differs from the one re-derived from the history: %s", round, kills, firstDifference(got, want))
	}
	var all []byte
	for _, g := range s.gens {
		all = append(all, g...)
	}
	if !bytes.Equal(all, readFile(t, corpus)) {
		t.Errorf("round %d: the generations concatenated are not the corpus: the test's server is wrong", round)
	}
	return kills
}
