package bucket

import (
	"bytes"
	"math"
	"sort"
	"time"

	"github.com/timbertally/timbertally/lib/internal/doc"
	"github.com/timbertally/timbertally/lib/internal/extract"
	"github.com/timbertally/timbertally/lib/internal/tape"
)

// Bucket is one open window [Start, Start+width).
type Bucket struct {
	Start   int64
	entries int64              // entries placed, capped ones included
	first   []int64            // per store: position of its first entry here, -1 if none
	series  []seriesSet        // per group
	count   []int              // per metric: series so far (bounded by cap)
	caps    []capRun           // closed !cap runs
	capOpen map[capKey]*capRun // open !cap runs
}

type capKey struct{ metric, store int }

// capRun is a run of consecutive entries of one store over the cap of one
// metric in one bucket.
type capRun struct {
	capKey
	offset, end, count int64
}

// capped records that an entry was over the cap for metric mi, extending
// the store's run when the entry follows it directly.
func (b *Bucket) capped(mi, st int, pos, end int64) {
	k := capKey{mi, st}
	if c := b.capOpen[k]; c != nil {
		if c.end == pos {
			c.end, c.count = end, c.count+1
			return
		}
		b.caps = append(b.caps, *c)
	}
	if b.capOpen == nil {
		b.capOpen = map[capKey]*capRun{}
	}
	b.capOpen[k] = &capRun{k, pos, end, 1}
}

// capMarkers returns the bucket's !cap markers in metric, store, position
// order.
func (b *Bucket) capMarkers() []capRun {
	caps := b.caps
	for _, c := range b.capOpen {
		caps = append(caps, *c)
	}
	sort.Slice(caps, func(i, j int) bool {
		a, c := caps[i], caps[j]
		if a.metric != c.metric {
			return a.metric < c.metric
		}
		if a.store != c.store {
			return a.store < c.store
		}
		return a.offset < c.offset
	})
	return caps
}

// storeState is the Roller's view of one store (named so as not to
// shadow package store).
type storeState struct {
	id        string
	processed int64 // the end of the last entry or skip processed
	newest    int64 // newest entry time delivered (valid when seen)
	seen      bool
	idle      bool
	idleAt    int64 // newest + quiet, when idle
	ended     bool
	run       *tape.Record   // open !late or !drop run
	frontier  int64          // how far the tape already accounts for this store
	spans     []span         // marker ranges already on the tape
	watch     formatWatch    // entries dropped in this run, for FormatNotes
	keys      keyWatch       // the key paths the first entries had, for FormatNotes
	layouts   []int64        // the store's layout headers (w3c's #Fields) a restart may need to replay from
	joiner    extract.Joiner // under an envelope: the store's split line being joined
}

// considered is where the store's entries considered so far end: its
// processed position, or the first part of a split line still open
// (none of whose parts is an entry yet).
func (s *storeState) considered() int64 {
	if at, open := s.joiner.Open(); open {
		return at
	}
	return s.processed
}

// Roller buckets entries and produces tape bytes. See the package doc for
// its invariants. It is not safe for concurrent use.
type Roller struct {
	agg     *aggregator
	x       *extract.Extractor
	unwrap  *extract.Unwrapper // the document's envelope; nil: none
	width   int64
	grace   int64
	stores  []*storeState
	open    map[int64]*Bucket
	starts  []int64   // open bucket starts, ascending
	cur     *Bucket   // the bucket the last entry went to
	free    []*Bucket // sealed buckets, for newBucket to reuse
	et      int64     // combined event time
	etSet   bool
	known   *Known
	catchUp bool // replaying what the tape already covers: seal nothing yet
	wrote   bool // anything written in this run
	out     []byte
	start   []byte // the sealed bucket's start, formatted; reused
	entry   extract.Entry
	future  int64            // the document's bound ahead of the wall clock; 0: none
	now     func() time.Time // the wall clock
	limit   int64            // newest time an entry may have: now + future, taken once per Lines
	format  string           // the document's format, for FormatNotes
	keyed   []extract.Keyed  // the fields read by key paths, for FormatNotes
}

// SetClock replaces the wall clock the future bound is taken from (tests).
func (r *Roller) SetClock(now func() time.Time) { r.now, r.limit = now, 0 }

// New returns a Roller for document d that knows what the tape already
// accounts for (k may be nil for an empty tape).
func New(d *doc.Doc, k *Known) (*Roller, error) {
	x, err := extract.New(d)
	if err != nil {
		return nil, err
	}
	agg, err := newAggregator(d, x)
	if err != nil {
		return nil, err
	}
	if k == nil {
		k = NewKnown(nil)
	}
	r := &Roller{agg: agg, x: x, width: int64(d.Width), grace: int64(d.Grace), open: map[int64]*Bucket{}, known: k,
		future: int64(d.Future), now: time.Now, format: d.FormatText(), keyed: x.Keyed()}
	if d.Envelope != doc.NoEnvelope {
		r.unwrap = extract.UnwrapperFor(d)
	}
	// Every bucket up to the last seal on the tape is closed, and so is one
	// a !late marker names, sealed or not (an idle store's quiet time may
	// have passed its end while it was empty): resuming the event time
	// there keeps seals in start order across runs, and an entry for such
	// a bucket late. The markers of buckets after the last seal follow it
	// on the tape, so the tail start-up reads holds them.
	if k.hasSeal {
		r.et, r.etSet = k.lastSeal+r.width+r.grace, true
	}
	if closed := k.lastLate + r.width + r.grace; k.hasLate && (!r.etSet || closed > r.et) {
		r.et, r.etSet = closed, true
	}
	return r, nil
}

// AddStore declares a store resuming at pos and returns its index. The
// stores are declared before the first entry; a store that joins later is
// Join's.
func (r *Roller) AddStore(id string, pos int64) int {
	s := &storeState{id: id, processed: pos}
	s.frontier, s.spans = r.known.forStore(id)
	if pos < s.frontier {
		r.catchUp = true
	}
	r.stores = append(r.stores, s)
	r.x.Origin(len(r.stores)-1, id, "") // File says its path; until then only a kubelet path's fields are unknown
	return len(r.stores) - 1
}

// File says the path of store st's file, for the origin fields that come
// from it (the kubelet's namespace, pod, container): a document that reads
// them refuses a store whose path is not in a kubelet layout, or unknown
// (""), with an *extract.PathError, before any entry of it is counted.
func (r *Roller) File(st int, path string) error {
	return r.x.Origin(st, r.stores[st].id, path)
}

// Join declares a store that joins mid-run, resuming at pos, and returns
// its index; k is what the tape accounts for of it, from a scan made for
// it alone. Its entries count from its first; it holds no one's event time
// back until it delivers one, and the combined event time never goes back
// for it, so its entries for buckets sealed already are !late. Resuming
// below what the tape holds of it, sealing waits until it has caught up,
// as at start.
func (r *Roller) Join(id string, pos int64, k *Known) int {
	r.known.merge(id, k)
	for _, b := range r.open {
		b.first = append(b.first, -1) // buckets hold a first entry per store
	}
	for _, b := range r.free {
		b.first = append(b.first, -1)
	}
	return r.AddStore(id, pos)
}

// Processed returns the end of the last entry or skip of store st
// processed (its resume position before any): where its next one starts.
func (r *Roller) Processed(st int) int64 { return r.stores[st].processed }

// Ended reports whether store st has ended in this run.
func (r *Roller) Ended(st int) bool { return r.stores[st].ended }

// Take returns the tape bytes produced since the last call; the caller
// writes them before calling the Roller again.
func (r *Roller) Take() []byte {
	out := r.out
	r.out = r.out[:0]
	return out
}

// Safe returns the first position of store st that a restart must replay.
func (r *Roller) Safe(st int) int64 {
	s := r.stores[st]
	safe := s.considered()
	if s.run != nil {
		safe = min(safe, s.run.Offset)
	}
	for _, b := range r.open {
		if f := b.first[st]; f >= 0 {
			safe = min(safe, f)
		}
	}
	// A replay from safe must see the layout header in force there (w3c's
	// #Fields): it starts at that header instead. (A store has few, IIS
	// writing one a file and a restart; all are kept.)
	i := len(s.layouts) - 1
	for i >= 0 && s.layouts[i] > safe {
		i--
	}
	if i >= 0 {
		safe = s.layouts[i]
	}
	return safe
}

// Lines processes each whole line of b as an entry of store st, the first
// at pos, and returns how many and the bytes after the last '\n' (a line
// not yet whole, left to the caller).
func (r *Roller) Lines(st int, pos int64, b []byte) (n int, rest []byte) {
	r.limit = 0 // the wall clock is read once for these lines
	for {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return n, b
		}
		r.Entry(st, pos, b[:i])
		pos += int64(i) + 1
		b = b[i+1:]
		n++
	}
}

// Entry processes one line of store st at pos (without its '\n'): an
// entry, or under an envelope a runtime's line around one or a part of
// one (enveloped).
func (r *Roller) Entry(st int, pos int64, line []byte) {
	if r.unwrap != nil {
		r.enveloped(st, pos, line)
		return
	}
	r.extracted(st, pos, pos+int64(len(line))+1, line)
}

// enveloped unwraps a runtime's line of store st at pos: a part of a
// split line is held (the store's durable offset stays at its line's
// first part) until its last part makes the line one entry, at its first
// part's offset to its last part's end.
func (r *Roller) enveloped(st int, pos int64, line []byte) {
	s := r.stores[st]
	end := pos + int64(len(line)) + 1
	j := s.joiner.Line(r.unwrap, pos, line)
	if j.Cut {
		r.drop(s, j.CutAt, j.CutEnd, extract.ReasonSplit)
	}
	switch {
	case j.Held:
		s.idle = false
		s.processed = end
		r.checkCatchUp(s)
	case j.Reason != "":
		r.drop(s, j.At, end, j.Reason)
	default:
		r.x.Envelope(j.Part.Stream, j.Part.Time)
		r.extracted(st, j.At, end, j.Part.Log)
	}
}

// drop accounts the entry [pos, end) of store s, which is no runtime's
// line or a split line broken, as a !drop, unless the tape has it.
func (r *Roller) drop(s *storeState, pos, end int64, reason string) {
	s.idle = false
	if pos < s.frontier && s.covered(pos) {
		r.closeRun(s)
	} else {
		r.mark(s, tape.Drop, 0, pos, end, reason)
	}
	s.processed = end
	r.checkCatchUp(s)
}

// extracted processes one entry of store st, [pos, end) (line without its
// '\n': the entry's bytes).
func (r *Roller) extracted(st int, pos, end int64, line []byte) {
	s := r.stores[st]
	s.idle = false
	if pos < s.frontier && s.covered(pos) {
		r.closeRun(s)
		s.processed = end
		return
	}
	r.x.Store(st)
	reason := r.x.Extract(line, &r.entry)
	if reason == extract.ReasonHeader || reason == extract.ReasonLayout {
		// No entry: in no bucket and no marker (tgcheck counts it so). A
		// layout header (w3c's #Fields) is where a restart must replay
		// from, for the columns it sets to be known again.
		if reason == extract.ReasonLayout {
			s.layouts = append(s.layouts, pos)
		}
		s.processed = end
		r.checkCatchUp(s)
		return
	}
	if s.watch.entry(line, reason) {
		s.watch.why = r.x.Why(reason) // the format's own word on the sample, while its state is the line's
	}
	if reason != "" {
		r.mark(s, tape.Drop, 0, pos, end, reason)
		s.processed = end
		r.checkCatchUp(s)
		return
	}
	s.keys.entry(r.keyed, &r.entry, line)
	t := r.entry.Time
	if r.future > 0 && t > r.bound() {
		r.mark(s, tape.Drop, 0, pos, end, doc.ReasonFuture)
		s.processed = end
		r.checkCatchUp(s)
		return
	}
	start := t - mod(t, r.width)
	r.place(s, st, start, pos, end)
	s.processed = end
	if !s.seen || t > s.newest {
		s.newest, s.seen = t, true
		r.advance()
	}
	r.checkCatchUp(s)
}

// bound is the newest time an entry may have, read from the wall clock
// once per Lines (a clock read per entry would cost more than the entry).
func (r *Roller) bound() int64 {
	if r.limit == 0 {
		r.limit = r.now().UnixNano()
		r.limit += min(r.future, math.MaxInt64-max(r.limit, 0)) // saturated: a bound of centuries is none
	}
	return r.limit
}

// place routes an extracted entry: already on the tape, late, or into its
// bucket.
func (r *Roller) place(s *storeState, st int, start, pos, end int64) {
	if start <= r.known.lastSeal && r.known.hasSeal {
		if at, sealed := r.known.at(start, s.id); sealed {
			if pos < at {
				r.closeRun(s) // counted in that bucket by an earlier run
			} else {
				r.mark(s, tape.Late, start, pos, end, "")
			}
			return
		}
	}
	b := r.cur
	if b == nil || b.Start != start {
		b = r.open[start]
	}
	if b == nil {
		if r.etSet && start+r.width+r.grace <= r.et {
			r.mark(s, tape.Late, start, pos, end, "")
			return
		}
		b = r.newBucket(start)
	}
	r.cur = b
	r.closeRun(s)
	r.agg.add(b, &r.entry, st, pos, end)
}

func (r *Roller) newBucket(start int64) *Bucket {
	b := r.recycled()
	b.Start = start
	r.open[start] = b
	i := sort.Search(len(r.starts), func(i int) bool { return r.starts[i] > start })
	r.starts = append(r.starts, 0)
	copy(r.starts[i+1:], r.starts[i:])
	r.starts[i] = start
	return b
}

// mark accounts an entry to the store's open !late or !drop run, extending
// it when the entry directly follows it with the same kind, bucket and
// reason, else closing it and opening another.
func (r *Roller) mark(s *storeState, kind tape.Kind, start, pos, end int64, reason string) {
	if o := s.run; o != nil && o.Kind == kind && o.End == pos && o.Start == start && o.Reason == reason {
		o.End, o.Count = end, o.Count+1
		return
	}
	r.closeRun(s)
	s.run = &tape.Record{Kind: kind, Start: start, ID: s.id, Offset: pos, End: end, Count: 1, Reason: reason}
}

func (r *Roller) closeRun(s *storeState) {
	if s.run == nil {
		return
	}
	r.emit(s.run)
	s.run = nil
}

func (r *Roller) emit(rec *tape.Record) {
	r.out = tape.Append(r.out, rec)
	r.wrote = true
}

// Skip accounts bytes delivered as no entry (a line over feed's
// --max-line) as one dropped entry with the skip's reason.
func (r *Roller) Skip(st int, pos, end int64, reason string) {
	s := r.stores[st]
	if at, open := s.joiner.Close(); open {
		r.drop(s, at, pos, extract.ReasonSplit) // the skipped line cut the split line
	}
	s.idle = false
	if !(pos < s.frontier && s.covered(pos)) {
		r.mark(s, tape.Drop, 0, pos, end, reason)
	} else {
		r.closeRun(s)
	}
	s.processed = end
	r.checkCatchUp(s)
}

// Idle says store st is at its live edge and has delivered nothing for
// quiet: its event time rises to its newest entry time + quiet. A store
// that has delivered no entry in this run (an empty file, or one already
// read to its end before a restart) has no time to offer and stops holding
// the others back. A run of !late or !drop entries the store ended on is
// written now: nothing more comes to extend it for a while, and until it
// is written it holds the store's durable offset back.
func (r *Roller) Idle(st int, quiet time.Duration) {
	s := r.stores[st]
	r.closeRun(s)
	at := s.newest + int64(quiet)
	if quiet > 0 && at < s.newest {
		at = math.MaxInt64 // quiet longer than int64 time reaches: as late as there is
	}
	s.idle, s.idleAt = true, at
	r.advance()
}

// End says store st delivers nothing more in this run.
func (r *Roller) End(st int) {
	s := r.stores[st]
	s.ended = true
	r.closeRun(s)
	r.advance()
}

// Complete seals every open bucket and appends the end record: the input
// was complete (every store ended). An interrupted input must not call it.
func (r *Roller) Complete() {
	for _, s := range r.stores {
		r.closeRun(s)
	}
	r.catchUp = false
	for len(r.starts) > 0 {
		r.seal(r.open[r.starts[0]])
	}
	at := r.positions()
	if !r.wrote && r.known.sameEnd(at) {
		return // a replay that added nothing: the tape already says so
	}
	r.emit(&tape.Record{Kind: tape.End, At: at})
}

func (r *Roller) positions() []tape.Pos {
	at := make([]tape.Pos, len(r.stores))
	for i, s := range r.stores {
		at[i] = tape.Pos{ID: s.id, Pos: s.considered()}
	}
	return at
}

// advance raises the combined event time and seals what it makes due.
func (r *Roller) advance() {
	c, ok := r.combined()
	if !ok || (r.etSet && c <= r.et) {
		return
	}
	r.et, r.etSet = c, true
	r.sealDue()
}

// combined is the event time the stores agree on (docs/design.md §5): the minimum
// over live stores, else the minimum over idle ones, else the maximum over
// ended ones.
func (r *Roller) combined() (int64, bool) {
	var live, idle, ended extreme
	for _, s := range r.stores {
		switch {
		case s.ended:
			if s.seen {
				ended.max(s.newest)
			}
		case s.idle:
			if s.seen { // an idle store with no entry in this run has no time to offer, and holds nothing back
				idle.min(s.idleAt)
			}
		case !s.seen:
			return 0, false // a live store with no time yet holds everyone back
		default:
			live.min(s.newest)
		}
	}
	for _, e := range []extreme{live, idle, ended} {
		if e.set {
			return e.v, true
		}
	}
	return 0, false
}

// extreme is a running minimum or maximum.
type extreme struct {
	v   int64
	set bool
}

func (e *extreme) min(v int64) {
	if !e.set || v < e.v {
		e.v, e.set = v, true
	}
}

func (e *extreme) max(v int64) {
	if !e.set || v > e.v {
		e.v, e.set = v, true
	}
}

func (r *Roller) sealDue() {
	if r.catchUp {
		return
	}
	for len(r.starts) > 0 && r.starts[0]+r.width+r.grace <= r.et {
		r.seal(r.open[r.starts[0]])
	}
}

// checkCatchUp ends the catch-up phase once every store has been replayed
// past what the tape accounts for. Until then nothing is sealed, so that
// every record this run writes lies beyond every record already on the
// tape, store by store (the tail scan at the next start relies on it).
func (r *Roller) checkCatchUp(s *storeState) {
	if !r.catchUp || s.processed < s.frontier {
		return
	}
	for _, o := range r.stores {
		if o.processed < o.frontier {
			return
		}
	}
	r.catchUp = false
	r.sealDue()
}

// seal appends bucket b's group: its series, its !cap markers, its seal.
func (r *Roller) seal(b *Bucket) {
	r.start = tape.AppendTime(r.start[:0], b.Start)
	r.out = r.agg.appendSeries(r.out, b, r.start)
	for _, c := range b.capMarkers() {
		r.emit(&tape.Record{Kind: tape.Cap, Start: b.Start, Metric: r.agg.metrics[c.metric].Name,
			ID: r.stores[c.store].id, Offset: c.offset, End: c.end, Count: c.count})
	}
	r.emit(&tape.Record{Kind: tape.Seal, Start: b.Start, Width: time.Duration(r.width), Entries: b.entries, At: r.positions()})
	delete(r.open, b.Start)
	r.starts = r.starts[1:]
	if r.cur == b {
		r.cur = nil
	}
	r.free = append(r.free, b)
}

// recycled returns an empty bucket, reusing a sealed one's series sets when
// there is one: their maps and slices keep their capacity, so a steady
// stream of buckets of similar series stops allocating.
func (r *Roller) recycled() *Bucket {
	if n := len(r.free); n > 0 {
		b := r.free[n-1]
		r.free = r.free[:n-1]
		for i := range b.first {
			b.first[i] = -1
		}
		for i := range b.series {
			b.series[i].reset()
		}
		clear(b.count)
		b.entries, b.caps = 0, b.caps[:0]
		clear(b.capOpen)
		return b
	}
	b := &Bucket{first: make([]int64, len(r.stores)), series: make([]seriesSet, len(r.agg.groups)), count: make([]int, len(r.agg.metrics))}
	for i := range b.first {
		b.first[i] = -1
	}
	for i := range b.series {
		b.series[i].index = map[string]int32{}
	}
	return b
}

// mod is the floor modulo, so that times before 1970 bucket correctly.
func mod(t, w int64) int64 {
	m := t % w
	if m < 0 {
		m += w
	}
	return m
}
