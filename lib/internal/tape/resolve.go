package tape

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// Filter selects what Resolve keeps while it streams, so that memory is
// bounded by the (bucket, series) pairs selected, not by the tape's size.
type Filter struct {
	Metrics  []string  // nil: every metric; filters series and !cap markers
	From, To time.Time // bucket starts in [From, To); a zero time is unbounded
}

// Options tune Resolve.
type Options struct {
	Filter
	// TolerateTorn ends the tape at a torn last line instead of failing:
	// a tape followed while it is written may end mid-line.
	TolerateTorn bool
	// OnDuplicate, when set, receives each duplicate as it is found
	// instead of Resolved.Duplicates collecting it.
	OnDuplicate func(Dup)
	// OnLater, when set, receives the first line of each record kind a
	// later version added as it is found, instead of Resolved.Later
	// collecting it.
	OnLater func(LaterKind)
}

// LaterKind is the first line of a record kind a later version added
// (ParseOrLater): passed over, as every reader passes it over, and named
// so that a reader can say so.
type LaterKind struct {
	Word string // the kind word that starts its lines ("identity", "!mark"; LaterWord)
	Line int
	Last bool // the MaxLaterKinds-th kind: those after it are passed over unnamed
}

// MaxLaterKinds bounds the later kinds a reader names: a version adds a
// few, and a forged tape of a million distinct words would otherwise make
// a million notes and a map of them.
const MaxLaterKinds = 16

// LaterKinds names each later kind once, and only the first MaxLaterKinds
// of them: the one record of what every reader has noted so far (a
// Resolver, tgread --follow across its groups, tgpush).
type LaterKinds struct{ named map[string]bool }

// Name returns the kind to note for word, first met at line (or byte) at,
// and false when it was named before or MaxLaterKinds were.
func (l *LaterKinds) Name(word string, at int) (LaterKind, bool) {
	if l.named[word] || len(l.named) >= MaxLaterKinds {
		return LaterKind{}, false
	}
	if l.named == nil {
		l.named = map[string]bool{}
	}
	l.named[word] = true
	return LaterKind{word, at, len(l.named) == MaxLaterKinds}, true
}

// Beyond is what a reader's note on k adds: for the last kind named, that
// later ones go unnamed; "" for the others.
func (k LaterKind) Beyond() string {
	if !k.Last {
		return ""
	}
	return fmt.Sprintf("; it is the %dth such kind, and those after it are passed over unnamed", MaxLaterKinds)
}

// SeriesText is one distinct series of a tape, parsed once however many
// buckets it appears in.
type SeriesText struct {
	Text   string // as on the tape: metric{name="escaped",...}
	Metric string
	Labels []Label // in the tape's order, unescaped
	rank   int32   // its place among the tape's series in Text order (Result)
}

// Point is the resolved value of one (bucket, series) pair.
type Point struct {
	Start  int64 // bucket start, Unix nanoseconds
	Series *SeriesText
	Value  float64
	Line   int // the line that gave the value: the pair's last
}

// Dup is a second line for one (bucket, series) pair. The old defect wrote
// such fragments; a differing value is its signature, an equal one a
// harmless repeat that tgcheck --scan still reports.
type Dup struct {
	Start    int64
	Series   *SeriesText
	Old, New float64
	OldLine  int
	Line     int // the replacing line
}

// Differs reports whether the duplicate changed the pair's value.
func (d Dup) Differs() bool { return d.Old != d.New }

// Placed is a record and the tape line it was read from, for findings that
// name the line.
type Placed struct {
	Record
	Line int
}

// Totals counts the markers of one kind.
type Totals struct {
	Markers int64 // marker lines
	Entries int64 // the sum of their count=
}

// GroupCounts are the data-quality counts of one group of a tape, as
// tgpush sends them with it (docs/tgpush.md): a group is the records after
// one seal or end record up to and including the next. Seal is nil for a
// group an end record closes (a run that sealed nothing more: its
// markers). The counts are the tape's own, not the filter's; InRange says
// whether the filter's time range holds the seal's bucket.
type GroupCounts struct {
	Seal    *Record
	InRange bool
	Markers int // marker lines
	MarkerCounts
}

// count adds a marker to the group.
func (g *GroupCounts) count(rec *Record) {
	g.Markers++
	g.Add(rec)
}

// MarkerCounts is what markers count, as the data-quality series carry
// it: the entries of the !late markers, of the !drop markers by reason,
// and of the !cap markers by metric. It is the one owner of that count
// (tgread's per-group series, tgserve's and tgpush's running totals,
// OTLP's points).
type MarkerCounts struct {
	Late    int64
	Dropped map[string]int64 // nil until a !drop
	Capped  map[string]int64 // nil until a !cap
}

// Add counts a marker (any other record is passed over).
func (m *MarkerCounts) Add(rec *Record) {
	switch rec.Kind {
	case Late:
		m.Late += rec.Count
	case Drop:
		if m.Dropped == nil {
			m.Dropped = map[string]int64{}
		}
		m.Dropped[rec.Reason] += rec.Count
	case Cap:
		if m.Capped == nil {
			m.Capped = map[string]int64{}
		}
		m.Capped[rec.Metric] += rec.Count
	}
}

// Resolved is what a tape says once every pair has its last value.
//
// Invariants: Points holds one value per (Start, Series.Text), sorted by
// Start then Series.Text; Seals, Markers and Totals hold only what the
// filter selected (a !drop has no bucket or metric and is always kept; a
// !late is kept whatever the metric filter).
type Resolved struct {
	Points     []Point
	Seals      map[int64][]Placed // bucket start: its seal lines, in tape order
	Sealed     bool               // the tape has a seal line, selected by the filter or not
	Markers    []Placed           // !late, !drop, !cap in tape order
	Totals     map[Kind]Totals    // per marker kind
	End        *Record            // the last end record, nil while the tape is open
	EndLine    int                // End's line
	Duplicates []Dup              // when Options.OnDuplicate is nil
	Later      []LaterKind        // per later kind, its first line, in tape order; when Options.OnLater is nil
	Lines      int                // lines added (whole lines read)
	Groups     []GroupCounts      // per seal and end record, in tape order, whatever the filter
	pending    GroupCounts        // the markers since the last seal or end
	Torn       bool               // a torn last line was tolerated (and ignored)
}

// pair is a (bucket, series) key; the series is an index into Resolver.series.
type pair struct {
	start  int64
	series int32
}

type value struct {
	v    float64
	line int
}

// Resolver resolves a tape line by line, for a caller that reads the lines
// itself (tgread printing each bucket as its seal arrives). Resolve is the
// whole tape at once.
type Resolver struct {
	opt      Options
	metrics  map[string]bool // nil: every metric
	from, to int64           // bucket starts in [from, to)
	ids      map[string]int32
	series   []*SeriesText
	keep     []bool // per series: does the metric filter select it
	points   map[pair]value
	lastTime []byte // the last series line's time text, and its value:
	lastNS   int64  // consecutive lines share a bucket, so parse it once
	later    LaterKinds
	res      Resolved
}

// Resolve streams the tape in r and returns what it says. Errors are
// *LineError naming the line (or an I/O error); nothing partial is
// returned with an error.
func Resolve(r io.Reader, opt Options) (*Resolved, error) {
	rv := NewResolver(opt)
	tr := NewReader(r)
	for {
		line, err := tr.ReadLine()
		if err == io.EOF {
			break
		}
		if err != nil {
			if opt.TolerateTorn && errors.Is(err, ErrTorn) {
				rv.res.Torn = true
				break
			}
			return nil, err
		}
		if err := rv.Add(line, tr.Line()); err != nil {
			return nil, err
		}
	}
	return rv.Result(), nil
}

// NewResolver returns a Resolver with nothing added.
func NewResolver(opt Options) *Resolver {
	rv := &Resolver{
		opt:    opt,
		from:   minNS,
		to:     maxNS,
		ids:    map[string]int32{},
		points: map[pair]value{},
		res:    Resolved{Seals: map[int64][]Placed{}, Totals: map[Kind]Totals{}},
	}
	if opt.Metrics != nil {
		rv.metrics = map[string]bool{}
		for _, m := range opt.Metrics {
			rv.metrics[m] = true
		}
	}
	if !opt.From.IsZero() {
		rv.from = opt.From.UnixNano()
	}
	if !opt.To.IsZero() {
		rv.to = opt.To.UnixNano()
	}
	return rv
}

const (
	minNS = -1 << 63
	maxNS = 1<<63 - 1
)

func (rv *Resolver) inRange(start int64) bool { return start >= rv.from && start < rv.to }

// Add takes line number n, without its '\n'; its error is a *LineError.
func (rv *Resolver) Add(line []byte, n int) error {
	if err := rv.add(line, n); err != nil {
		return &LineError{n, err}
	}
	rv.res.Lines++
	return nil
}

// add takes one line. Series lines, nearly all of a tape, take a path that
// allocates only for a series or a bucket time not seen before; a line
// starting with a digit can only be a series line (its time).
func (rv *Resolver) add(line []byte, n int) error {
	if len(line) > 0 && line[0] >= '0' && line[0] <= '9' {
		if rv.addSeries(line, n) {
			return nil
		}
		_, err := Parse(line) // the fast path refused it: say why
		return err
	}
	rec, err := ParseOrLater(line)
	if err != nil {
		return err
	}
	switch rec.Kind {
	case Later:
		rv.addLater(line, n)
	case Seal:
		rv.res.Sealed = true
		if rv.inRange(rec.Start) {
			rv.res.Seals[rec.Start] = append(rv.res.Seals[rec.Start], Placed{rec, n})
		}
		rv.closeGroup(&rec)
	case End:
		rv.res.End, rv.res.EndLine = &rec, n
		rv.closeGroup(nil)
	case Late, Drop, Cap:
		rv.res.pending.count(&rec)
		rv.addMarker(rec, n)
	}
	return nil
}

// closeGroup ends the group of the markers since the last seal or end at
// a seal (nil: an end record).
func (rv *Resolver) closeGroup(seal *Record) {
	g := rv.res.pending
	if seal != nil {
		r := *seal
		g.Seal, g.InRange = &r, rv.inRange(r.Start)
	}
	rv.res.Groups = append(rv.res.Groups, g)
	rv.res.pending = GroupCounts{}
}

// addSeries takes a series line, accepting exactly what Parse accepts, and
// reports whether it did.
func (rv *Resolver) addSeries(line []byte, n int) bool {
	sp := bytes.IndexByte(line, ' ')
	last := bytes.LastIndexByte(line, ' ')
	if sp < 0 || last <= sp {
		return false
	}
	ts, text, val := line[:sp], line[sp+1:last], line[last+1:]
	if !bytes.Equal(ts, rv.lastTime) {
		ns, err := ParseTime(string(ts))
		if err != nil {
			return false
		}
		rv.lastTime, rv.lastNS = append(rv.lastTime[:0], ts...), ns
	}
	v, ok := parseCount(val)
	if !ok {
		var err error
		if v, err = parseValue(string(val)); err != nil {
			return false
		}
	}
	id, ok := rv.ids[string(text)]
	if !ok {
		metric, labels, err := parseSeriesText(string(text), nil)
		if err != nil {
			return false
		}
		id = rv.intern(string(text), metric, labels)
	}
	rv.addPoint(rv.lastNS, id, v, n)
	return true
}

// parseCount parses the common value: an unsigned integer of at most 15
// digits, which a float64 (53-bit mantissa) holds exactly.
func parseCount(b []byte) (float64, bool) {
	if len(b) == 0 || len(b) > 15 || (b[0] == '0' && len(b) > 1) {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return float64(n), true
}

// intern gives the series spelled raw its index. The key of a pair is the
// series' canonical text (as AppendSeries writes it, labels sorted by name),
// so that a tape spelling one series two ways (\x41 for A, or its labels in
// another order) still resolves it once. Text keeps the first spelling's
// label order, which is tally's (the document's by= order).
func (rv *Resolver) intern(raw, metric string, labels []Label) int32 {
	text := string(AppendSeries(nil, metric, labels))
	key := text // a single label, or labels already by name (by= in that order)
	if byName := func(a, b Label) int { return strings.Compare(a.Name, b.Name) }; !slices.IsSortedFunc(labels, byName) {
		key = string(AppendSeries(nil, metric, slices.SortedFunc(slices.Values(labels), byName)))
	}
	id, ok := rv.ids[key]
	if !ok {
		id = int32(len(rv.series))
		rv.ids[key] = id
		rv.series = append(rv.series, &SeriesText{Text: text, Metric: metric, Labels: labels})
		rv.keep = append(rv.keep, rv.metrics == nil || rv.metrics[metric])
	}
	rv.ids[raw] = id
	return id
}

func (rv *Resolver) addPoint(start int64, id int32, v float64, n int) {
	if !rv.keep[id] || !rv.inRange(start) {
		return
	}
	k := pair{start, id}
	if old, ok := rv.points[k]; ok {
		d := Dup{Start: start, Series: rv.series[id], Old: old.v, New: v, OldLine: old.line, Line: n}
		if rv.opt.OnDuplicate != nil {
			rv.opt.OnDuplicate(d)
		} else {
			rv.res.Duplicates = append(rv.res.Duplicates, d)
		}
	}
	rv.points[k] = value{v, n}
}

func (rv *Resolver) addMarker(rec Record, n int) {
	if rec.Kind != Drop && !rv.inRange(rec.Start) {
		return
	}
	if rec.Kind == Cap && rv.metrics != nil && !rv.metrics[rec.Metric] {
		return
	}
	rv.res.Markers = append(rv.res.Markers, Placed{rec, n})
	t := rv.res.Totals[rec.Kind]
	t.Markers++
	t.Entries += rec.Count
	rv.res.Totals[rec.Kind] = t
}

// addLater notes the first line of each later kind: a tape holds a few
// kinds however many lines, so this stays small.
func (rv *Resolver) addLater(line []byte, n int) {
	k, ok := rv.later.Name(LaterWord(line), n)
	if !ok {
		return
	}
	if rv.opt.OnLater != nil {
		rv.opt.OnLater(k)
	} else {
		rv.res.Later = append(rv.res.Later, k)
	}
}

// Result returns what the lines added say. The Resolver is spent.
func (rv *Resolver) Result() *Resolved {
	// Points sort by bucket, then by series text: each series' rank in
	// text order is worked out once, so that sorting a million points
	// compares integers rather than strings (tgread over a by=path tape).
	order := make([]int32, len(rv.series))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return strings.Compare(rv.series[a].Text, rv.series[b].Text) })
	for r, id := range order {
		rv.series[id].rank = int32(r)
	}
	pts := make([]Point, 0, len(rv.points))
	for k, v := range rv.points {
		pts = append(pts, Point{Start: k.start, Series: rv.series[k.series], Value: v.v, Line: v.line})
	}
	slices.SortFunc(pts, func(a, b Point) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.Series.rank, b.Series.rank))
	})
	rv.res.Points = pts
	return &rv.res
}
