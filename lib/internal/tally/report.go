package tally

import (
	"bufio"
	"io"
	"sync"
	"time"

	"github.com/timbertally/timbertally/lib/protocol"
)

// reporter writes progress reports to feed. Reports come from two
// goroutines — taken from the main loop as soon as a batch is in memory,
// offset from the syncer once the tape it relies on is durable — so it
// serialises them and keeps both numbers from ever going backwards.
//
// With a window (feed offered one and tally asks for it on every report),
// taken is reported once half a window has been taken since the last
// report, and whatever is still unreported before tally waits for input
// (owed): feed, which may be waiting for that report, then sends on.
type reporter struct {
	mu     sync.Mutex
	w      *bufio.Writer
	ids    []string
	offset []int64
	taken  []int64
	sent   []int64 // taken as last reported
	window int64   // asked for on every report; 0: none, one batch in flight
	line   []byte
	err    error
}

func newReporter(w io.Writer) *reporter {
	return &reporter{w: bufio.NewWriter(w)}
}

// add declares a store resuming at pos: feed's offset and taken both start there.
func (r *reporter) add(id string, pos int64) {
	r.mu.Lock() // a store joining mid-run: the syncer may be reporting
	defer r.mu.Unlock()
	r.ids = append(r.ids, id)
	r.offset = append(r.offset, pos)
	r.taken = append(r.taken, pos)
	r.sent = append(r.sent, pos)
}

// ask asks for a window of w bytes on every report from now on.
func (r *reporter) ask(w int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.window = w
}

// took reports that store st has absorbed everything before taken.
func (r *reporter) took(st int, taken int64) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if taken <= r.taken[st] {
		return nil
	}
	r.taken[st] = taken
	if taken-r.sent[st] < r.window/2 {
		return nil // owed sends it before tally waits
	}
	r.send(st)
	return r.flush()
}

// greet asks for the window for the stores from the from-th on, with a
// report of where each resumes, so that feed sends ahead from the first
// batch: every store before any batch (from 0), or one joining mid-run
// (the last added).
func (r *reporter) greet(from int) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.window == 0 {
		return nil
	}
	for st := from; st < len(r.ids); st++ {
		r.send(st)
	}
	return r.flush()
}

// owed reports the taken positions not reported yet: tally is about to
// wait for input, and feed may be waiting for them to send it.
func (r *reporter) owed() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for st := range r.taken {
		if r.taken[st] > r.sent[st] {
			r.send(st)
		}
	}
	return r.flush()
}

// durable reports safe offsets whose tape records are durable.
func (r *reporter) durable(safe []int64) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for st, o := range safe {
		if o > r.offset[st] {
			r.offset[st] = o
			r.taken[st] = max(r.taken[st], o)
			r.send(st)
		}
	}
	return r.flush()
}

func (r *reporter) send(st int) {
	r.sent[st] = r.taken[st]
	r.line = protocol.AppendReport(r.line[:0], protocol.Report{ID: r.ids[st], Offset: r.offset[st], Taken: r.taken[st], Window: r.window})
	r.w.Write(r.line)
}

func (r *reporter) flush() error {
	if r.err == nil {
		r.err = r.w.Flush()
	}
	return r.err
}

// syncInterval is the least time between two fsyncs of the tape. An fsync
// costs a device round trip and wakes two threads; unlimited, the syncer
// fsynced after nearly every sealed bucket, a large share of tally's time
// in the pipeline (figures: bench/README.md, "The figures behind the code's comments"). Waiting only delays
// the durable offset feed persists (taken never waits), and 50 ms keeps it
// within the few-writes-a-second feed's cursor is written at anyway.
const syncInterval = 50 * time.Millisecond

// syncer makes the tape durable off the reading goroutine and then reports
// the offsets that waited for it. Submissions coalesce: one fsync covers
// every append before it, and a later set of safe offsets supersedes an
// earlier one (safe offsets never decrease); fsyncs are at least
// syncInterval apart.
type syncer struct {
	mu      sync.Mutex
	wake    chan struct{}
	size    int64   // tape size the pending offsets rely on
	pending []int64 // latest safe offsets waiting for a sync
	durable int64   // tape size known durable
	tape    interface{ Sync() error }
	rep     *reporter
	err     error
	quit    chan struct{} // closed by stop: no more waiting between fsyncs
	done    chan struct{}
}

func newSyncer(tape interface {
	Sync() error
	Size() int64
}, rep *reporter) *syncer {
	s := &syncer{wake: make(chan struct{}, 1), tape: tape, rep: rep, quit: make(chan struct{}), done: make(chan struct{}), durable: tape.Size()}
	go s.loop()
	return s
}

// synced returns the tape size known durable.
func (s *syncer) synced() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.durable
}

// submit queues safe offsets that rely on the first size bytes of the tape.
func (s *syncer) submit(size int64, safe []int64) error {
	s.mu.Lock()
	s.size = size
	s.pending = append(s.pending[:0], safe...)
	err := s.err
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
	return err
}

func (s *syncer) loop() {
	defer close(s.done)
	var safe []int64
	// The first fsync waits syncInterval too: tally's first seal comes
	// early in a run, and a new tape's first fsync (journal work) then fell
	// among the first batches, which feed and tally were still getting
	// going on, and slowed them measurably (figures: bench/README.md, "The figures behind the code's comments").
	last := time.Now()
	for range s.wake {
		// Waiting here, not dropping the wake, coalesces what arrives
		// meanwhile into the one fsync that follows. When stopped, the
		// caller makes the last fsync and report itself.
		select {
		case <-time.After(time.Until(last.Add(syncInterval))):
		case <-s.quit:
			return
		}
		last = time.Now()
		s.mu.Lock()
		size := s.size
		safe = append(safe[:0], s.pending...)
		s.mu.Unlock()
		err := s.tape.Sync()
		if err == nil {
			s.mu.Lock()
			s.durable = max(s.durable, size)
			s.mu.Unlock()
			err = s.rep.durable(safe)
		}
		if err != nil {
			s.mu.Lock()
			s.err = err
			s.mu.Unlock()
			return
		}
	}
}

// stop ends the syncer and returns its first error. What it had not synced
// yet is the caller's to sync and report.
func (s *syncer) stop() error {
	close(s.quit)
	close(s.wake)
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// window takes the window feed offers (its hello's window=): tally asks
// for all of it on every report, reports taken in halves of it and what it
// owes before it waits for input, and no longer polls for feed's next
// batch. With several batches in flight the next one is normally in the
// pipe already: an empty pipe means feed is behind, and polling for it
// would burn the CPU that the window saves (docs/decisions.md).
func (c *consumer) window(w int64) {
	c.rep.ask(w)
	c.in.waits = func() { c.rep.owed() }
	c.in.spin = nil
}
