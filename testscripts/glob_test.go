//go:build linux

package testscripts

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// globDoc counts by host, which each file's lines carry as the file's own
// name, so that the tape says what it counted of each file; a 1 s window
// with no grace seals within a second of quiet, and makes !late markers of
// the synthetic jitter (counted by their id=).
const globDoc = `format apache-combined
window 1s grace=0s
metric requests count by=host
`

// globLines returns n synthetic lines (2% malformed) from log time start
// on, whose host is host.
func globLines(t *testing.T, host string, seed int64, n int, start time.Time) []byte {
	t.Helper()
	out, err := exec.Command("tgsynth", "--seed", strconv.FormatInt(seed, 10), "--lines", strconv.Itoa(n),
		"--start", start.Format(time.RFC3339Nano), "--rate", "100000", "--jitter", "1s", "--malformed", "0.02").Output()
	if err != nil {
		t.Fatalf("tgsynth: %v", err)
	}
	return regexp.MustCompile(`(?m)^\S+`).ReplaceAll(out, []byte(host))
}

func appendTo(t *testing.T, path string, data []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for len(data) > 0 { // in pieces, as a server writes: lines cut mid-way too
		n := min(len(data), 7000)
		if _, err := f.Write(data[:n]); err != nil {
			t.Fatal(err)
		}
		data = data[n:]
		time.Sleep(time.Millisecond)
	}
}

// perStore sums what a tape accounts for of each store: its requests
// series by host (each file's hosts are its id) and its markers by id=.
func perStore(t *testing.T, tp []byte) map[string]int64 {
	t.Helper()
	n := map[string]int64{}
	for _, l := range readTape(t, tp) {
		switch {
		case l.kind == "series" && len(l.labels) == 1:
			n[l.labels["host"]] += int64(l.value)
		case l.kind == "!late" || l.kind == "!drop" || l.kind == "!cap":
			n[l.keys["id"]] += l.count()
		}
	}
	return n
}

// TestAGlobWhoseFilesComeAndGoCountsEveryEntryOfEveryFileOnceUnderKills
// follows --glob over three files, creates a fourth mid-run, removes one
// once its entries are durable, and appends to the rest, while feed, tally
// or both are killed (SIGKILL) at random moments and the same command is
// started again; a last one-shot run completes the tape. Every entry of
// every file is accounted for exactly once: each file's line count, as the
// test wrote it, against what the tape holds of that file.
func TestAGlobWhoseFilesComeAndGoCountsEveryEntryOfEveryFileOnceUnderKills(t *testing.T) {
	if testing.Short() {
		t.Skip("kill rounds skipped in -short mode")
	}
	h := &crashHarness{t: t, root: t.TempDir()}
	h.doc = filepath.Join(h.root, "glob.tally")
	writeFile(t, h.doc, []byte(globDoc))
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	kills := 0
	for round := range 3 {
		kills += globRound(t, h, rng, round)
	}
	// Two steps in three end in a kill, of a run that follows (so one that
	// never ends by itself), but a kill waiting for a write that does not
	// come gives up: at least one must have landed.
	t.Logf("%d kills in 3 rounds", kills)
	killFloor(t, 3, 3, kills, 1)
}

func globRound(t *testing.T, h *crashHarness, rng *rand.Rand, round int) (kills int) {
	logs := filepath.Join(h.root, fmt.Sprintf("logs%d", round))
	path := func(id string) string { return filepath.Join(logs, id, "access.log") }
	wrote := map[string][]byte{}
	// Log time is the wall clock's, as the files' servers share one: a
	// quiet file's idle keeps pace with the others' entries.
	begun := time.Now()
	write := func(id string, n int) {
		at := synthStart.Add(time.Since(begun))
		data := globLines(t, id, int64(round*100+len(wrote[id])%97+int(id[0])), n, at)
		os.MkdirAll(filepath.Dir(path(id)), 0o755)
		appendTo(t, path(id), data)
		wrote[id] = append(wrote[id], data...)
	}
	for _, id := range []string{"a", "b", "c"} {
		write(id, 2000)
	}
	dir := h.provision(fmt.Sprintf("glob%d", round))
	command := globCommand(dir, 256, filepath.Join(logs, "*", "access.log"))
	steps := []func(){
		func() { write("a", 1500) },
		func() { // a fourth file joins this very run
			write("d", 1000)
			durable(t, dir+".cursor", "d", int64(len(wrote["d"])))
		},
		func() { write("d", 1000); write("b", 500) },
		func() { durable(t, dir+".cursor", "c", int64(len(wrote["c"]))); os.Remove(path("c")) },
		func() { write("a", 500); write("d", 700) },
	}
	kills = killSteps(t, dir, round, command, steps, func() bool { return rng.IntN(3) > 0 }, func() time.Duration { // two steps in three end in a kill
		return time.Duration(rng.IntN(300)) * time.Millisecond
	}, rng)
	got := perStore(t, readFile(t, filepath.Join(dir, "tape")))
	for id, data := range wrote {
		if want := int64(bytes.Count(data, []byte("\n"))); got[id] != want {
			t.Errorf("round %d (%d kills): store %s: the tape accounts for %d entries, the file holds %d", round, kills, id, got[id], want)
		}
	}
	if len(got) != len(wrote) {
		t.Errorf("round %d: the tape names stores %v, the files are %d", round, got, len(wrote))
	}
	return kills
}

// globCommand is a glob kill round's pipeline, in a process group of its
// own: feed -q over pattern with the cursor beside tally store dir,
// batches of batch, an idle tick of 50 ms, --follow when follow says.
func globCommand(dir string, batch int, pattern string) func(follow bool) *exec.Cmd {
	return func(follow bool) *exec.Cmd {
		args := []string{"-q", "--cursor", dir + ".cursor", "--idle-tick", "50ms", "--batch-size", strconv.Itoa(batch), "--glob", pattern}
		if follow {
			args = append(args, "--follow")
		}
		cmd := exec.Command("feed", append(args, "--", "tally", "--run", dir)...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		return cmd
	}
}

// killSteps runs a round of a followed pipeline (command(true); false:
// the one-shot run): each step, then, when killNow says, a kill of a kind
// drawn from rng after delay() and the same command started again; at the
// end SIGINT, and the one-shot run to completion. It returns the kills.
func killSteps(t *testing.T, dir string, round int, command func(follow bool) *exec.Cmd, steps []func(), killNow func() bool, delay func() time.Duration, rng *rand.Rand) (kills int) {
	t.Helper()
	p := startFollowed(t, command(true))
	for _, step := range steps {
		step()
		if killNow() {
			kind := killKind(rng.IntN(int(killKinds)))
			kills += p.kill(t, dir, kind, delay())
			p = startFollowed(t, command(true))
		}
	}
	syscall.Kill(p.cmd.Process.Pid, syscall.SIGINT)
	p.wait(t, dir)
	if out, err := command(false).CombinedOutput(); err != nil {
		t.Fatalf("round %d: the one-shot run failed: %v\n%s", round, err, out)
	}
	return kills
}

// durable waits until the cursor holds store id at offset end.
func durable(t *testing.T, path, id string, end int64) {
	t.Helper()
	waitUntil(t, fmt.Sprintf("store %s to be durable up to %d in %s", id, end, path), func() bool {
		c, err := cursorOffsets(path)
		return err == nil && c[id] == end
	})
}

// followed is a feed (in a process group of its own) and its tally.
type followed struct {
	cmd  *exec.Cmd
	done chan struct{}
}

func startFollowed(t *testing.T, cmd *exec.Cmd) *followed {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &followed{cmd: cmd, done: make(chan struct{})}
	go func() { cmd.Wait(); close(p.done) }()
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }) // a failed test leaves no pipeline running
	return p
}

// kill kills as kind says after delay and waits for the pipeline to be gone.
// A kill that waits for a write which does not come (everything durable,
// the stores quiet) gives up after a second: a run that follows never
// ends by itself.
func (p *followed) kill(t *testing.T, dir string, kind killKind, delay time.Duration) int {
	t.Helper()
	stop := make(chan struct{})
	go func() {
		select {
		case <-p.done:
		case <-time.After(time.Second + delay):
		}
		close(stop)
	}()
	n := kill(p.cmd.Process.Pid, dir, kind, delay, stop)
	// Feed outlives a killed tally only until it sees it gone; whatever is
	// left of the pipeline is killed here. A pipeline that no write came
	// from (a loaded machine, quiet stores) is killed at a quiet moment:
	// a kill -9 all the same, and counted as one.
	select {
	case <-p.done:
	default:
		n = max(n, 1)
	}
	syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	p.wait(t, dir)
	return n
}

func (p *followed) wait(t *testing.T, dir string) {
	t.Helper()
	if err := stopped(p.cmd, p.done, dir, "it was stopped"); err != nil {
		t.Fatal(err)
	}
}
