package feed

import (
	"runtime"
	"time"
)

// feed waits for a report after each batch. Sleeping in ppoll and being
// woken costs a thread wake-up, which on a VM whose vCPU went idle is tens
// of microseconds: with a consumer that answers at once (a batch of 512
// entries is read in ~20 µs) that wake-up, not the work, set the pace
// (feed and a minimal acking consumer: 4.4 M entries/s at --batch-size 512,
// 5.5 M/s when feed polls for the report for up to 100 µs first; medians of
// 21 interleaved runs, 500 000 lines). So feed polls, without sleeping, for
// at most spinMax after a batch went out, and only while that pays: a poll
// that ends without the report (a consumer that buckets a batch before
// reporting, or holds it) turns polling off for the next few waits, twice
// as many after each miss in a row, up to restMax: a consumer that is
// always slower costs spinMax every restMax batches (~1.5 µs a batch), one
// that misses once in a while (a VM's hiccup) only a few batches of
// polling, and a parked feed sleeps (~0% CPU). A cap of 1 024 let a few
// hiccups in a row turn polling off for the rest of a run; 64 made feed +
// ackconsumer at 512 80.2 -> 76.7 ms and feed + tally 173.6 -> 166.1 ms
// (medians of 21). With one CPU, polling would take the consumer's time,
// so feed never does.
const (
	spinMax = 100 * time.Microsecond
	restMin = 4
	restMax = 64
)

// spinner decides when feed polls for a report instead of sleeping.
type spinner struct {
	off   bool // one CPU: never
	rest  int  // waits left without polling since a poll ended empty
	pause int  // the rest after the next miss
}

// newSpinner counts CPUs as Go's scheduler does (GOMAXPROCS follows the
// affinity mask and a cgroup's CPU limit, such as systemd's CPUQuota=).
func newSpinner() *spinner { return &spinner{off: runtime.GOMAXPROCS(0) < 2, pause: restMin} }

// budget returns how long to poll when the last batch went out at sent,
// and false when feed should sleep at once.
func (p *spinner) budget(now, sent time.Time) (time.Duration, bool) {
	if p.off {
		return 0, false
	}
	if p.rest > 0 {
		p.rest--
		return 0, false
	}
	left := spinMax - now.Sub(sent)
	return left, left > 0
}

// missed records a poll that ended without the report.
func (p *spinner) missed() {
	p.rest = p.pause
	p.pause = min(2*p.pause, restMax)
}

// hit records a poll that got the report.
func (p *spinner) hit() { p.pause = restMin }
