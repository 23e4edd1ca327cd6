package spin

import (
	"runtime"
	"testing"
)

// onTwoPs runs the test as a process started on two Ps, whatever the
// machine: GOMAXPROCS=2 in the environment is the default restoreProcs
// brings back. Go's own default would be 1 on a one-CPU machine (or under
// taskset -c 0), where a restored default cannot be told from a process
// left on one P.
func onTwoPs(t *testing.T) {
	t.Setenv("GOMAXPROCS", "2")
	env, procs := envProcs, runtime.GOMAXPROCS(2)
	envProcs = 2
	t.Cleanup(func() { envProcs = env; runtime.GOMAXPROCS(procs) })
}

// At a live edge each turn brings a few lines between two idle turns: the
// process goes down to one P after quietRun of them, and a backlog's
// busyBytes with no idle turn between bring the default back.
func TestALiveEdgeRunsOnOnePAndABacklogBringsTheDefaultBack(t *testing.T) {
	onTwoPs(t)
	var p Procs
	for i := range quietRun {
		if p.Lowered() || runtime.GOMAXPROCS(0) != 2 {
			t.Fatalf("lowered after %d idle turns, before %d", i, quietRun)
		}
		p.Work(10 << 10) // a poll's few lines
		p.Idle()
	}
	if !p.Lowered() || runtime.GOMAXPROCS(0) != 1 {
		t.Fatalf("%d idle turns with a few lines each left GOMAXPROCS at %d", quietRun, runtime.GOMAXPROCS(0))
	}
	for n := 0; n+(256<<10) < busyBytes; n += 256 << 10 {
		p.Work(256 << 10)
	}
	if runtime.GOMAXPROCS(0) != 1 {
		t.Fatal("the default came back before busyBytes of work")
	}
	p.Work(256 << 10)
	if p.Lowered() || runtime.GOMAXPROCS(0) < 2 {
		t.Fatalf("a backlog's %d bytes left GOMAXPROCS at %d", busyBytes, runtime.GOMAXPROCS(0))
	}
}

// A backlog's turn between idle ones starts the count of idle turns again.
func TestABacklogBetweenIdleTurnsKeepsTheDefault(t *testing.T) {
	onTwoPs(t)
	var p Procs
	for range 3 * quietRun {
		p.Idle()
		p.Idle()
		p.Work(busyBytes)
	}
	if p.Lowered() || runtime.GOMAXPROCS(0) != 2 {
		t.Fatal("a process that works through a backlog every few turns was lowered to one P")
	}
}

// A process started on one P is left alone: Procs never raises what it
// did not lower.
func TestAProcessOnOnePIsLeftAlone(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var p Procs
	for range 2 * quietRun {
		p.Idle()
	}
	p.Work(2 * busyBytes)
	if p.Lowered() || runtime.GOMAXPROCS(0) != 1 {
		t.Fatalf("GOMAXPROCS %d, lowered %v", runtime.GOMAXPROCS(0), p.Lowered())
	}
}
