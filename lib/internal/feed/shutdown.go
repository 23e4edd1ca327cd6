package feed

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"syscall"
	"time"
)

// stuckWrite is how long, once interrupted, a write waits for a consumer
// that takes none of its bytes before it is abandoned.
const stuckWrite = time.Second

// shutdown is how a run is stopped from outside: the first signal
// interrupts it (no new batch, the one being written finishes, the
// consumer's stdin closes and it has exitGrace to exit), a second kills the
// consumer at once. Signals arrive on their own goroutine; the main loop
// asks.
type shutdown struct {
	signal atomic.Value // os.Signal that interrupted the run
	force  atomic.Bool  // a second signal: kill the consumer now
	forced bool         // the consumer was killed for it
	stuck  struct {
		written int64     // the writer's count when an interrupted write last saw progress
		at      time.Time // when
	}
}

var errInterrupted = errors.New("feed: interrupted")

// errAbandoned stops a write that waits on a full pipe: a consumer that
// broke the protocol (and may never read again), a second signal, or, after
// an interrupt, a consumer that takes none of the bytes for stuckWrite.
var errAbandoned = errors.New("feed: write abandoned")

// interrupted reports whether a signal interrupted the run.
func (sd *shutdown) interrupted() bool { return sd.signal.Load() != nil }

// signalLag bounds how long feed waits for its own share of a signal that
// stopped its consumer.
const signalLag = 250 * time.Millisecond

// sameSignal reports whether a consumer stopped by SIGINT or SIGTERM was
// stopped by the signal that interrupts feed too: Ctrl-C signals the
// terminal's whole process group, and the kernel may end the consumer, and
// feed see its pipe close, before Go hands feed its own copy. Waiting
// signalLag for it keeps the run an interrupt ("interrupted by SIGINT", exit
// 130), not a consumer that failed.
func (sd *shutdown) sameSignal(c *consumer) bool {
	if !c.stoppedBy(syscall.SIGINT) && !c.stoppedBy(syscall.SIGTERM) {
		return false
	}
	for deadline := time.Now().Add(signalLag); !sd.interrupted() && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	sig, _ := sd.signal.Load().(syscall.Signal)
	return sig != 0 && c.stoppedBy(sig)
}

// watch turns a signal into an interrupt: it wakes the loop, also out of a
// write stuck on a consumer that does not read. The first signal lets the
// consumer finish (its stdin closed, exitGrace to exit); a second one, an
// operator who will not wait, kills it at once.
func (sd *shutdown) watch(signals <-chan os.Signal, wk *waker) {
	for sig := range signals {
		if sd.signal.Load() == nil {
			sd.signal.Store(sig)
		} else {
			sd.force.Store(true)
		}
		wk.wake()
	}
}

// waitWritable is the writer's wait: reports keep being read meanwhile, so
// a consumer blocked writing them cannot deadlock against feed.
//
// An interrupt does not cut a batch the consumer is still reading: a cut
// batch breaks the protocol (tally then stops with an error, without making
// its last records durable and reporting them), so the write goes on while
// the consumer takes its bytes. Only a consumer that takes none for
// stuckWrite, or a second signal, abandons it.
func (f *feeder) waitWritable() error {
	sd := &f.stop
	if !sd.interrupted() {
		f.wait(-1, true)
	} else {
		now := time.Now()
		if f.w.written != sd.stuck.written || sd.stuck.at.IsZero() {
			sd.stuck.written, sd.stuck.at = f.w.written, now
		}
		left := sd.stuck.at.Add(stuckWrite).Sub(now)
		if left <= 0 {
			return errAbandoned
		}
		f.wait(left, true)
	}
	if err, _ := f.led.status(); err != nil || sd.force.Load() {
		return errAbandoned
	}
	return nil
}

// finish ends the run after loop returned why: it closes the consumer's
// stdin (no end lines unless every store ended), waits for its last reports
// and its exit, persists, and gives the exit status.
func (f *feeder) finish(why error) (int, error) {
	cerr := f.stopConsumer()
	if why != errInterrupted && f.stop.sameSignal(f.con) {
		why = errInterrupted
	}
	perr, _ := f.led.status()
	serr := f.cp.saveNow()
	sig, _ := f.stop.signal.Load().(syscall.Signal)
	switch {
	case why == errInterrupted:
		f.note("feed: interrupted by %s: no end sent (the consumer seals nothing early); the cursor holds the last reported offsets", signalName(sig))
		if f.con.stoppedBy(sig) {
			// Ctrl-C signals the terminal's whole process group: the
			// consumer stopped with feed, as it should.
			cerr = nil
		}
		return 128 + int(sig), cmp.Or(perr, cerr, serr)
	case why == nil && f.stop.forced:
		// Every end was sent, but a second signal cut the consumer's finish.
		return 128 + int(sig), cmp.Or(perr, cerr, serr)
	case why == errMax && (cerr != nil || perr != nil):
		// The consumer failed: that, not --max, is what the run says.
		return 1, cmp.Or(perr, cerr, serr)
	case why == errMax && !f.cp.moved():
		// Said even with -q: a run that repeats itself forever is not a note.
		f.warn("feed: stopped after --max %d entries, and they sealed no bucket: the consumer holds them all in buckets still open (a bucket seals once event time passes its end plus the document's grace), so no durable offset and not the cursor moved, and the same command repeats this run; raise --max well above %d, or run without it", f.opt.Max, f.sent)
		why = nil
	case why == errMax:
		f.note("feed: stopped after --max %d entries: no end sent (the consumer seals nothing early); the cursor moved, run again to continue", f.opt.Max)
		why = nil
	case why != nil && cerr != nil:
		// The consumer's own death explains the broken pipe or the early EOF.
		return 1, cerr
	}
	if err := cmp.Or(why, perr, cerr, serr); err != nil {
		return 1, err
	}
	return 0, nil
}

// stopConsumer closes the consumer's stdin, reads its last reports and
// waits for it to exit, killing it after exitGrace. Offsets reported
// meanwhile go to the saver at once: a valid report is durable whatever the
// exit, so the cursor's fsyncs overlap the consumer's exit instead of
// following it (bench/README.md, "The figures behind the code's comments").
func (f *feeder) stopConsumer() error {
	c := f.con
	c.closeInput()
	c.awaitExit(f.wk)
	deadline := time.Now().Add(exitGrace)
	var killed error
	for !c.hasExited() {
		f.cp.save(time.Now()) // a failed write is saveNow's error
		d := time.Until(deadline)
		if killed == nil {
			switch {
			case f.stop.force.Load():
				f.stop.forced = true
				killed = fmt.Errorf("feed: a second signal: the consumer %s was killed before it exited", c.cmd.Args[0])
			case d <= 0:
				killed = fmt.Errorf("feed: the consumer did not exit within %v of its input closing; it was killed", exitGrace)
			}
			if killed != nil {
				c.cmd.Process.Kill()
			}
		}
		if killed != nil {
			d = -1 // until the exit wakes the loop
		}
		f.wait(d, false)
	}
	f.led.pump(c.rep)
	if killed != nil {
		return killed
	}
	return c.exitErr()
}

// signalName names the two signals feed stops on as an operator types them.
func signalName(sig os.Signal) string {
	switch sig {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return sig.String()
}
