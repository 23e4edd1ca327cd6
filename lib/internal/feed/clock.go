package feed

import (
	"time"

	"github.com/timbertally/timbertally/lib/protocol"
)

// pollEvery is how often a store at its end is checked for growth, so new
// bytes go out within 250 ms.
const pollEvery = 250 * time.Millisecond

// The defaults of the command line.
const (
	defaultIdleTick = time.Second
	defaultStall    = 30 * time.Second
	// defaultRotateWait is how long a renamed generation must be quiet
	// before the next is read: Apache's default Timeout (60 s), which
	// cuts an old child's stalled request after a graceful restart, plus
	// 5 s for logrotate's postrotate and the signal (docs/decisions.md).
	defaultRotateWait = 65 * time.Second
)

// clock holds the run's deadlines that come from time, not from the
// consumer: the poll of stores at their end (following), each store's idle
// line and its one stall warning. It decides when they fall due; the
// feeder's tick does what is due.
type clock struct {
	follow   bool
	idleTick time.Duration
	stall    time.Duration // 0: no stall warning
	polledAt time.Time     // when stores at their end were last released to be read again
}

func newClock(opt Options) clock {
	return clock{follow: opt.Follow, idleTick: opt.IdleTick, stall: opt.Stall}
}

// pollDue reports whether stores at their end are to be read again now,
// and if so starts the next interval.
func (c *clock) pollDue(now time.Time) bool {
	if !c.follow || now.Sub(c.polledAt) < pollEvery {
		return false
	}
	c.polledAt = now
	return true
}

// idleDue says when store s is owed an idle line: only at its live edge
// (following, everything delivered and taken, nothing new), every idle tick.
func (c *clock) idleDue(s *stream, led *ledger) (time.Time, bool) {
	if !c.follow || !s.dry || s.ready || s.ended || led.parked(s.i) || s.draining() {
		return time.Time{}, false
	}
	last := s.sentAt
	if s.idleAt.After(last) {
		last = s.idleAt
	}
	return last.Add(c.idleTick), true
}

// stallDue says when a parked store with no report earns its one warning.
func (c *clock) stallDue(s *stream, led *ledger) (time.Time, bool) {
	if s.warned || c.stall <= 0 || !led.parked(s.i) {
		return time.Time{}, false
	}
	last := s.sentAt
	if at := led.since(s.i); at.After(last) {
		last = at
	}
	return last.Add(c.stall), true
}

// atPoll returns the first poll at or after t. An idle line falls due at
// its store's own moment (its last batch or idle plus the tick); waking for
// each, a glob of 1 000 stores at their live edge woke the loop ~1 000
// times a second, each wake-up a pass over every store. Held to the poll,
// the idles due meanwhile go out together (one write) at most a poll
// interval late; their quiet= is the time measured then, so it stays true.
func (c *clock) atPoll(t time.Time) time.Time {
	next := c.polledAt.Add(pollEvery)
	if !t.After(next) {
		return next
	}
	return next.Add((t.Sub(next) + pollEvery - 1) / pollEvery * pollEvery)
}

// next returns the earliest of the clock's deadlines and the others given
// (the cursor's save, the progress line); none means the loop waits for
// reports alone.
func (c *clock) next(streams []*stream, led *ledger, others ...func() (time.Time, bool)) (time.Time, bool) {
	var due time.Time
	earliest := func(t time.Time, ok bool) {
		if ok && (due.IsZero() || t.Before(due)) {
			due = t
		}
	}
	for _, s := range streams {
		earliest(c.polledAt.Add(pollEvery), c.follow && s.dry)
		if t, ok := c.idleDue(s, led); ok {
			earliest(c.atPoll(t), true)
		}
		earliest(c.stallDue(s, led))
	}
	for _, o := range others {
		earliest(o())
	}
	return due, !due.IsZero()
}

// tick does what is due by the clock: polls stores at their end, idle lines,
// stall warnings, the cursor and the progress line. polled says stores at
// their end are to be read again before the loop waits.
func (f *feeder) tick(now time.Time) (polled bool, err error) {
	if f.clock.pollDue(now) {
		for _, s := range f.streams {
			polled = polled || s.dry
			s.dry = false
		}
	}
	for _, s := range f.streams {
		if due, ok := f.clock.idleDue(s, f.led); ok && !now.Before(due) {
			if s.dryAt.Before(due) {
				// The store was last read before the idle fell due, up to
				// a poll interval ago: read it once more, so that an idle
				// never claims "nothing new" over lines already written
				// (they would be late if it carried the event time past
				// their bucket). The idle goes out on the next turn if
				// there is still nothing.
				s.dry, polled = false, true
				continue
			}
			s.idleAt = now
			// One write for every idle due now: a glob of 1 000 stores at
			// their live edge is 1 000 idle lines a tick.
			f.idles = protocol.AppendIdle(f.idles, s.ID, now.Sub(s.entryAt).Milliseconds())
		}
		if due, ok := f.clock.stallDue(s, f.led); ok && !now.Before(due) {
			s.warned = true
			f.warn("feed: store %s has been parked for %v with no report: the consumer is holding a batch, or wrote its report into a buffer it has not flushed (a consumer must flush its stdout after each report; Python's print buffers a pipe); one that keeps entries across batches must report taken=", s.ID, f.opt.Stall)
		}
	}
	if len(f.idles) > 0 {
		err := f.write(f.idles)
		if f.idles = f.idles[:0]; err != nil {
			return false, err
		}
	}
	if err := f.scanGlobs(now); err != nil {
		return false, err
	}
	if now.Sub(f.cp.savedAt) >= saveEvery {
		if err := f.cp.save(now); err != nil {
			return false, err
		}
	}
	f.prog.draw(now, f.status)
	return polled, nil
}

// nextDue returns the earliest deadline of the run; none means the loop
// waits for reports alone.
func (f *feeder) nextDue() (time.Time, bool) {
	globs := func() (time.Time, bool) { return f.globs.due(f.opt.Follow, f.opt.IdleTick) }
	return f.clock.next(f.streams, f.led, f.cp.due, f.prog.due, globs)
}
