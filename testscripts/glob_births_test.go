//go:build linux

package testscripts

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestTwoHundredGlobFilesBornAndRotatedUnderKillsCountEveryLineOnce
// follows --glob over 100 files while 100 more are born, a third of them
// rotated before feed could read them (within a scan, or while feed was
// down), and 60 of the first are rotated as nginx does (renamed, written a
// little more, a new file created), while feed, tally or both are killed
// (SIGKILL) at random moments and the same command is started again; a
// last one-shot run completes the tape. Each file's lines, as the test
// wrote them into all its generations, against what the tape holds of it.
func TestTwoHundredGlobFilesBornAndRotatedUnderKillsCountEveryLineOnce(t *testing.T) {
	h, rng := killHarness(t, globDoc)

	logs := filepath.Join(h.root, "logs")
	os.MkdirAll(logs, 0o755)
	path := func(id string) string { return filepath.Join(logs, id+".log") }
	wrote := map[string]int64{}
	begun := time.Now()
	lines := func(id string, n int) []byte {
		at := time.Date(2026, 10, 10, 13, 55, 0, 0, time.UTC).Add(time.Since(begun))
		data := globLines(t, id, int64(len(id)*7919+int(wrote[id])), n, at)
		wrote[id] += int64(bytes.Count(data, []byte("\n")))
		return data
	}
	write := func(p string, data []byte) {
		f, err := os.OpenFile(p, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.Write(data); err != nil {
			t.Fatal(err)
		}
	}
	// born writes a new file; rotated ones are renamed and a new one
	// created before feed can look (one step, microseconds apart).
	born := func(id string, rotated bool) {
		write(path(id), lines(id, 20))
		if rotated {
			if err := os.Rename(path(id), path(id)+".1"); err != nil {
				t.Fatal(err)
			}
			write(path(id), lines(id, 10))
		}
	}
	// rotate renames a store's file, writes a few lines more into the
	// renamed one (its server still holds it), and creates a new one.
	rotate := func(id string) {
		if err := os.Rename(path(id), path(id)+".1"); err != nil {
			t.Fatal(err)
		}
		write(path(id)+".1", lines(id, 3))
		write(path(id), lines(id, 10))
	}
	ids := func(from, to int) []string {
		var out []string
		for i := from; i < to; i++ {
			out = append(out, fmt.Sprintf("f%03d", i))
		}
		return out
	}
	for _, id := range ids(0, 100) {
		write(path(id), lines(id, 30))
	}
	dir := h.provision("births")
	command := func(follow bool) *exec.Cmd {
		return followCommand(dir, follow, "--idle-tick", "200ms", "--rotate-wait", "300ms", "--glob", filepath.Join(logs, "*.log"))
	}
	p := startFollowed(t, command(true))
	kills, downBirths := 0, 0
	for step := range 10 {
		for _, id := range ids(100+10*step, 110+10*step) { // 10 births a step, a third rotated at once
			born(id, rng.IntN(3) == 0)
		}
		for _, id := range ids(6*step, 6*step+6) { // 6 rotations a step, each file once
			rotate(id)
		}
		for _, id := range ids(60, 100) {
			write(path(id), lines(id, 2))
		}
		time.Sleep(time.Duration(100+rng.IntN(400)) * time.Millisecond)
		if rng.IntN(2) == 0 || kills < step/3 { // at random, and never fewer than the floor's pace
			kind := killKind(rng.IntN(int(killKinds)))
			kills += p.kill(t, dir, kind, time.Duration(rng.IntN(200))*time.Millisecond)
			// Born and rotated while feed is down.
			id := fmt.Sprintf("d%03d", step)
			born(id, true)
			downBirths++
			p = startFollowed(t, command(true))
		}
	}
	time.Sleep(time.Second) // the last rotations drained
	syscall.Kill(p.cmd.Process.Pid, syscall.SIGINT)
	p.wait(t, dir)
	if out, err := command(false).CombinedOutput(); err != nil {
		t.Fatalf("the one-shot run failed: %v\n%s", err, out)
	}
	got := perStore(t, readFile(t, filepath.Join(dir, "tape")))
	wrong, total := 0, int64(0)
	for id, want := range wrote {
		total += want
		if got[id] != want {
			wrong++
			if wrong <= 10 {
				t.Errorf("store %s: the tape accounts for %d entries, its files hold %d", id, got[id], want)
			}
		}
	}
	if len(got) != len(wrote) {
		t.Errorf("the tape names %d stores, the files are %d", len(got), len(wrote))
	}
	t.Logf("%d files, %d lines, %d kills, %d born and rotated while feed was down, %d files wrong", len(wrote), total, kills, downBirths, wrong)
	if kills < 2 {
		t.Errorf("%d kills: the harness must kill at least twice", kills)
	}
}
