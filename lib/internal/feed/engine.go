package feed

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/timbertally/timbertally/lib/internal/cursor"
	"github.com/timbertally/timbertally/lib/internal/spin"
	"github.com/timbertally/timbertally/lib/internal/store"
	"github.com/timbertally/timbertally/lib/protocol"
)

// maxBatchBytes bounds a batch's bytes; one longer entry is still a batch.
const maxBatchBytes = 8 << 20

// Store is one store to follow: its id on the protocol, its file and the
// older generations read before it (store.Spec, the command line's syntax).
type Store = store.Spec

// Options is a feed run, as the command line gives it.
type Options struct {
	Stores    []Store
	Globs     []string // --glob patterns: every matching file is a store, and, following, every new one
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
	// RotateWait is how long a renamed generation must be quiet before
	// the file at the path is read (store.Options.Drain).
	RotateWait time.Duration
	Quiet      bool
	Progress   bool // draw the progress line on Stderr (a terminal)
	Stderr     io.Writer
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
	glob    string      // the --glob it matched; "": named on the command line
	gone    int         // consecutive glob scans that found its file gone
	from    string      // where the resume position came from (protocol.FromCursor, ...)
	drained drainNotes  // what was said of the renamed generation being drained
}

// size is what the prepared chunk adds to what the consumer holds untaken.
func (s *stream) size() int64 {
	if s.next.Skip != "" {
		return 0
	}
	return s.next.End - s.next.Offset
}

// feeder runs one feed: the main loop over the streams, the ledger of what
// was delivered and reported, and the consumer. What persists is the
// checkpoint's (checkpoint.go), what falls due by time the clock's
// (clock.go), how a run is stopped from outside the shutdown's (shutdown.go).
type feeder struct {
	opt     Options
	streams []*stream
	led     *ledger
	con     *consumer
	sent    int64 // entries sent, for --max
	pending int64 // entries in prepared chunks, for --max
	turn    int   // round robin start
	hdr     []byte
	w       *writer // the consumer's stdin
	wk      *waker  // wakes the loop's ppoll: a signal, the consumer's exit
	spin    *spin.Spinner
	procs   spin.Procs // one P at the live edge
	fds     [3]pollFd
	cp      checkpoint
	clock   clock
	stop    shutdown
	prog    *progress
	globs   globber
	idles   []byte // the idle lines due in a tick, written at once
}

// newFeeder returns a feeder for opt, its stores not yet opened.
func newFeeder(opt Options) *feeder {
	return &feeder{opt: opt, cp: checkpoint{path: opt.Cursor, cur: cursor.Marks{}}, clock: newClock(opt), prog: newProgress(opt.Stderr, opt.Progress), spin: spin.New()}
}

// errMax stops a run at --max: an interrupt, not an end.
var errMax = errors.New("feed: --max reached")

// Run feeds the stores to the consumer until the end (one-shot), a signal,
// --max or an error, persists the cursor and returns the exit status.
func Run(opt Options, signals <-chan os.Signal) (int, error) {
	f := newFeeder(opt)
	defer f.cp.release()
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
	if err := f.cp.saveStart(); err != nil {
		con.abandon()
		return 1, err
	}
	f.con = con
	f.w = &writer{fd: con.in, wait: f.waitWritable}
	go f.stop.watch(signals, f.wk)
	err = f.loop()
	f.prog.clear()
	return f.finish(err)
}

// open reads the cursor and opens every store at its resume position. With
// --reset a cursor that does not parse is replaced, not an error: it must not
// stand in the way of re-deriving.
func (f *feeder) open() error {
	replaced, err := f.cp.load(f.opt.Reset)
	if err != nil {
		return err
	}
	if replaced != nil {
		f.note("feed: %v; --reset replaces it", replaced)
	}
	stores, globbed, err := f.globs.expand(f.opt.Stores, f.opt.Globs)
	if err != nil {
		return err
	}
	stores, globbed, links := linkedStores(stores, globbed)
	for _, n := range links {
		f.note("%s", n)
	}
	if len(stores) == 0 && len(f.opt.Globs) > 0 {
		pats := strings.Join(f.opt.Globs, " ")
		if !f.opt.Follow {
			return fmt.Errorf("feed: no file matches --glob %s, and no store is named: there is nothing to read; check the pattern and that its directory exists, or add --follow to wait for files to appear", pats)
		}
		f.note("feed: no file matches --glob %s yet; waiting for one (each is read from its start when it appears)", pats)
	}
	if err := sameFile(stores); err != nil {
		return err
	}
	ids := make([]string, len(stores))
	start := make([]int64, len(stores))
	for i, st := range stores {
		var s *stream
		var err error
		if globbed[i] != "" {
			s, err = f.openGlob(st, i, false)
		} else {
			s, err = f.openStream(st, i, false, false)
		}
		if err != nil {
			return err
		}
		s.glob = globbed[i]
		f.streams = append(f.streams, s)
		ids[i], start[i] = st.ID, s.r.Pos()
	}
	for _, m := range f.globs.rotated {
		if !f.isHistory(m.r.Path) { // else born's note said what it is
			f.note("%s", rotatedNote(m.pattern, m.r))
		}
	}
	f.led = newLedger(ids, start)
	f.cp.bind(f.streams, f.led, start)
	return nil
}

// openStream opens store st, the run's i-th, at its resume position (a
// store joining mid-run, that the cursor does not know, from its start).
// Following, a file that does not exist yet is waited for: a note now,
// then silence until it appears and is read from its start.
//
// A glob's file the cursor knows whose file was removed since, with
// another at its path now, goes on as a new generation at the cursor's
// position, read from its start, with a note: a glob's files come and go,
// and refusing would stop every other store of the run.
func (f *feeder) openStream(st Store, i int, globbed, joins bool) (*stream, error) {
	m, from, err := f.resume(st, joins)
	if err != nil {
		return nil, err
	}
	opt := store.Options{MaxLine: f.opt.MaxLine, Wait: f.opt.Follow}
	if f.opt.Follow {
		// A one-shot run reads what is there now; following, a renamed
		// generation is read to its end, which only its writer's
		// silence tells (docs/decisions.md).
		opt.Drain = f.opt.RotateWait
		// At the live edge of many stores the path's stat is half the
		// cost of a poll; a rotation waits up to a second for it.
		opt.PathEvery = time.Second
	}
	opt.Claimed = func(path string) bool { return f.claimedBy(st.ID, path) != "" }
	r, err := store.ResumeSpec(st, store.Where{Pos: m.Offset, Gen: m.Gen, Gens: m.Gens, Seam: m.Seam}, opt)
	var rep *store.ReplacedError
	if globbed && errors.As(err, &rep) {
		f.note("feed: store %s: %s is another file than the cursor's (%s): the cursor's was removed or replaced; the new one is read from its start as position %d on (the old one's lines after that position, if it had any, were not read)", st.ID, st.Path, rep.What(), m.Offset)
		r, err = store.ResumeSpec(st, store.Where{Pos: m.Offset, Gen: store.Gen{Base: m.Offset}}, opt)
	}
	if err != nil {
		return nil, f.resumeErr(st, m, err)
	}
	if ok, err := r.AtLineStart(); err != nil || !ok {
		r.Close()
		if err == nil {
			err = fmt.Errorf("the cursor's position %d is not where a line starts (the byte before it is not a newline): the cursor was edited, or it is another file's; the rest of that line would be taken for an entry. Fix the cursor, or %s", m.Offset, f.rederive())
		}
		return nil, fmt.Errorf("feed: store %s: %w", st.ID, err)
	}
	// After the line start: an edited position is that message's.
	if err := r.CheckSeam(m.Seam); err != nil {
		r.Close()
		return nil, f.resumeErr(st, m, err)
	}
	if r.Waiting() {
		f.note("feed: store %s: %s does not exist yet; waiting for it (it is read from its start when it appears)", st.ID, st.Path)
	}
	now := time.Now()
	return &stream{Store: st, i: i, r: r, entryAt: now, sentAt: now, gens: len(r.Gens()), from: from}, nil
}

// claimedBy returns the store other than id that the file at path is a
// generation of, in this run or in the cursor; "" when there is none. A
// file is a generation by its identity (device, inode and first bytes),
// whatever its name: a store's renamed file matched again by a glob, or
// taken at a rotation of another store's path, is not read twice.
func (f *feeder) claimedBy(id, path string) string {
	for _, s := range f.streams {
		if s.ID == id {
			continue
		}
		for _, g := range s.r.Gens() {
			if store.IsGen(path, g) {
				return s.ID
			}
		}
	}
	for _, other := range slices.Sorted(maps.Keys(f.cp.cur)) {
		if other != id && store.IsGen(path, f.cp.cur[other].Gen) {
			return other
		}
	}
	return ""
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

// resume returns where a store starts, and where that came from: 0 on
// --reset, else its cursor mark, else (a store the cursor does not know)
// --from, or 0 when it joins mid-run.
func (f *feeder) resume(st Store, joins bool) (cursor.Mark, string, error) {
	if m, ok := f.cp.cur[st.ID]; ok && !f.opt.Reset {
		return m, protocol.FromCursor, nil
	}
	if err := f.renamed(st); err != nil {
		return cursor.Mark{}, "", err
	}
	if !f.opt.FromEnd || f.opt.Reset || joins {
		return cursor.Mark{}, protocol.FromStart, nil
	}
	base, err := store.HistoryEnd(st)
	if err != nil {
		return cursor.Mark{}, "", fmt.Errorf("feed: store %s: %w", st.ID, err)
	}
	if _, err := os.Stat(st.Path); errors.Is(err, fs.ErrNotExist) && f.opt.Follow {
		return cursor.Mark{Offset: base}, protocol.FromEnd, nil // waited for: read from its start
	}
	pos, err := store.EndOfLastLine(st.Path)
	if err != nil {
		return cursor.Mark{}, "", fmt.Errorf("feed: store %s: %w", st.ID, err)
	}
	return cursor.Mark{Offset: base + pos}, protocol.FromEnd, nil
}

// renamed refuses a store the cursor does not know by its id but follows
// under another one (the same inode, first bytes and seam): the same file under a new id would be read again from
// the start (or the end), and a tally store fed from both ids would count
// its entries twice.
func (f *feeder) renamed(st Store) error {
	if f.opt.Reset {
		return nil
	}
	for _, id := range slices.Sorted(maps.Keys(f.cp.cur)) {
		if m := f.cp.cur[id]; store.IsGen(st.Path, m.Gen) && store.HasSeam(st.Path, m.Gen, m.Offset, m.Seam) {
			return fmt.Errorf("feed: store %s (%s) is the file the cursor follows as store %s; name it %s=%s to go on where %s stopped (under a new id its entries would be counted a second time), or, to count it under the new id, %s", st.ID, st.Path, id, id, st.Path, id, f.rederive())
		}
	}
	return nil
}

func (f *feeder) closeStores() {
	for _, s := range f.streams {
		s.r.Close()
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

// loop sends until every store ended (one-shot), or an interrupt or error.
func (f *feeder) loop() error {
	var b []byte
	b = protocol.AppendHeader(b, protocol.Header{Kind: protocol.KindHello, Window: window, Cursor: absPath(f.opt.Cursor)})
	for _, s := range f.streams {
		b = appendStore(b, s)
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
		if !f.mustWait(now) {
			continue
		}
		d := time.Duration(-1)
		if due, ok := f.nextDue(); ok {
			d = max(due.Sub(now), 0)
		}
		f.wait(d, false)
	}
}

// poll reads reports without sleeping, for as long as the spinner allows,
// when a store has a batch ready and waits only for the report on the last
// one; true means one is taken and can be sent. A store with a window is
// not polled for: with batches in flight the report comes before the
// consumer runs dry, and feed sleeps until it does.
func (f *feeder) poll(now time.Time) bool {
	var last time.Time
	for _, s := range f.streams {
		if s.ready && !f.led.windowed(s.i) && f.led.full(s.i, s.size()) && s.sentAt.After(last) {
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
	// waits a run slept at once (bench/README.md, "The figures behind the
	// code's comments"), and each let tally's report wake feed onto
	// tally's CPU.
	return f.spin.Await(min(now.Sub(last), spin.Max/2), f.look)
}

// look is one look of poll's wait: a store's batch taken is what it waits
// for; a protocol error or the consumer's end is over (check stops the run).
func (f *feeder) look() spin.Look {
	f.led.pump(f.con.rep)
	if f.sendable() {
		return spin.Found
	}
	if err, eof := f.led.status(); err != nil || eof {
		return spin.Over
	}
	return spin.Again
}

// mustWait reports whether the loop, having sent nothing this turn, must
// wait: poll found no report that lets a batch go, and nothing read since
// sendTurn did either. What tick or poll pumped in meanwhile (the
// consumer's first report, a report read while waiting to write an idle
// line) may have unparked a store, and a wait would then sleep on reports
// already read, for a consumer waiting for that store's next batch.
func (f *feeder) mustWait(now time.Time) bool {
	return !f.poll(now) && !f.sendable()
}

// sendable reports whether a store has a prepared chunk that its
// consumer's reports let go now (never after an interrupt: sendTurn then
// starts no batch, and the loop waits for the consumer to finish).
func (f *feeder) sendable() bool {
	if f.stop.interrupted() {
		return false
	}
	for _, s := range f.streams {
		if s.ready && !f.led.full(s.i, s.size()) {
			return true
		}
	}
	return false
}

// check returns why the run must stop now, if it must.
func (f *feeder) check() error {
	if f.stop.interrupted() {
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
	if err := f.cp.failed(); err != nil {
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

// errExited is a consumer gone before its input ended while something else
// (a grandchild) keeps its stdout open.
var errExited = errors.New("feed: the consumer exited before its input ended")

// prepare reads the next chunk of every store that has none, so that it goes
// out the moment the store is taken; in a one-shot run a store with nothing
// more gets its end line.
//
// A turn that read nothing and found a store with nothing new is an idle
// turn for f.procs, one that read a chunk is work: per turn, not per
// store, so that quiet stores of a glob do not outvote one that streams.
func (f *feeder) prepare() error {
	read, dry, err := f.prepareStores()
	if read > 0 {
		f.procs.Work(read)
	} else if dry {
		f.procs.Idle()
	}
	return err
}

// prepareStores is prepare's turn over the stores: the bytes of the
// chunks it read, and whether a store had nothing new.
func (f *feeder) prepareStores() (read int, dry bool, err error) {
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
			return read, dry, fmt.Errorf("feed: store %s: %w", s.ID, err)
		}
		f.noteRotations(s)
		switch {
		case ok:
			s.next, s.ready = c, true
			f.pending += int64(c.Entries)
			read += int(c.End - c.Offset)
		case f.opt.Follow:
			s.dry, s.dryAt = true, time.Now()
			dry = true
		default:
			s.ended = true
			if n, _ := s.r.Behind(); n > 0 {
				f.note("feed: store %s: its last %d bytes were not sent: they were not a whole line (no final newline) when it was read; a later run sends them once they are", s.ID, n)
			}
			if err := f.write(protocol.AppendEnd(f.hdr[:0], s.ID)); err != nil {
				return read, dry, err
			}
		}
	}
	return read, dry, nil
}

// noteRotations says once per rotation where the store's new generation
// starts, and for a truncation in place what it cost (warnTruncated).
func (f *feeder) noteRotations(s *stream) {
	gens := s.r.Gens()
	for k := s.gens; k < len(gens); k++ {
		g := gens[k]
		switch g.Cause {
		case "older", "open", "created":
			continue // the generations named, read in turn; a file waited for
		case "waiting":
			f.note("feed: store %s: its older generations are read; %s does not exist yet; waiting for it (it is read from its start when it appears)", s.ID, s.Path)
			continue
		}
		f.note("feed: store %s was rotated (%s): %s is read from its start as position %d on", s.ID, g.Cause, s.Path, g.Base)
		if g.Skipped != "" {
			f.warn("feed: store %s: %s was written after the file feed was reading and renamed away before feed reached it: if it is a generation of the store (rotated twice while feed was behind), its entries are not read; run feed with less lag, or %s", s.ID, g.Skipped, f.rederive())
		}
		if g.Cause == "truncated" && k > 0 {
			f.warnTruncated(s, gens[k-1], g.Base)
		}
	}
	s.gens = len(gens)
	f.noteDrain(s)
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
	if n == 0 {
		return false, nil // a glob that matches nothing yet
	}
	for k := 0; k < n && !f.stop.interrupted(); k++ { // interrupted: nothing new
		s := f.streams[(f.turn+k)%n]
		if !s.ready || f.led.full(s.i, s.size()) {
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
	case f.stop.interrupted():
		return errInterrupted
	case f.led.err != nil:
		return f.led.err
	case errors.Is(err, syscall.EPIPE):
		return errors.New("feed: the consumer stopped reading its input (broken pipe)")
	}
	return fmt.Errorf("feed: writing to the consumer: %w", err)
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
		switch {
		case s.draining():
			state = "draining its renamed file"
		case f.led.parked(s.i):
			state = "parked"
		}
		behind, _ := s.r.Behind() // a failed stat shows 0; the next read reports it
		total += behind
		fmt.Fprintf(&b, " | %s %s behind, %s", s.ID, bytesText(behind), state)
	}
	return b.String(), total
}
