package feed

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/timbertally/timbertally/lib/cursor"
	"github.com/timbertally/timbertally/lib/protocol"
	"github.com/timbertally/timbertally/lib/spin"
	"github.com/timbertally/timbertally/lib/store"
)

// The engine's numbers.
const (
	// maxBatchBytes bounds a batch's bytes; one longer entry is still a batch.
	maxBatchBytes = 8 << 20
	// pollEvery is how often a store at its end is checked for growth, so new
	// bytes go out within 250 ms.
	pollEvery = 250 * time.Millisecond
	// saveEvery rate-limits cursor writes to 4 a second.
	saveEvery = 250 * time.Millisecond
	// stuckWrite is how long, once interrupted, a write waits for a consumer
	// that takes none of its bytes before it is abandoned.
	stuckWrite = time.Second
)

// Store is one store to follow: its id on the protocol and its file.
type Store struct{ ID, Path string }

// Options is a feed run, as the command line gives it.
type Options struct {
	Stores    []Store
	Consumer  []string // argv, started without a shell
	Cursor    string   // "": nothing is read or persisted
	Follow    bool
	BatchSize int
	Max       int64 // 0: no limit
	Reset     bool
	FromEnd   bool // where a store the cursor does not know starts
	IdleTick  time.Duration
	MaxLine   int
	Stall     time.Duration
	Quiet     bool
	Progress  bool // draw the progress line on Stderr (a terminal)
	Stderr    io.Writer
}

// stream is one store's state in the main loop.
type stream struct {
	Store
	i       int
	r       *store.Reader
	next    store.Chunk // prepared while the store is parked
	ready   bool        // next holds a chunk not yet sent
	dry     bool        // the last read found nothing new: wait for the poll
	dryAt   time.Time   // when a read last found nothing new
	ended   bool        // one-shot: the end line is sent
	sentAt  time.Time   // when the last batch went out
	idleAt  time.Time   // when the last idle went out
	entryAt time.Time   // when the store last delivered an entry
	warned  bool        // the stall warning is printed
	gens    int         // generations of the store already noted
}

// feeder runs one feed.
type feeder struct {
	opt      Options
	streams  []*stream
	led      *ledger
	con      *consumer
	sent     int64 // entries sent, for --max
	pending  int64 // entries in prepared chunks, for --max
	turn     int   // round robin start
	hdr      []byte
	w        *writer // the consumer's stdin
	wk       *waker  // wakes the loop's ppoll: a signal, the consumer's exit
	spin     *spin.Spinner
	fds      [3]pollFd
	cur      cursor.Marks
	saved    []int64 // offsets in the cursor file
	offs     []int64 // scratch
	savedAt  time.Time
	saver    *saver
	polledAt time.Time
	signal   atomic.Value // os.Signal that interrupted the run
	force    atomic.Bool  // a second signal: kill the consumer now
	forced   bool         // the consumer was killed for it
	prog     *progress
	copied   bool // the copytruncate note is printed
	stuck    struct {
		written int64     // the writer's count when an interrupted write last saw progress
		at      time.Time // when
	}
}

// errMax stops a run at --max: an interrupt, not an end.
var errMax = errors.New("feed: --max reached")

// Run feeds the stores to the consumer until the end (one-shot), a signal,
// --max or an error, persists the cursor and returns the exit status.
func Run(opt Options, signals <-chan os.Signal) (int, error) {
	f := &feeder{opt: opt, cur: cursor.Marks{}, prog: newProgress(opt.Stderr, opt.Progress), spin: spin.New()}
	if err := f.open(); err != nil {
		return 1, err
	}
	defer f.closeStores()
	var err error
	if f.wk, err = newWaker(); err != nil {
		return 1, fmt.Errorf("feed: %w", err)
	}
	defer f.wk.close()
	con, err := startConsumer(opt.Consumer)
	if err != nil {
		return 1, err
	}
	defer syscall.Close(con.rep)
	// The consumer starts up (a Go runtime, a document, a tape: ~4 ms
	// here) while the first cursor is written (two fsyncs, ~1 ms); nothing
	// is sent to it before that write is done.
	if err := f.saveStart(); err != nil {
		con.abandon()
		return 1, err
	}
	f.con = con
	f.w = &writer{fd: con.in, wait: f.waitWritable}
	go f.watch(signals)
	err = f.loop()
	f.prog.clear()
	return f.finish(err)
}

// open reads the cursor and opens every store at its resume position. With
// --reset a cursor that does not parse is replaced, not an error: it must not
// stand in the way of re-deriving.
func (f *feeder) open() error {
	if f.opt.Cursor != "" {
		c, err := cursor.LoadMarks(f.opt.Cursor)
		switch {
		case err != nil && f.opt.Reset:
			f.note("feed: %v; --reset replaces it", err)
		case err != nil:
			return fmt.Errorf("feed: %w", err)
		default:
			f.cur = c
		}
	}
	if err := sameFile(f.opt.Stores); err != nil {
		return err
	}
	ids := make([]string, len(f.opt.Stores))
	start := make([]int64, len(f.opt.Stores))
	now := time.Now()
	for i, st := range f.opt.Stores {
		m, err := f.resume(st)
		if err != nil {
			return err
		}
		r, err := store.Resume(st.Path, m.Offset, m.Gen, f.opt.MaxLine)
		if err != nil {
			return fmt.Errorf("feed: store %s: %w", st.ID, err)
		}
		f.streams = append(f.streams, &stream{Store: st, i: i, r: r, entryAt: now, sentAt: now, gens: 1})
		ids[i], start[i] = st.ID, m.Offset
	}
	f.led = newLedger(ids, start)
	f.saver = newSaver(f.opt.Cursor)
	f.saved = append([]int64(nil), start...)
	return nil
}

// sameFile refuses two stores that are one file (named twice, or through a
// link): its entries would be fed, and counted, twice.
func sameFile(stores []Store) error {
	infos := make([]os.FileInfo, len(stores))
	for i, st := range stores {
		infos[i], _ = os.Stat(st.Path) // a missing store is store.Resume's to report
		for j := range i {
			if infos[i] != nil && infos[j] != nil && os.SameFile(infos[i], infos[j]) {
				return fmt.Errorf("feed: stores %s and %s are the same file (%s): its entries would be counted twice; name it once", stores[j].ID, st.ID, st.Path)
			}
		}
	}
	return nil
}

// resume returns where a store starts: 0 on --reset, else its cursor
// mark, else (a store the cursor does not know) --from.
func (f *feeder) resume(st Store) (cursor.Mark, error) {
	if m, ok := f.cur[st.ID]; ok && !f.opt.Reset {
		return m, nil
	}
	if err := f.renamed(st); err != nil {
		return cursor.Mark{}, err
	}
	if !f.opt.FromEnd || f.opt.Reset {
		return cursor.Mark{}, nil
	}
	pos, err := store.EndOfLastLine(st.Path)
	if err != nil {
		return cursor.Mark{}, fmt.Errorf("feed: store %s: %w", st.ID, err)
	}
	return cursor.Mark{Offset: pos}, nil
}

// renamed refuses a store the cursor does not know by its id but follows
// under another one: the same file under a new id would be read again from
// the start (or the end), and a tally store fed from both ids would count
// its entries twice.
func (f *feeder) renamed(st Store) error {
	if f.opt.Reset {
		return nil
	}
	for _, id := range slices.Sorted(maps.Keys(f.cur)) {
		if store.IsGen(st.Path, f.cur[id].Gen) {
			return fmt.Errorf("feed: store %s (%s) is the file the cursor follows as store %s; name it %s=%s to go on where %s stopped, or run with --reset to read every store again", st.ID, st.Path, id, id, st.Path, id)
		}
	}
	return nil
}

func (f *feeder) closeStores() {
	for _, s := range f.streams {
		s.r.Close()
	}
}

// watch turns a signal into an interrupt: it wakes the loop, also out of a
// write stuck on a consumer that does not read. The first signal lets the
// consumer finish (its stdin closed, exitGrace to exit); a second one, an
// operator who will not wait, kills it at once.
func (f *feeder) watch(signals <-chan os.Signal) {
	for sig := range signals {
		if f.signal.Load() == nil {
			f.signal.Store(sig)
		} else {
			f.force.Store(true)
		}
		f.wk.wake()
	}
}

// wait blocks until a report arrives, the waker is woken, the consumer's
// stdin has room (writing) or has no reader left, or d passes (d < 0: no
// limit), then pumps the reports in.
//
// The consumer's stdin is in every wait while it is open: a consumer that
// dies while a store is parked shows there (POLLERR, its read end is gone)
// even when its stdout does not end, because a grandchild holds it open (sh
// -c 'helper & exec consumer'). Its exit is then awaited, which wakes the
// loop, and check stops the run.
func (f *feeder) wait(d time.Duration, writing bool) {
	c := f.con
	fds := append(f.fds[:0], pollFd{fd: int32(f.wk.r), events: pollIn})
	if _, eof := f.led.status(); !eof {
		fds = append(fds, pollFd{fd: int32(c.rep), events: pollIn})
	}
	in := -1
	if c.in >= 0 && (writing || !c.awaits) {
		in = len(fds)
		fds = append(fds, pollFd{fd: int32(c.in)})
		if writing {
			fds[in].events = pollOut
		}
	}
	ppoll(fds, d)
	if in >= 0 && fds[in].revents&pollErr != 0 {
		c.awaitExit(f.wk)
	}
	f.wk.clear()
	f.led.pump(c.rep)
}

// errAbandoned stops a write that waits on a full pipe: a consumer that
// broke the protocol (and may never read again), a second signal, or, after
// an interrupt, a consumer that takes none of the bytes for stuckWrite.
var errAbandoned = errors.New("feed: write abandoned")

// waitWritable is the writer's wait: reports keep being read meanwhile, so
// a consumer blocked writing them cannot deadlock against feed.
//
// An interrupt does not cut a batch the consumer is still reading: a cut
// batch breaks the protocol (tally then stops with an error, without making
// its last records durable and reporting them), so the write goes on while
// the consumer takes its bytes. Only a consumer that takes none for
// stuckWrite, or a second signal, abandons it.
func (f *feeder) waitWritable() error {
	if f.signal.Load() == nil {
		f.wait(-1, true)
	} else {
		now := time.Now()
		if f.w.written != f.stuck.written || f.stuck.at.IsZero() {
			f.stuck.written, f.stuck.at = f.w.written, now
		}
		left := f.stuck.at.Add(stuckWrite).Sub(now)
		if left <= 0 {
			return errAbandoned
		}
		f.wait(left, true)
	}
	if err, _ := f.led.status(); err != nil || f.force.Load() {
		return errAbandoned
	}
	return nil
}

// loop sends until every store ended (one-shot), or an interrupt or error.
func (f *feeder) loop() error {
	var b []byte
	b = protocol.AppendHello(b)
	for _, s := range f.streams {
		b = protocol.AppendStore(b, s.ID, s.r.Pos())
	}
	if err := f.write(b); err != nil {
		return err
	}
	for {
		if err := f.check(); err != nil {
			return err
		}
		if err := f.prepare(); err != nil {
			return err
		}
		if !f.opt.Follow && f.allEnded() {
			return nil
		}
		sent, err := f.sendTurn()
		if err != nil {
			return err
		}
		now := time.Now()
		polled, err := f.tick(now)
		if err != nil {
			return err
		}
		if sent || polled {
			continue
		}
		if f.poll(now) {
			continue
		}
		d := time.Duration(-1)
		if due, ok := f.nextDue(now); ok {
			d = max(due.Sub(now), 0)
		}
		f.wait(d, false)
	}
}

// poll reads reports without sleeping, for as long as the spinner allows,
// when a store has a batch ready and waits only for the report on the last
// one; true means one is taken and can be sent.
func (f *feeder) poll(now time.Time) bool {
	var last time.Time
	for _, s := range f.streams {
		if s.ready && f.led.parked(s.i) && s.sentAt.After(last) {
			last = s.sentAt
		}
	}
	if last.IsZero() {
		return false
	}
	if !f.led.heard() {
		// Before its first report the consumer is starting up (a Go
		// runtime, a document, a tape): polling would only miss, and three
		// misses rested polling for the batches right after, so feed slept
		// and tally's first reports woke it onto tally's CPU, which slowed
		// the run's start (figures: bench/README.md, "The figures behind the code's comments"). One look, then sleep until the first report
		// comes.
		if f.led.pump(f.con.rep); !f.led.heard() {
			return false
		}
	}
	// The wait is timed from the send, when the report is due soon after,
	// but feed may have spent most of spin.Max since then on its own work
	// (a 2 MiB read of the store, every ~20 batches at 512): a late wait
	// still polls for half of it. Timed from the send alone, dozens of
	// waits a run slept at once (bench/README.md, "The figures behind the code's comments"), and each let tally's report wake feed
	// onto tally's CPU.
	budget, ok := f.spin.Budget(min(now.Sub(last), spin.Max/2))
	if !ok {
		return false
	}
	var over bool // a protocol error or the consumer's end: check stops the run
	taken := spin.Poll(budget, func() bool {
		f.led.pump(f.con.rep)
		for _, s := range f.streams {
			if s.ready && !f.led.parked(s.i) {
				return true
			}
		}
		err, eof := f.led.status()
		over = err != nil || eof
		return over
	})
	switch {
	case over:
	case taken:
		f.spin.Hit()
	default:
		f.spin.Missed()
	}
	return taken
}

// check returns why the run must stop now, if it must.
func (f *feeder) check() error {
	if f.signal.Load() != nil {
		return errInterrupted
	}
	exited := f.con.hasExited() // before the pump, which then sees its stdout's end
	f.led.pump(f.con.rep)
	if f.opt.Max > 0 && f.sent >= f.opt.Max {
		return errMax
	}
	err, eof := f.led.status()
	if err != nil {
		return err
	}
	if err := f.saver.failed(); err != nil {
		return err
	}
	if eof {
		return errStdoutClosed
	}
	if exited {
		return errExited
	}
	return nil
}

var errInterrupted = errors.New("feed: interrupted")

// errExited is a consumer gone before its input ended while something else
// (a grandchild) keeps its stdout open.
var errExited = errors.New("feed: the consumer exited before its input ended")

// prepare reads the next chunk of every store that has none, so that it goes
// out the moment the store is taken; in a one-shot run a store with nothing
// more gets its end line.
func (f *feeder) prepare() error {
	for _, s := range f.streams {
		if s.ready || s.dry || s.ended {
			continue
		}
		n := f.opt.BatchSize
		if f.opt.Max > 0 {
			n = int(min(int64(n), f.opt.Max-f.sent-f.pending))
			if n <= 0 {
				continue
			}
		}
		c, ok, err := s.r.Next(n, maxBatchBytes)
		if err != nil {
			return fmt.Errorf("feed: store %s: %w", s.ID, err)
		}
		f.noteRotations(s)
		switch {
		case ok:
			s.next, s.ready = c, true
			f.pending += int64(c.Entries)
		case f.opt.Follow:
			s.dry, s.dryAt = true, time.Now()
		default:
			s.ended = true
			if n, _ := s.r.Behind(); n > 0 {
				f.note("feed: store %s: its last %d bytes were not sent: they were not a whole line (no final newline) when it was read; a later run sends them once they are", s.ID, n)
			}
			if err := f.write(protocol.AppendEnd(f.hdr[:0], s.ID)); err != nil {
				return err
			}
		}
	}
	return nil
}

// noteRotations says once per rotation where the store's new generation
// starts, and once per run what copytruncate costs.
func (f *feeder) noteRotations(s *stream) {
	gens := s.r.Gens()
	for _, g := range gens[s.gens:] {
		f.note("feed: store %s was rotated (%s): %s is read from its start as position %d on", s.ID, g.Cause, s.Path, g.Base)
		if g.Skipped != "" {
			f.warn("feed: store %s: %s was written after the file feed was reading and renamed away before feed reached it: if it is a generation of the store (rotated twice while feed was behind), its entries are not read; re-derive with tally --provision --replace and feed --reset, or run feed with less lag", s.ID, g.Skipped)
		}
		if g.Cause == "truncated" && !f.copied {
			f.copied = true
			f.warn("feed: warning: a store truncated in place (copytruncate) loses the lines written between the copy and the truncate; rename-and-create rotation loses none")
		}
	}
	s.gens = len(gens)
}

func (f *feeder) allEnded() bool {
	for _, s := range f.streams {
		if !s.ended {
			return false
		}
	}
	return true
}

// sendTurn sends at most one prepared chunk per store that is not parked,
// starting one store further each turn so that stores take turns.
func (f *feeder) sendTurn() (bool, error) {
	sent := false
	n := len(f.streams)
	for k := 0; k < n && f.signal.Load() == nil; k++ { // interrupted: nothing new
		s := f.streams[(f.turn+k)%n]
		if !s.ready || f.led.parked(s.i) {
			continue
		}
		if err := f.send(s); err != nil {
			return sent, err
		}
		sent = true
	}
	f.turn = (f.turn + 1) % n
	return sent, nil
}

// send writes a store's prepared chunk, recording it as delivered first: the
// consumer may report on it before the write returns.
func (f *feeder) send(s *stream) error {
	c := s.next
	s.ready = false
	if c.Skip != "" {
		f.led.deliver(s.i, c.End, false)
		return f.write(protocol.AppendSkip(f.hdr[:0], s.ID, c.Offset, c.End, c.Skip))
	}
	f.led.deliver(s.i, c.End, true)
	f.hdr = protocol.AppendBatch(f.hdr[:0], s.ID, c.Offset, c.End, c.Entries)
	if err := f.write(f.hdr); err != nil {
		return err
	}
	if err := f.sendEntries(s, c); err != nil {
		return err
	}
	f.sent += int64(c.Entries)
	f.pending -= int64(c.Entries)
	now := time.Now()
	s.sentAt, s.entryAt = now, now
	f.prog.count(c.Entries, c.End-c.Offset)
	return nil
}

// sendEntries sends a chunk's entries: spliced from the store file while
// it still holds them, else (and after a short splice, the rest) from the
// read buffer, so the consumer gets exactly the bytes the chunk was cut
// from. The file is asked again before every splice: a wait for room in
// the pipe lasts as long as the consumer takes, and the store may be cut
// (copytruncate) and refilled meanwhile.
func (f *feeder) sendEntries(s *stream, c store.Chunk) error {
	sent := 0
	for sent < len(c.Data) && !f.w.noSplice {
		file, off, ok := s.r.Source(c)
		if !ok {
			break
		}
		n, full, err := f.w.splice(int(file.Fd()), off+int64(sent), len(c.Data)-sent)
		if err != nil {
			return f.writeErr(err)
		}
		sent += n
		if full {
			if err := f.w.wait(); err != nil {
				return f.writeErr(err)
			}
		} else if n == 0 {
			break
		}
	}
	return f.write(c.Data[sent:])
}

// write writes to the consumer's stdin.
func (f *feeder) write(b []byte) error {
	return f.writeErr(f.w.write(b))
}

// writeErr says why a write to the consumer's stdin failed.
func (f *feeder) writeErr(err error) error {
	switch {
	case err == nil:
		return nil
	case f.signal.Load() != nil:
		return errInterrupted
	case f.led.err != nil:
		return f.led.err
	case errors.Is(err, syscall.EPIPE):
		return errors.New("feed: the consumer stopped reading its input (broken pipe)")
	}
	return fmt.Errorf("feed: writing to the consumer: %w", err)
}

// tick does what is due by the clock: polls stores at their end, idle lines,
// stall warnings, the cursor and the progress line. polled says stores at
// their end are to be read again before the loop waits.
func (f *feeder) tick(now time.Time) (polled bool, err error) {
	if f.opt.Follow && now.Sub(f.polledAt) >= pollEvery {
		f.polledAt = now
		for _, s := range f.streams {
			polled = polled || s.dry
			s.dry = false
		}
	}
	for _, s := range f.streams {
		if due, ok := f.idleDue(s); ok && !now.Before(due) {
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
			quiet := now.Sub(s.entryAt).Milliseconds()
			if err := f.write(protocol.AppendIdle(f.hdr[:0], s.ID, quiet)); err != nil {
				return false, err
			}
		}
		if due, ok := f.stallDue(s); ok && !now.Before(due) {
			s.warned = true
			f.warn("feed: store %s has been parked for %v with no report: the consumer is holding a batch; a consumer that keeps entries across batches must report taken=", s.ID, f.opt.Stall)
		}
	}
	if now.Sub(f.savedAt) >= saveEvery {
		if err := f.save(now); err != nil {
			return false, err
		}
	}
	f.prog.draw(now, f.status)
	return polled, nil
}

// idleDue says when store s is owed an idle line: only at its live edge
// (following, everything delivered and taken, nothing new), every idle tick.
func (f *feeder) idleDue(s *stream) (time.Time, bool) {
	if !f.opt.Follow || !s.dry || s.ready || f.led.parked(s.i) {
		return time.Time{}, false
	}
	last := s.sentAt
	if s.idleAt.After(last) {
		last = s.idleAt
	}
	return last.Add(f.opt.IdleTick), true
}

// stallDue says when a parked store with no report earns its one warning.
func (f *feeder) stallDue(s *stream) (time.Time, bool) {
	if s.warned || f.opt.Stall <= 0 || !f.led.parked(s.i) {
		return time.Time{}, false
	}
	last := s.sentAt
	if at := f.led.since(s.i); at.After(last) {
		last = at
	}
	return last.Add(f.opt.Stall), true
}

// nextDue returns the earliest clock deadline; none means the loop waits for
// reports alone.
func (f *feeder) nextDue(now time.Time) (time.Time, bool) {
	var due time.Time
	earliest := func(t time.Time, ok bool) {
		if ok && (due.IsZero() || t.Before(due)) {
			due = t
		}
	}
	for _, s := range f.streams {
		earliest(f.polledAt.Add(pollEvery), f.opt.Follow && s.dry)
		earliest(f.idleDue(s))
		earliest(f.stallDue(s))
	}
	earliest(f.savedAt.Add(saveEvery), f.unsaved())
	earliest(f.prog.due())
	return due, !due.IsZero()
}

// unsaved reports whether a report moved an offset past the cursor file,
// or the signature of the generation holding an offset grew past the one
// in the cursor file (its first bytes were read since): a cursor whose
// signature covers fewer bytes than were read cannot tell the content
// feed read from what a copytruncate later writes into the same file.
func (f *feeder) unsaved() bool {
	if f.opt.Cursor == "" {
		return false
	}
	f.offs = f.led.offsets(f.offs)
	for i, o := range f.offs {
		if o != f.saved[i] {
			return true
		}
		s := f.streams[i]
		if g, m := s.r.GenAt(o), f.cur[s.ID].Gen; g.SigLen != m.SigLen || g.Sig != m.Sig {
			return true
		}
	}
	return false
}

// save persists the last valid offsets when they moved.
func (f *feeder) save(now time.Time) error {
	if !f.unsaved() {
		return nil
	}
	f.mark()
	if err := f.saver.submit(f.cur); err != nil {
		return err
	}
	copy(f.saved, f.offs)
	f.savedAt = now
	return nil
}

// saveNow writes the cursor at the end of the run, once the background
// saver has stopped, so that nothing can overwrite it.
func (f *feeder) saveNow() error {
	err := f.saver.stop()
	if !f.unsaved() {
		return err
	}
	f.mark()
	if serr := f.cur.Save(f.opt.Cursor); serr != nil && err == nil {
		err = fmt.Errorf("feed: %w", serr)
	}
	return err
}

// saveStart writes the cursor before anything is sent, so that it names
// every store's file from the first moment: a rotation before the first
// durable offset is then still recognised on a restart, and the old file
// read to its end (without it, a restart would start at the new file's 0).
func (f *feeder) saveStart() error {
	if f.opt.Cursor == "" {
		return nil
	}
	f.offs = f.led.offsets(f.offs)
	f.mark()
	if err := f.cur.Save(f.opt.Cursor); err != nil {
		return fmt.Errorf("feed: %w", err)
	}
	return nil
}

// mark sets every store's cursor mark to its last reported offset.
func (f *feeder) mark() {
	for i, s := range f.streams {
		f.cur[s.ID] = cursor.Mark{Offset: f.offs[i], Gen: s.r.GenAt(f.offs[i])}
	}
}

// finish ends the run after loop returned why: it closes the consumer's
// stdin (no end lines unless every store ended), waits for its last reports
// and its exit, persists, and gives the exit status.
func (f *feeder) finish(why error) (int, error) {
	cerr := f.stopConsumer()
	perr, _ := f.led.status()
	serr := f.saveNow()
	sig, _ := f.signal.Load().(syscall.Signal)
	switch {
	case why == errInterrupted:
		f.note("feed: interrupted by %s: no end sent (the consumer seals nothing early); the cursor holds the last reported offsets", signalName(sig))
		if f.con.stoppedBy(sig) {
			// Ctrl-C signals the terminal's whole process group: the
			// consumer stopped with feed, as it should.
			cerr = nil
		}
		return 128 + int(sig), cmp.Or(perr, cerr, serr)
	case why == nil && f.forced:
		// Every end was sent, but a second signal cut the consumer's finish.
		return 128 + int(sig), cmp.Or(perr, cerr, serr)
	case why == errMax:
		f.note("feed: stopped after --max %d entries: no end sent (the consumer seals nothing early); run again to continue", f.opt.Max)
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
		f.save(time.Now()) // a failed write is saveNow's error
		d := time.Until(deadline)
		if killed == nil {
			switch {
			case f.force.Load():
				f.forced = true
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

// note prints a note unless -q: what feed did (a rotation followed, an
// interrupt obeyed). A warning (warn) is printed even with -q, as
// coreutils' -q does: what may lose or hold entries (a stall, a
// copytruncate's lost lines, a generation not read), which a service's
// journal must show.
func (f *feeder) note(format string, args ...any) {
	if !f.opt.Quiet {
		f.warn(format, args...)
	}
}

// warn prints a warning, clearing the progress line first.
func (f *feeder) warn(format string, args ...any) {
	f.prog.clear()
	fmt.Fprintf(f.opt.Stderr, format+"\n", args...)
}

// status is the progress line's text, per store the bytes not yet
// delivered and whether it is parked, and the bytes behind in all.
func (f *feeder) status() (string, int64) {
	var b strings.Builder
	var total int64
	for _, s := range f.streams {
		state := "flowing"
		if f.led.parked(s.i) {
			state = "parked"
		}
		behind, _ := s.r.Behind() // a failed stat shows 0; the next read reports it
		total += behind
		fmt.Fprintf(&b, " | %s %s behind, %s", s.ID, bytesText(behind), state)
	}
	return b.String(), total
}

// The defaults of the command line.
const (
	defaultIdleTick = time.Second
	defaultStall    = 30 * time.Second
)

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
