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
// 21 interleaved runs, 500 000 lines). A consumer that buckets as it reads
// pays for feed's sleeps too: its report wakes feed onto the consumer's
// own CPU (a pipe write is a "sync" wake-up), where feed then preempts it.
// So feed polls, without sleeping, for at most spinMax after a batch went
// out, and only while that pays. tally --run at 512 reports ~60-80 µs
// after the send (median; the batch cycle is 110-140 µs, 190-240 µs at the
// 90th percentile), so spinMax is 200 µs. Against 100 µs and polling
// turned off at the first miss, three sets of 21-25 interleaved runs gave
// tally's CPU in the pipeline 133 -> 125, 136 -> 133 and 132 -> 126 ms and
// the run 168 -> 155, 172 -> 166 and 165 -> 162 ms (medians).
//
// A miss now and then (a seal, a collection, the VM) leaves polling on;
// three misses in a row (a consumer that buckets a batch before reporting
// it, or holds it) turn it off for the next few waits, twice as many after
// each further miss, up to restMax: a consumer that is always slower costs
// spinMax every restMax batches (~3 µs a batch), and a parked feed sleeps
// (~0% CPU). A cap of 1 024 let a few hiccups in a row turn polling off
// for the rest of a run; 64 made feed + ackconsumer at 512 80.2 -> 76.7 ms
// and feed + tally 173.6 -> 166.1 ms (medians of 21). With one CPU,
// polling would take the consumer's time, so feed never does.
const (
	spinMax   = 200 * time.Microsecond
	missesMax = 3 // misses in a row before polling rests
	restMin   = 4
	restMax   = 64
)

// spinner decides when feed polls for a report instead of sleeping.
type spinner struct {
	off    bool // one CPU: never
	misses int  // polls in a row that ended empty
	rest   int  // waits left without polling since polling rested
	pause  int  // the rest after the next miss that rests
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
	if p.misses++; p.misses < missesMax {
		return
	}
	p.rest = p.pause
	p.pause = min(2*p.pause, restMax)
}

// hit records a poll that got the report.
func (p *spinner) hit() { p.misses, p.pause = 0, restMin }
