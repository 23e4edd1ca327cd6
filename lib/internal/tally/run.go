package tally

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"github.com/timbertally/timbertally/lib/internal/tallystore"

	"github.com/timbertally/timbertally/lib/internal/bucket"
	"github.com/timbertally/timbertally/lib/internal/extract"
	"github.com/timbertally/timbertally/lib/internal/tape"
	"github.com/timbertally/timbertally/lib/protocol"
)

// consumer is tally --run: it reads feed's protocol on in, appends to the
// store's tape, and reports progress on out.
type consumer struct {
	dir    string
	cutTo  int64    // the size check found the tape is cut to before the run (orphan)
	warns  []string // said once the run is accepted
	in     *input
	tape   *tape.Writer
	roller *bucket.Roller
	rep    *reporter
	sync   *syncer
	ids    map[string]int
	safe   []int64
	note   func(string, ...any)
	binds  *bindings // what the tape was counted from; a store joining mid-run is checked against it too
	cursor string    // feed's cursor (its hello's cursor=), "" when it named none
	last   []byte    // the line being handled, for messages
	seen   int64     // the input position ahead looked up to
}

// run is tally --run DIR.
func run(dir string, in io.Reader, out io.Writer, note func(string, ...any)) error {
	d, err := tallystore.LoadDocument(dir)
	if err != nil {
		return err
	}
	l, err := tallystore.Lock(dir, "tally")
	if err != nil {
		return err
	}
	defer l.Close()
	c := &consumer{dir: dir, in: newInput(in), rep: newReporter(out), ids: map[string]int{}, note: note}
	stores, decl, first, err := c.readStores()
	if err != nil {
		return err
	}
	// Everything is checked before anything is written: a refused run
	// changes no file (not even the repair of a torn tail).
	for _, s := range decl {
		if err := extract.CheckFile(d, s.id, s.path()); err != nil {
			return err
		}
	}
	tp := tallystore.At(dir).Tape()
	known, b, torn, err := c.check(d.Text, d.Width, tp, stores, decl)
	if err != nil {
		return err
	}
	tw, _, err := tape.OpenWriter(tp)
	if err != nil {
		return err
	}
	defer tw.Close()
	c.tape = tw
	if c.cutTo < tw.Size() {
		note("cut %d bytes from the tape's end: a bucket's group left without its seal (deleted) and the end records after it; every store the tape counted is replayed from 0, so that bucket is sealed again, whole", tw.Size()-c.cutTo)
		if err := tw.CutTo(c.cutTo); err != nil {
			return err
		}
	}
	for _, w := range c.warns {
		note("%s", w)
	}
	if len(torn) > 0 {
		note("cut %d bytes of a torn last record group from the tape (a crash, a full disk, or an edit in the middle of an append); every store resumes at or before what the rest of the tape holds, so their entries are replayed", len(torn))
	}
	if err := b.Save(dir, tw.File(), false); err != nil {
		return err
	}
	c.binds = b
	if err := c.rep.greet(0); err != nil {
		return err
	}
	if c.roller, err = newRoller(d, known); err != nil {
		return err
	}
	for i, p := range stores {
		if err := c.roller.File(c.roller.AddStore(p.ID, p.Pos), decl[i].path()); err != nil {
			return err
		}
	}
	c.safe = make([]int64, len(stores))
	c.sync = newSyncer(tw, c.rep)
	err = c.loop(first)
	if serr := c.sync.stop(); err == nil {
		err = serr
	}
	if err != nil {
		return err
	}
	// Whatever the syncer had not reached yet: one last fsync, one last report.
	if err := tw.Sync(); err != nil {
		return err
	}
	if err := c.rep.durable(c.safe); err != nil {
		return err
	}
	return b.Save(dir, tw.File(), true)
}

// readStores reads "feed v=1" and the store lines, and returns the stores
// with their resume positions, in order, what the store lines declare, and
// the first line after them.
func (c *consumer) readStores() ([]tape.Pos, []declared, []byte, error) {
	line, err := c.line()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("no input: run tally --run under feed (feed STORE... -- tally --run %s)", c.dir)
	}
	h, err := protocol.ParseHeader(line)
	if err != nil || h.Kind != protocol.KindHello {
		return nil, nil, nil, fmt.Errorf("input starts with %q, not \"feed v=1\": run tally --run under feed", line)
	}
	if h.V != protocol.Version {
		return nil, nil, nil, fmt.Errorf("input starts with %q: feed speaks protocol v=%q, this tally v=%s: use a feed and tally of the same release", line, h.V, protocol.Version)
	}
	if h.Window > 0 {
		c.window(h.Window)
	}
	c.cursor = h.Cursor
	var stores []tape.Pos
	var decl []declared
	for {
		line, err := c.line()
		if err == io.EOF {
			return stores, decl, nil, nil
		}
		if err != nil {
			return nil, nil, nil, err
		}
		h, err := protocol.ParseHeader(line)
		if err != nil {
			return nil, nil, nil, err
		}
		if h.Kind == protocol.KindUnknown {
			continue // versions are additive: a line this tally does not know is not for it
		}
		if h.Kind != protocol.KindStore {
			return stores, decl, bytes.Clone(line), nil
		}
		if _, dup := c.ids[h.ID]; dup {
			return nil, nil, nil, fmt.Errorf("store %s is declared twice", h.ID)
		}
		c.ids[h.ID] = len(stores)
		c.rep.add(h.ID, h.Offset)
		stores = append(stores, tape.Pos{ID: h.ID, Pos: h.Offset})
		decl = append(decl, declared{id: h.ID, pos: h.Offset, gen: h.Gen, from: h.From, spec: h.Spec})
	}
}

// unreadable explains why the tail of the tape of dir could not be read
// (for what, when said). A line that is no record (a *tape.ByteError; a
// later kind's line is none: ScanBack passes it over) is named with the
// fix: the tape cannot be counted on, so it is made again from its logs.
func unreadable(r tallystore.Remake, what string, err error) error {
	var damaged *tape.ByteError
	if !errors.As(err, &damaged) {
		return fmt.Errorf("cannot read the tape of %s%s: %w", r.Dir, what, err)
	}
	return &tallystore.RemakeError{What: fmt.Sprintf("cannot read the tape of %s%s: %v; it is not a record, so the tape was damaged or not written by tally (tgcheck --scan %s names it): re-make it from its logs, ", r.Dir, what, err, r.Dir), Fix: r, Err: err}
}

// remake is the tally store's re-derivation as this run names it: the
// cursor and stores feed said (store lines decl), else what the bindings
// recorded of an earlier run.
func (c *consumer) remake(decl []declared) tallystore.Remake {
	r := tallystore.RemakeOf(c.dir)
	r.Cursor = c.cursor
	var specs []string
	for _, s := range decl {
		if s.spec == "" {
			return r
		}
		specs = append(specs, s.spec)
	}
	if len(specs) > 0 {
		r.Stores = specs
	}
	return r
}

// checkWidth refuses a document whose window is not the width of the
// tape's last seal (sealed; 0: none yet). It holds without DIR/bindings
// (removed, or an older release's): every seal records its width.
func checkWidth(r tallystore.Remake, width, sealed time.Duration) error {
	if sealed == 0 || sealed == width {
		return nil
	}
	return &tallystore.RemakeError{What: fmt.Sprintf("%s has window %s, but the tape of %s holds buckets %s wide: the document was edited since the tape was begun, and counting on with it would put buckets of two widths on one tape. Nothing was written. Put the document's window back to %s, or, to count with the edited one, re-derive: ",
		tallystore.At(r.Dir).Document(), width, r.Dir, sealed, sealed), Fix: r}
}

// check reads what the tape at tp already accounts for (the tail a replay
// from the resume positions can meet, and the bindings) and refuses a run
// whose document, store content or resume positions do not fit it; it
// writes nothing. torn is what opening the tape for writing will cut.
func (c *consumer) check(doc []byte, width time.Duration, tp string, stores []tape.Pos, decl []declared) (*bucket.Known, *bindings, []byte, error) {
	remake := c.remake(decl) // once: it reads the bindings' cursor and stores
	torn, size, err := tape.Torn(tp)
	if err != nil {
		return nil, nil, nil, unreadable(remake, "", err)
	}
	f, err := os.Open(tp)
	if errors.Is(err, os.ErrNotExist) {
		f, err = os.Open(os.DevNull) // no tape yet: OpenWriter makes it, empty
	}
	if err != nil {
		return nil, nil, nil, err
	}
	defer f.Close()
	resume := make(map[string]int64, len(stores))
	for _, p := range stores {
		resume[p.ID] = p.Pos
	}
	b, err := loadBindings(c.dir)
	if err != nil {
		return nil, nil, nil, err
	}
	b.named(remake, decl)
	if err := b.checkSize(c.dir, size, len(torn), decl); err != nil {
		return nil, nil, nil, err
	}
	if c.cutTo, err = b.orphan(f, size, decl); err != nil {
		return nil, nil, nil, unreadable(remake, "", err)
	}
	size = min(size, c.cutTo)
	known := bucket.NewKnown(resume)
	var sealed time.Duration // the width of the tape's last seal
	enough := false
	err = tape.ScanBack(f, size, func(r *tape.Record, _ int64) bool {
		if !enough {
			known.Add(r)
			enough = known.Enough()
		}
		if r.Kind == tape.Seal && sealed == 0 {
			sealed = r.Width
		}
		return !enough || sealed == 0
	})
	if err != nil {
		return nil, nil, nil, unreadable(remake, "", err)
	}
	if err := b.checkDoc(c.dir, doc, size); err != nil {
		return nil, nil, nil, err
	}
	if err := checkWidth(remake, width, sealed); err != nil {
		return nil, nil, nil, err
	}
	for _, s := range decl {
		if other := b.twin(s); other != "" {
			c.warns = append(c.warns, twinNote(c.dir, s.id, other, sealed != 0))
		}
		if err := b.checkStore(c.dir, s, known.Frontier(s.id), len(torn)); err != nil {
			return nil, nil, nil, err
		}
	}
	return known, b, torn, nil
}

// line reads one header line without its '\n'. The slice is valid until
// the next read.
func (c *consumer) line() ([]byte, error) {
	line, err := c.in.line()
	if err == errLineTooLong {
		return nil, fmt.Errorf("a protocol line is longer than %d bytes: %.80q…", c.in.size(), line)
	}
	if err == io.EOF && len(line) > 0 {
		return nil, fmt.Errorf("input ends inside a line: %q; if feed was stopped, run it again to resume from its cursor", line)
	}
	if err != nil {
		return nil, err
	}
	return line[:len(line)-1], nil
}

// loop handles every line after the store lines, starting with line. One
// goroutine reads and buckets: a batch is reported taken when it is read,
// so feed's next batch is already in the pipe when this one is bucketed;
// a second goroutine reading ahead only moved the entries across cores and
// added a thread wake-up per batch, which cost tally CPU (figures: bench/README.md, "The figures behind the code's comments").
func (c *consumer) loop(line []byte) error {
	for line != nil {
		m, err := c.header(line)
		if err == nil {
			err = c.handle(&m)
		}
		if err != nil {
			return err
		}
		line, err = c.line()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
	}
	return c.finish()
}

func (c *consumer) handle(m *message) error {
	h := m.h
	switch h.Kind {
	case protocol.KindUnknown:
		return nil // versions are additive: a line this tally does not know is not for it
	case protocol.KindHello:
		return fmt.Errorf("%q: the feed line comes once, first", m.line)
	case protocol.KindStore:
		return c.join(declared{id: h.ID, pos: h.Offset, gen: h.Gen, from: h.From, spec: h.Spec})
	}
	st, ok := c.ids[h.ID]
	if !ok {
		return fmt.Errorf("%q names a store that was not declared by a store line", m.line)
	}
	switch h.Kind {
	case protocol.KindBatch:
		if err := c.contiguous(st, h.Offset, m.line); err != nil {
			return err
		}
		if err := c.batch(st, m); err != nil {
			return err
		}
	case protocol.KindSkip:
		if err := c.contiguous(st, h.Offset, m.line); err != nil {
			return err
		}
		c.roller.Skip(st, h.Offset, h.End, h.Reason)
	case protocol.KindIdle:
		c.roller.Idle(st, quiet(h.QuietMS))
	case protocol.KindEnd:
		if c.roller.Ended(st) {
			return fmt.Errorf("%q: store %s has ended already", m.line, h.ID)
		}
		c.roller.End(st)
	}
	return c.flush()
}

// join declares a store that joins mid-run (feed --follow found a new file
// of a --glob): its entries count from its first. What the tape already
// accounts for of it is read again from the tape's tail, as at start, so
// that an id the tape knows is not counted twice (a backward scan that,
// for an id new to the tape, reads the whole tape). It holds no one back
// until it delivers an entry, and the combined event time never goes
// back for it: its entries older than that are !late, by design.
//
// Its store line is held to the tape's bindings as the first ones are: a
// refused join stops the run, with the fix.
func (c *consumer) join(s declared) error {
	id, pos := s.id, s.pos
	if _, dup := c.ids[id]; dup {
		return fmt.Errorf("store %s is declared twice", id)
	}
	k := bucket.NewKnown(map[string]int64{id: pos})
	err := tape.ScanBack(c.tape.File(), c.tape.Size(), func(r *tape.Record, _ int64) bool {
		k.Add(r)
		return !k.Enough()
	})
	if err != nil {
		return unreadable(c.binds.remake, " for store "+id+", which joins", err)
	}
	c.binds.Named(id, s.spec)
	if err := c.binds.checkStore(c.dir, s, k.Frontier(id), 0); err != nil {
		return err
	}
	if specs, ok := c.binds.Specs(); ok {
		c.binds.remake.Stores = specs // a glob's store, born mid-run
	}
	st := c.roller.Join(id, pos, k)
	if err := c.roller.File(st, s.path()); err != nil {
		return err
	}
	c.ids[id] = st
	c.rep.add(id, pos)
	c.safe = append(c.safe, pos)
	return c.rep.greet(c.ids[id])
}

// contiguous checks that a batch or skip at offset continues store st where
// its last one ended (the roller's processed position), so every entry's
// position is known.
func (c *consumer) contiguous(st int, offset int64, line []byte) error {
	if c.roller.Ended(st) {
		return fmt.Errorf("%q comes after end id=%s", line, c.rep.ids[st])
	}
	if next := c.roller.Processed(st); offset != next {
		return fmt.Errorf("%q starts at %d, but store %s continues at %d: batches of a store must be contiguous", line, offset, c.rep.ids[st], next)
	}
	return nil
}

// flush appends what the roller produced and has the safe offsets
// reported: at once when the tape they rely on is already durable, else
// by the syncer after its next fsync.
func (c *consumer) flush() error {
	for _, n := range c.roller.FormatNotes() {
		c.note("%s", n)
	}
	out := c.roller.Take()
	if err := c.tape.Write(out); err != nil {
		return fmt.Errorf("%w; fix the disk, then run the same command again: nothing past the last durable record was reported", err)
	}
	for st := range c.safe {
		c.safe[st] = c.roller.Safe(st)
	}
	if c.sync.synced() == c.tape.Size() {
		return c.rep.durable(c.safe)
	}
	return c.sync.submit(c.tape.Size(), c.safe)
}

// finish ends the input: complete (every store ended) seals everything and
// appends the end record; interrupted seals nothing.
func (c *consumer) finish() error {
	complete := true
	for st := range c.safe {
		complete = complete && c.roller.Ended(st)
	}
	if complete {
		c.roller.Complete()
	}
	return c.flush()
}

// quiet is an idle line's quiet= as a duration, saturated: a quiet of more
// than ~292 years of milliseconds would wrap to a negative duration.
func quiet(ms int64) time.Duration {
	if ms > math.MaxInt64/int64(time.Millisecond) {
		return math.MaxInt64
	}
	return time.Duration(ms) * time.Millisecond
}
