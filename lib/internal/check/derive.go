package check

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/timbertally/timbertally/lib/internal/doc"
	"github.com/timbertally/timbertally/lib/internal/extract"
	"github.com/timbertally/timbertally/lib/internal/store"
	"github.com/timbertally/timbertally/lib/internal/tape"
)

// input is one store to re-derive from, as the user names it (tgcheck
// --against ID=PATH, --max-line).
type input struct {
	ID, Path string
	History  []string // the store's older generations, oldest first, read before Path (store.Spec)
	MaxLine  int      // feed's --max-line; 0: its default
	From     int64    // where the tape's counting of it began (feed --from end; DIR/bindings): re-derived from there
}

// source is an input with what the tape says of it (prepare): its entries
// that end at or before limit count, later ones are not yet known to the
// tape. skipped holds the ranges feed delivered as no entry (its !drop
// markers of a skip's reason: a line over feed's --max-line, a line cut by
// a rotation), which count as fed but belong in no bucket, however tgcheck
// itself reads them.
type source struct {
	input
	limit   int64
	skipped [][2]int64       // [offset, end), ascending
	marks   []tape.Placed    // its !late, !cap and !drop markers but a skip's, checked against its entries
	ats     map[int64]sealAt // per sealed bucket: the at= its seal gives the store
	// onTape says whether the tape has a series (its text) in a bucket:
	// a !cap marker's entries must be of series left off it.
	onTape func(start int64, series string) bool
}

// prepare gives each input what the tape says of it: how far it knows the
// store, the ranges feed delivered as no entry, the markers holding its
// entries, its seals' at= and the series on the tape.
func prepare(t *tape.Resolved, inputs []input) []source {
	known := knownPositions(t)
	onTape := seriesOnTape(t)
	srcs := make([]source, len(inputs))
	for i, in := range inputs {
		srcs[i] = source{input: in, limit: known[in.ID], skipped: skips(t, in.ID), marks: entryMarkers(t, in.ID),
			ats: sealAts(t, in.ID), onTape: onTape}
	}
	return srcs
}

// skipped reports whether the entry starting at pos lies in one of s's
// skipped ranges.
func (s *source) isSkipped(pos int64) bool {
	i := sort.Search(len(s.skipped), func(i int) bool { return s.skipped[i][1] > pos })
	return i < len(s.skipped) && s.skipped[i][0] <= pos
}

// derivedSeries is one re-derived series value of one bucket: what the tape must
// hold for it, from the bucket's entries that no !late marker, and no !cap
// marker of its metric, covers. The markers' own ranges are checked apart
// (marks), so an entry is either here or in a marker that holds it.
type derivedSeries struct {
	Metric  *doc.Metric
	Value   float64
	Entries int64   // the entries folded in
	Abs     float64 // a sum's Σ|x| over them, which bounds its rounding (matches); 0 for any other value
	Bound   string  // a histogram's _bucket series: its le, as on the tape
}

// derivation is what the stores say the tape should hold.
type derivation struct {
	Buckets map[int64]map[string]derivedSeries // bucket start → series text (as on the tape) → value
	Placed  map[int64]int64                    // bucket start → entries placed in it (all but its !late): its seal's entries=
	Fed     map[string]int64                   // per store id: entries (lines of any length) before its limit
	Beyond  map[string]int64                   // per store id: complete lines at or after its limit
	Marks   []finding                          // markers whose range does not hold count entries of their kind
	Ats     []finding                          // seals whose at= the stores' entries contradict
}

// Chunk sizes for reading stores: 64 Ki entries or 4 MiB a chunk keeps
// the per-chunk overhead negligible against ~200-byte entries.
const (
	chunkEntries = 64 << 10
	chunkBytes   = 4 << 20
)

// derive re-derives the buckets of document d from the stores the inputs
// name, each as far as tape t knows it: every entry that extracts goes
// into the bucket of its own time (unbounded grace, no cap), each metric
// folded as docs/design.md §4 says, but for what the store's markers on t cover
// (Series).
func derive(d *doc.Doc, t *tape.Resolved, inputs []input) (*derivation, error) {
	dv, err := newDeriver(d)
	if err != nil {
		return nil, err
	}
	out := &derivation{Buckets: map[int64]map[string]derivedSeries{}, Placed: dv.placed, Fed: map[string]int64{}, Beyond: map[string]int64{}}
	for k, src := range prepare(t, inputs) {
		if err := dv.x.Origin(k, src.ID, src.Path); err != nil { // by=store: the id the tape names it by; by=pod: its path's
			return nil, fmt.Errorf("tgcheck: %w", err)
		}
		dv.x.Store(k) // a w3c store's columns are its own #Fields header's
		n, err := dv.store(src)
		if err != nil {
			return nil, err
		}
		out.Fed[src.ID] += n
		out.Marks = append(out.Marks, dv.marks.findings()...)
		out.Ats = append(out.Ats, dv.seals.findings()...)
		if out.Beyond[src.ID], err = src.linesAfter(src.limit); err != nil {
			return nil, fmt.Errorf("tgcheck: store %s: %w", src.ID, err)
		}
	}
	for _, fs := range [][]finding{out.Marks, out.Ats} {
		slices.SortFunc(fs, func(a, b finding) int { return cmp.Compare(a.Line, b.Line) })
	}
	for start, accs := range dv.buckets {
		b := make(map[string]derivedSeries, len(accs))
		for _, a := range accs {
			if a.has {
				dv.metrics[a.metric].series(b, a)
			}
		}
		out.Buckets[start] = b
	}
	return out, nil
}

// series adds the series an acc of mt is on the tape as: one, or a
// histogram's _bucket per bound (cumulative, +Inf last), _sum and _count.
func (mt *metric) series(b map[string]derivedSeries, a *acc) {
	m := mt.m
	if m.Kind != doc.Histogram {
		b[a.text] = derivedSeries{Metric: m, Value: a.value, Entries: a.entries, Abs: a.abs}
		return
	}
	var cum float64
	for i, bound := range append(slices.Clone(m.Buckets), math.Inf(1)) {
		cum += a.counts[i]
		le := string(tape.AppendValue(nil, bound))
		labels := append(slices.Clip(a.labels), tape.Label{Name: doc.BoundLabel, Value: le})
		b[string(tape.AppendSeries(nil, m.Name+doc.BucketSuffix, labels))] = derivedSeries{Metric: m, Value: cum, Entries: a.entries, Bound: le}
	}
	b[string(tape.AppendSeries(nil, m.Name+doc.SumSuffix, a.labels))] = derivedSeries{Metric: m, Value: a.value, Entries: a.entries, Abs: a.abs}
	b[a.text] = derivedSeries{Metric: m, Value: float64(a.entries), Entries: a.entries}
}

// deriver folds entries into buckets. Series are keyed by raw label bytes
// (metric index, then each label's length and bytes), so that an entry
// whose series exists costs a map lookup and no allocation; the tape text
// of a series is formatted once, when it first appears.
type deriver struct {
	x       *extract.Extractor
	unwrap  *extract.Unwrapper // the document's envelope; nil: none
	joiner  extract.Joiner     // the store being read's split line
	e       extract.Entry
	width   int64
	metrics []metric
	buckets map[int64]map[string]*acc
	placed  map[int64]int64
	key     []byte
	marks   *marks   // the store being read's
	seals   *seals   // the store being read's
	texts   []string // outcome.series, reused entry after entry
	future  int64    // the document's bound ahead of the wall clock; 0: none
	newest  int64    // the newest time of the store's entries so far, but future ones
	seen    bool
}

type metric struct {
	m        *doc.Metric
	value    int                // the field of sum/min/max/histogram; -1 for count
	by       []int              // label fields
	where    *extract.Condition // nil for none
	mul, div float64            // a histogram's scale (doc.Metric.ScaleBy)
}

// acc is a series being folded; has is false for a series that has folded
// nothing yet (a min/max with no number, or all of its entries covered by
// markers): such a series has no value and is not on the tape. A
// histogram's value is its sum, entries its count, and counts its
// observations per bound, +Inf last; its text is its _count series'.
type acc struct {
	text    string
	metric  int
	value   float64
	abs     float64 // a sum's Σ|x|
	has     bool
	entries int64
	labels  []tape.Label // a histogram's, for its series
	counts  []float64
}

func newDeriver(d *doc.Doc) (*deriver, error) {
	x, err := extract.New(d)
	if err != nil {
		return nil, fmt.Errorf("tgcheck: the store's document: %v", err)
	}
	dv := &deriver{x: x, width: int64(d.Width), buckets: map[int64]map[string]*acc{}, placed: map[int64]int64{}, texts: make([]string, len(d.Metrics)),
		future: int64(d.Future)}
	if d.Envelope != doc.NoEnvelope {
		dv.unwrap = extract.UnwrapperFor(d)
	}
	for i := range d.Metrics {
		m := &d.Metrics[i]
		mt := metric{m: m, value: -1}
		if m.Kind != doc.Count {
			mt.value = x.Field(m.Field)
		}
		mt.mul, mt.div = m.ScaleBy()
		for _, f := range m.By {
			mt.by = append(mt.by, x.Field(f))
		}
		if m.Where != nil {
			c := extract.NewCondition(x.Field(m.Where.Field), m.Where.Op, m.Where.Value)
			mt.where = &c
		}
		dv.metrics = append(dv.metrics, mt)
	}
	return dv, nil
}

// open opens the source's store for reading from pos (store.ResumeSpec:
// its older generations first, gzip or plain).
func (s *input) open(pos int64) (*store.Reader, error) {
	maxLine := s.MaxLine
	if maxLine == 0 {
		maxLine = store.DefaultMaxLine
	}
	return store.ResumeSpec(store.Spec{ID: s.ID, History: s.History, Path: s.Path}, store.Where{Pos: pos}, store.Options{MaxLine: maxLine})
}

// linesAfter counts the source's complete lines from position pos on.
func (s *input) linesAfter(pos int64) (int64, error) {
	r, err := s.open(pos)
	if err != nil {
		return 0, err
	}
	defer r.Close()
	var n int64
	for {
		c, ok, err := r.Next(chunkEntries, chunkBytes)
		switch {
		case err != nil:
			return 0, err
		case !ok:
			return n, nil
		case c.Skip == store.SkipTooLong:
			n++
		}
		n += int64(c.Entries)
	}
}

// store folds the entries of one source and returns how many it read.
func (dv *deriver) store(src source) (int64, error) {
	r, err := src.open(src.From)
	if err != nil {
		return 0, fmt.Errorf("tgcheck: store %s: %w", src.ID, err)
	}
	defer r.Close()
	dv.marks = newMarks(src.marks, len(dv.metrics), dv.metricIndex, src.onTape)
	dv.seals = newSeals(src.ID, src.ats)
	dv.seen = false
	dv.joiner = extract.Joiner{}
	var fed int64
	for {
		c, ok, err := r.Next(chunkEntries, chunkBytes)
		if err != nil {
			return 0, fmt.Errorf("tgcheck: store %s: %w", src.ID, err)
		}
		if !ok || c.Offset >= src.limit {
			break
		}
		if c.Skip != "" {
			if at, open := dv.joiner.Close(); open && c.Offset < src.limit {
				fed += dv.dropped(at, extract.ReasonSplit, &src) // a skip cuts a split line, as in tally
			}
			dv.marks.boundary(c.Offset)
			if c.End <= src.limit {
				fed++ // a line over the longest an entry may be: an entry, in no bucket
			}
			continue
		}
		fed += dv.chunk(c, &src)
	}
	dv.marks.boundary(src.limit)
	if r.Pos() < src.limit {
		return 0, fmt.Errorf("tgcheck: store %s (%s) has complete lines up to byte %d but the tape accounts for it up to %d; it was truncated or rotated, or it is not the store this tape was fed from",
			src.ID, src.Path, r.Pos(), src.limit)
	}
	return fed, nil
}

// chunk folds the entries of c that end at or before limit and returns
// how many.
func (dv *deriver) chunk(c store.Chunk, src *source) int64 {
	var n int64
	pos, data := c.Offset, c.Data
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		end := pos + int64(i) + 1
		if end > src.limit {
			break
		}
		if dv.unwrap != nil {
			n += dv.enveloped(pos, data[:i], src)
		} else {
			n += dv.line(pos, data[:i], src)
		}
		pos, data = end, data[i+1:]
	}
	return n
}

// line folds the entry at pos and returns 1, or 0 for a header line (w3c's
// #Fields), which is no entry: tally accounts for it as nothing.
func (dv *deriver) line(pos int64, b []byte, src *source) int64 {
	dv.marks.boundary(pos)
	if src.isSkipped(pos) {
		return 1
	}
	cov := dv.marks.enter(pos)
	e := dv.entry(b, cov)
	if e.reason == extract.ReasonHeader || e.reason == extract.ReasonLayout {
		return 0
	}
	dv.marks.hold(e)
	dv.seals.check(pos, e, cov.late)
	return 1
}

// enveloped unwraps the runtime's line at pos as tally does
// (bucket.Roller): a part is held until its line's last part makes it
// one entry at its first part's offset; returns the entries it made.
func (dv *deriver) enveloped(pos int64, b []byte, src *source) int64 {
	var n int64
	j := dv.joiner.Line(dv.unwrap, pos, b)
	if j.Cut {
		n += dv.dropped(j.CutAt, extract.ReasonSplit, src)
	}
	switch {
	case j.Held:
	case j.Reason != "":
		n += dv.dropped(j.At, j.Reason, src)
	default:
		dv.x.Envelope(j.Part.Stream, j.Part.Time)
		n += dv.line(j.At, j.Part.Log, src)
	}
	return n
}

// dropped holds the entry at pos, which tally drops for reason whatever
// it holds (a broken split line, a line that is no runtime's), and
// returns 1.
func (dv *deriver) dropped(pos int64, reason string, src *source) int64 {
	dv.marks.boundary(pos)
	if !src.isSkipped(pos) {
		dv.marks.enter(pos)
		dv.marks.hold(outcome{reason: reason})
	}
	return 1
}

// aheadOfItsStore says whether the entry just extracted, which a !drop
// reason=future holds, is one tally could have dropped so: more than the
// document's bound ahead of every entry of its store before it. tally
// compared with its wall clock, which tgcheck does not know, but the
// store's entries before it were not ahead of that clock, so an entry
// within the bound of them cannot have been beyond it. Otherwise the
// entry is noted as the newest of its store and the marker is wrong.
func (dv *deriver) aheadOfItsStore(cov cover) bool {
	t := dv.e.Time
	if cov.future && dv.future > 0 && (!dv.seen || t-dv.newest > dv.future) {
		return true
	}
	if !dv.seen || t > dv.newest {
		dv.newest, dv.seen = t, true
	}
	return false
}

// metricIndex returns the index of the metric named name, -1 for none.
func (dv *deriver) metricIndex(name string) int {
	return slices.IndexFunc(dv.metrics, func(mt metric) bool { return mt.m.Name == name })
}

// entry folds one entry into its bucket, but for the metrics cov covers,
// and says what it made of it.
func (dv *deriver) entry(line []byte, cov cover) outcome {
	if reason := dv.x.Extract(line, &dv.e); reason != "" {
		return outcome{reason: reason} // a !drop on the tape; conservation counts those
	}
	if dv.aheadOfItsStore(cov) {
		return outcome{reason: doc.ReasonFuture}
	}
	start := floorDiv(dv.e.Time, dv.width) * dv.width
	e := outcome{ok: true, start: start, series: dv.texts[:len(dv.metrics)]}
	clear(e.series)
	if !cov.late {
		dv.placed[start]++
	}
	b := dv.buckets[start]
	if b == nil {
		b = map[string]*acc{}
		dv.buckets[start] = b
	}
	for i := range dv.metrics {
		mt := &dv.metrics[i]
		if mt.where != nil && !mt.where.Holds(&dv.e) {
			continue
		}
		v, ok := dv.value(mt)
		if !ok {
			continue // a min or max of a non-number: in no series and no !cap marker (as tally places it)
		}
		dv.key = binary.AppendUvarint(dv.key[:0], uint64(i))
		for _, f := range mt.by {
			dv.key = binary.AppendUvarint(dv.key, uint64(len(dv.e.Fields[f])))
			dv.key = append(dv.key, dv.e.Fields[f]...)
		}
		a := b[string(dv.key)]
		if a == nil {
			a = dv.newAcc(mt, i)
			b[string(dv.key)] = a
		}
		e.series[i] = a.text
		if !cov.late && !cov.capped[i] {
			a.fold(mt.m, v)
		}
	}
	return e
}

// newAcc returns an empty series of metric i for the current entry's
// labels.
func (dv *deriver) newAcc(mt *metric, i int) *acc {
	labels := make([]tape.Label, len(mt.by))
	for j, f := range mt.by {
		labels[j] = tape.Label{Name: mt.m.By[j], Value: string(dv.e.Fields[f])}
	}
	if mt.m.Kind != doc.Histogram {
		return &acc{text: string(tape.AppendSeries(nil, mt.m.Name, labels)), metric: i}
	}
	return &acc{text: string(tape.AppendSeries(nil, mt.m.Name+doc.CountSuffix, labels)), metric: i,
		labels: labels, counts: make([]float64, len(mt.m.Buckets)+1)}
}

// value is what the current entry gives metric mt: count 1; sum its number,
// 0 for a non-number; min, max and histogram its number (a histogram's
// scaled), and false for a non-number.
func (dv *deriver) value(mt *metric) (float64, bool) {
	if mt.m.Kind == doc.Count {
		return 1, true
	}
	v, ok := dv.e.Number(mt.value)
	if !ok {
		return 0, mt.m.Kind == doc.Sum
	}
	return v * mt.mul / mt.div, true
}

// fold adds a value of metric m to a.
func (a *acc) fold(m *doc.Metric, v float64) {
	switch k := m.Kind; {
	case k == doc.Count:
		a.value++
	case k == doc.Sum:
		a.value += v
		a.abs += math.Abs(v)
	case k == doc.Histogram:
		i, _ := slices.BinarySearch(m.Buckets, v) // the first bound at or above v: le
		a.counts[i]++
		a.value += v
		a.abs += math.Abs(v)
	case !a.has || k == doc.Min && v < a.value || k == doc.Max && v > a.value:
		a.value = v
	}
	a.has = true
	a.entries++
}

// floorDiv divides rounding toward minus infinity, so that an entry before
// 1970 falls in the bucket that contains it.
func floorDiv(t, w int64) int64 {
	q := t / w
	if t%w != 0 && t < 0 {
		q--
	}
	return q
}
