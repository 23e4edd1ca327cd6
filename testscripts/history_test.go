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
	"strings"
	"syscall"
	"testing"
	"time"
)

// rotatedLayout writes the crash harness's store as one file and as
// logrotate's layout of it (compress, delaycompress: .3.gz .2.gz .1 and the
// live file, compressed by gzip itself), and returns the one file and the
// store argument naming the layout.
func rotatedLayout(t *testing.T, root string) (string, string) {
	t.Helper()
	if _, err := exec.LookPath("gzip"); err != nil {
		t.Skip("gzip is not installed (Debian package gzip)")
	}
	all := filepath.Join(root, "all.log")
	synthesize(t, all, "--seed", "6", "--lines", strconv.Itoa(crashEntries), "--jitter", "6s", "--malformed", "0.02")
	data, _ := os.ReadFile(all)
	lines := bytes.SplitAfter(data, []byte("\n"))
	live := filepath.Join(root, "access.log")
	cuts := []struct {
		name     string
		from, to int
	}{{".3", 0, 7000}, {".2", 7000, 16000}, {".1", 16000, 24000}, {"", 24000, len(lines)}}
	for _, c := range cuts {
		writeFile(t, live+c.name, bytes.Join(lines[c.from:c.to], nil))
	}
	if out, err := exec.Command("gzip", live+".3", live+".2").CombinedOutput(); err != nil {
		t.Fatalf("gzip: %v\n%s", err, out)
	}
	return all, "web=" + strings.Join([]string{live + ".3.gz", live + ".2.gz", live + ".1", live}, ",")
}

// TestKillingARederivationFromRotatedGenerationsThenTheSameCommandGivesTheSameTape
// kills feed, tally or both (SIGKILL, the crash harness's kinds and
// moments) while a store named with its gzip history is re-derived into a
// fresh tally store, then runs the same command to its end: the tape is,
// byte for byte, the one the uninterrupted single file gives. Half the
// rounds repeat the command with --reset (tally's tape makes the replay
// add nothing), half without (the cursor resumes inside an older
// generation, gzip or plain).
func TestKillingARederivationFromRotatedGenerationsThenTheSameCommandGivesTheSameTape(t *testing.T) {
	if testing.Short() {
		t.Skip("kill rounds skipped in -short mode")
	}
	h := &crashHarness{t: t, root: t.TempDir()}
	h.doc = filepath.Join(h.root, "crash.tally")
	writeFile(t, h.doc, []byte(crashDoc))
	all, spec := rotatedLayout(t, h.root)

	whole := h.provision("whole")
	begun := time.Now()
	if out, err := exec.Command("feed", "-q", "web="+all, "--", "tally", "--run", whole).CombinedOutput(); err != nil {
		t.Fatalf("the uninterrupted run failed: %v\n%s", err, out)
	}
	runFor := time.Since(begun)
	want := readFile(t, filepath.Join(whole, "tape"))

	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	var rounds, kills, resumedInHistory int
	for round := 0; round < 16 && time.Since(begun) < 20*time.Second; round++ {
		dir := h.provision(fmt.Sprintf("round%d", round))
		reset := round%2 == 0
		batch := crashBatchSizes[rng.IntN(len(crashBatchSizes))]
		command := func() *exec.Cmd {
			args := []string{"-q", "--cursor", dir + ".cursor", "--batch-size", strconv.Itoa(batch)}
			if reset {
				args = append(args, "--reset")
			}
			cmd := exec.Command("feed", append(args, spec, "--", "tally", "--run", dir)...)
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			return cmd
		}
		var kinds kindList
		for range 1 + rng.IntN(3) {
			kind := killKind(rng.IntN(int(killKinds)))
			kinds = append(kinds, kind)
			n, err := killRun(command(), dir, kind, time.Duration(rng.Float64()*1.1*float64(runFor)))
			if err != nil {
				t.Fatalf("round %d (reset %v, batch %d, kills %s): %v", round, reset, batch, kinds, err)
			}
			kills += n
		}
		if c, err := os.ReadFile(dir + ".cursor"); err == nil && !reset && inHistory(c) {
			resumedInHistory++
		}
		if out, err := command().CombinedOutput(); err != nil {
			t.Fatalf("round %d (reset %v, batch %d, kills %s): the run after the kills failed: %v\n%s", round, reset, batch, kinds, err, out)
		}
		if got := readFile(t, filepath.Join(dir, "tape")); !bytes.Equal(got, want) {
			t.Fatalf("round %d (reset %v, batch %d, kills %s): the tape differs from the single file's: %s", round, reset, batch, kinds, firstDifference(got, want))
		}
		rounds++
	}
	killFloor(t, rounds, 3, kills, rounds)
	t.Logf("%d kills; %d resumes from a cursor inside an older generation", kills, resumedInHistory)
}

// inHistory says whether a cursor's store web lies in one of its older
// generations: its gen= is not the last generation hist= lists.
func inHistory(cursor []byte) bool {
	line := string(cursor)
	_, gen, ok := strings.Cut(line, " gen=")
	if !ok {
		return false
	}
	gen, _, _ = strings.Cut(gen, " ")
	_, hist, _ := strings.Cut(line, " hist=")
	items := strings.Split(strings.TrimSpace(hist), ",")
	return !strings.HasPrefix(items[len(items)-1], gen+":")
}
