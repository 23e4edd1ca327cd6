package spin

import (
	"os"
	"runtime"
)

// Procs runs the process with one P (GOMAXPROCS 1) while it is at its
// live edge, and with Go's default while it works through a backlog.
//
// At the live edge feed and tally spend nearly all their time blocked in a
// system call (feed's ppoll, tally's read). Go's monitor thread (sysmon)
// takes a P from a goroutine blocked in a system call only after 10 ms
// when another P is idle, and restarts its 20 µs ticks after every such
// take: it woke ~190 times a second in a feed at the live edge and ~50 in
// its tally. With one P the P is taken at the first tick and the monitor
// sleeps until the call returns: feed + tally at a store's live edge (200
// lines/s) took 0.28% of a core instead of 0.55% (bench/README.md). Through
// a backlog one P costs more than it saves (the pipeline's CPU 1.76x the
// extractor's instead of 1.53x at 512: a second P lets a goroutine's
// wake-up run beside the main loop), so the default comes back as soon as
// work keeps coming.
//
// Invariants:
//   - quietRun calls of Idle in a row, with less than busyBytes of Work
//     between any two, lower the process to one P; busyBytes of Work with
//     no Idle between bring the default back. Each switch stops the world
//     once (tens of µs), and the hysteresis bounds how often: at a live
//     edge a turn brings a few KiB between two idle ones.
//   - The default that comes back is Go's (runtime.SetDefaultGOMAXPROCS:
//     CPUs, affinity, a cgroup's quota, followed as they change), or the
//     GOMAXPROCS environment variable's value when it is set. A process
//     that already runs on one P is left alone.
type Procs struct {
	idle    int   // Idle calls in a row
	work    int64 // bytes of Work since the last Idle
	lowered bool  // the process runs on one P by Procs' doing
}

const (
	quietRun  = 8       // idle turns in a row that lower the process to one P
	busyBytes = 1 << 20 // bytes of work with no idle turn that bring the default back
)

// Idle records a turn that found nothing to do (feed: a store with no new
// line; tally: a wait for input that brought a few lines).
func (p *Procs) Idle() {
	p.work = 0
	if p.idle++; p.idle >= quietRun && !p.lowered && runtime.GOMAXPROCS(0) > 1 {
		runtime.GOMAXPROCS(1)
		p.lowered = true
	}
}

// Work records a turn that found n bytes to do (feed: a chunk read;
// tally: a read of input).
func (p *Procs) Work(n int) {
	if p.work += int64(n); p.work < busyBytes {
		return
	}
	p.idle = 0
	if p.lowered {
		p.lowered = false
		restoreProcs()
	}
}

// Lowered reports whether the process runs on one P by Procs' doing.
func (p *Procs) Lowered() bool { return p.lowered }

// restoreProcs brings back the GOMAXPROCS the process started with.
func restoreProcs() {
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.SetDefaultGOMAXPROCS()
		return
	}
	runtime.GOMAXPROCS(envProcs)
}

// envProcs is GOMAXPROCS as the process started with it, for a run whose
// environment sets it.
var envProcs = runtime.GOMAXPROCS(0)
