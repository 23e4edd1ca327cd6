package scenario

import (
	"os"
	"os/exec"
	"strconv"
	"testing"
)

// waitfor's -line and -prefix take a line literally (a dot is a dot): -line
// the whole line, -prefix its beginning; neither a line that only contains it.
func TestWaitforTakesALineLiterallyWholeOrAsItsBeginning(t *testing.T) {
	lines := "a seal a.b x\nseal aXb x\nseal a.b x\nseal a.b x y\n"
	for _, c := range []struct {
		expr string
		want int
	}{{literal("seal a.b x", true), 1}, {literal("seal a.b", false), 2}, {literal("seal a.b x y", true), 1}} {
		m, err := matcher(c.expr, false)
		if err != nil {
			t.Fatal(err)
		}
		if got := matching(m, lines); got != c.want {
			t.Errorf("%s: %d lines, want %d", c.expr, got, c.want)
		}
	}
}

// waitfor -alive matches a line naming a live process, never one naming a
// process that has exited (the lock a killed holder leaves behind).
func TestWaitforAliveMatchesOnlyALiveProcess(t *testing.T) {
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	m, err := matcher(`^pid ([0-9]+)$`, true)
	if err != nil {
		t.Fatal(err)
	}
	dead := "pid " + strconv.Itoa(gone.Process.Pid) + "\n"
	live := "pid " + strconv.Itoa(os.Getpid()) + "\n"
	if got := matching(m, dead); got != 0 {
		t.Errorf("a dead pid matched")
	}
	if got := matching(m, dead+live); got != 1 {
		t.Errorf("a live pid: %d matches, want 1", got)
	}
}
