// Package spin decides when a process that waits for its peer across a pipe
// polls instead of sleeping: feed waiting for the report on the batch it
// sent, tally waiting for the batch feed is about to send; and (Procs)
// when such a process, waiting nearly all the time at a store's live
// edge, runs on one P.
//
// Sleeping costs more than the wait. Being woken is a thread wake-up, tens
// of microseconds on a VM whose vCPU went idle, and the wake-up places the
// sleeper on its waker's CPU (a pipe write is a "sync" wake-up), where it
// preempts the peer that woke it: the two processes then take turns on one
// CPU while the other idles. Traced at --batch-size 512 (perf sched): in
// the runs where feed slept through ~460 of its ~980 waits, tally was
// preempted by feed ~640 times and every feed and tally thread ran on one
// CPU. Polling for the peer keeps each process on its own CPU, and the peer
// never has to wake it.
//
// Invariants:
//   - A wait polls for at most Max after it began, and never with one CPU
//     (polling would take the peer's time).
//   - missesMax polls in a row that came up empty (a peer slower than Max:
//     a consumer that holds its batches, a feed at a store's live edge)
//     make the next waits sleep at once, restMin of them, twice as many
//     after each further such run, up to restMax: a peer that is always
//     slower costs Max every missesMax+restMax waits (~9 µs a wait), and a
//     long wait sleeps (~0% CPU). A hit ends the rests' doubling.
//   - A rest does not carry its misses over: after it, missesMax new misses
//     in a row are needed for the next. Carried over, one miss after a rest
//     began the next, doubled, and a few hiccups turned polling off for
//     most of a run (feed: ~460 sleeps of ~980 waits in one run at 512).
package spin

import (
	"runtime"
	"time"
)

// Max is the longest a wait polls: a few times the time in which feed at
// --batch-size 512 hears tally's report after the send, as measured
// (bench/README.md, "The figures behind the code's comments"); tally's
// next batch follows its report by the time feed takes to frame and write
// it.
const Max = 200 * time.Microsecond

const (
	missesMax = 3 // empty polls in a row before a rest
	restMin   = 4
	restMax   = 64
)

// Spinner decides, wait after wait, whether to poll and for how long.
type Spinner struct {
	off    bool // one CPU: never
	misses int  // polls in a row that came up empty
	rest   int  // waits left that sleep at once
	pause  int  // the next rest
}

// New returns a Spinner for this process, off with one P: it counts CPUs
// as Go's scheduler does (GOMAXPROCS follows the affinity mask and a
// cgroup's CPU limit, such as systemd's CPUQuota=, though for a quota it
// never goes below 2).
func New() *Spinner { return &Spinner{off: runtime.GOMAXPROCS(0) < 2, pause: restMin} }

// budget returns how long to poll in a wait that began waited ago, and
// false when the wait should sleep at once.
func (p *Spinner) budget(waited time.Duration) (time.Duration, bool) {
	if p.off {
		return 0, false
	}
	if p.rest > 0 {
		p.rest--
		return 0, false
	}
	left := Max - waited
	return left, left > 0
}

// missed records a poll that came up empty.
func (p *Spinner) missed() {
	if p.misses++; p.misses < missesMax {
		return
	}
	p.misses, p.rest = 0, p.pause
	p.pause = min(2*p.pause, restMax)
}

// poll calls look, yielding between calls, until it reports anything but
// Again or budget has passed since the first call, and returns its last
// answer. It looks once at least, however late the poller is scheduled (on
// a loaded machine a yield can outlast the whole budget).
func poll(budget time.Duration, look func() Look) Look {
	end := time.Now().Add(budget)
	for {
		if l := look(); l != Again || !time.Now().Before(end) {
			return l
		}
		Yield()
	}
}

// hit records a poll that found what it waited for.
func (p *Spinner) hit() { p.misses, p.pause = 0, restMin }

// Look is what one look of a wait found.
type Look uint8

const (
	// Again: not yet; poll on while the budget lasts.
	Again Look = iota
	// Found: what the wait is for (a hit).
	Found
	// Over: the wait is over without it (a broken protocol, the peer's
	// end): neither a hit nor a miss, the caller stops waiting.
	Over
)

// FoundIf is Found when found, else Again: a look that cannot end a wait
// otherwise.
func FoundIf(found bool) Look {
	if found {
		return Found
	}
	return Again
}

// Await is the one way to wait: it polls look for as long as the spinner
// allows in a wait that began waited ago (0: now), records the hit or the
// miss, and reports whether look ended the wait (Found or Over); false
// also when the wait should sleep at once, without looking.
func (p *Spinner) Await(waited time.Duration, look func() Look) bool {
	budget, ok := p.budget(waited)
	if !ok {
		return false
	}
	switch poll(budget, look) {
	case Found:
		p.hit()
		return true
	case Over:
		return true
	}
	p.missed()
	return false
}
