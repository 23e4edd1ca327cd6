package check

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/timbertally/timbertally/lib/internal/doc"
	"github.com/timbertally/timbertally/lib/internal/tape"
)

// diffKind names how a tape differs from the re-derived buckets.
type diffKind string

// The differences of docs/design.md §6.
const (
	diffMissing   diffKind = "missing"   // a re-derived series is not on the tape, and no marker explains it
	diffExtra     diffKind = "extra"     // on the tape, not re-derived (or above it with nothing short anywhere)
	diffShort     diffKind = "short"     // the tape is below the entries, no marker explaining it: a fragment
	diffDisplaced diffKind = "displaced" // the tape is above the entries here while it is short elsewhere
)

// diff is one difference. Series is the series text, or for a seal's
// entries= "entries=" (Seal is then set). OneSide is set for a series on
// the tape only (Derived is then 0) or re-derived only (Tape 0).
type diff struct {
	Kind          diffKind
	Start         int64
	Series        string
	Tape, Derived float64
	OneSide       bool
	Seal          bool
	Bound         string // a histogram's _bucket series: its le, which the report names
}

// comparison is the outcome of comparing a tape with re-derived buckets.
type comparison struct {
	Diffs    []diff // in bucket, then series order
	Buckets  int    // buckets compared
	Open     int    // buckets not yet sealed on an open tape, not compared
	OpenFrom int64  // the first open bucket's start, when Open > 0
}

// bucketView is one bucket of the tape: its resolved series and markers.
type bucketView struct {
	series map[string]tape.Point
	sealed bool
	late   int64
	caps   map[string]int64 // metric → entries over the cap
}

func (b *bucketView) marked() bool { return b.late > 0 || len(b.caps) > 0 }

// compare compares the store's tape with the re-derived buckets, bucket by
// bucket (docs/design.md §6). Every bucket matches series for series: the entries a
// bucket's !late markers, or a metric's !cap markers, hold are left out of
// the re-derivation (derive), and those markers are checked to hold exactly
// them (marks), so a bucket with markers is held to its exact values too,
// not only to its totals. A sealed bucket's entries= is the entries placed
// in it.
func compare(s *tallyStore, d *derivation) *comparison {
	view := viewBuckets(s.Tape)
	last, _, anySealed := lastSeal(s.Tape)
	starts := slices.Sorted(maps.Keys(union(view, d.Buckets)))
	c := &comparison{}
	var over []int // indexes of Diffs above the entries, named once all are known
	for _, start := range starts {
		b := view[start]
		if b == nil {
			b = &bucketView{}
		}
		if s.Tape.End == nil && !b.sealed && !b.marked() && (!anySealed || start > last) {
			if c.Open == 0 {
				c.OpenFrom = start
			}
			c.Open++
			continue
		}
		c.Buckets++
		over = c.bucket(start, b, d.Buckets[start], over)
		over = c.seal(start, s.Tape.Seals[start], d.Placed[start], over)
	}
	// The entries of !late markers are out of the re-derivation, so only a
	// series short elsewhere makes one above its entries displaced.
	displaced := slices.ContainsFunc(c.Diffs, func(d diff) bool {
		return d.Kind == diffShort || d.Kind == diffMissing
	})
	for _, i := range over {
		if displaced {
			c.Diffs[i].Kind = diffDisplaced
		}
	}
	return c
}

// bucket compares one bucket and returns over with the indexes of new
// differences where the tape is above the entries.
func (c *comparison) bucket(start int64, b *bucketView, derived map[string]derivedSeries, over []int) []int {
	for _, text := range slices.Sorted(maps.Keys(derived)) {
		ds := derived[text]
		tp, ok := b.series[text]
		switch {
		case !ok:
			c.Diffs = append(c.Diffs, diff{Kind: diffMissing, Start: start, Series: text, Derived: ds.Value, OneSide: true, Bound: ds.Bound})
		case matches(ds, tp.Value):
		case above(ds.Metric.Kind, tp.Value, ds.Value):
			over = c.over(diff{Kind: diffExtra, Start: start, Series: text, Tape: tp.Value, Derived: ds.Value, Bound: ds.Bound}, over)
		default:
			c.Diffs = append(c.Diffs, diff{Kind: diffShort, Start: start, Series: text, Tape: tp.Value, Derived: ds.Value, Bound: ds.Bound})
		}
	}
	for _, text := range slices.Sorted(maps.Keys(b.series)) {
		if _, ok := derived[text]; !ok {
			p := b.series[text]
			over = c.over(diff{Kind: diffExtra, Start: start, Series: text, Tape: p.Value, OneSide: true, Bound: tapeBound(p.Series)}, over)
		}
	}
	return over
}

// seal compares the entries= of a bucket's last seal, if any, with the
// entries placed in the bucket.
func (c *comparison) seal(start int64, seals []tape.Placed, placed int64, over []int) []int {
	if len(seals) == 0 {
		return over
	}
	d := diff{Start: start, Series: "entries=", Tape: float64(seals[len(seals)-1].Entries), Derived: float64(placed), Seal: true}
	switch {
	case d.Tape > d.Derived:
		d.Kind = diffExtra
		return c.over(d, over)
	case d.Tape < d.Derived:
		d.Kind = diffShort
		c.Diffs = append(c.Diffs, d)
	}
	return over
}

// over adds a difference where the tape is above the entries, and returns
// over with its index: it is named displaced once all are known if the
// tape is short or late elsewhere.
func (c *comparison) over(d diff, over []int) []int {
	c.Diffs = append(c.Diffs, d)
	return append(over, len(c.Diffs)-1)
}

// matches reports whether a tape value is the re-derived series' value. A
// sum is rounded in the order its entries were added, which for several
// stores depends on how their batches took turns: two orders of n terms
// differ by at most 2·n·2⁻⁵³·Σ|x| (each is within (n-1)·2⁻⁵³·Σ|x| of the
// exact sum), so that much is no difference. Whole values add exactly in
// any order while the sum stays below 2⁵³, so counts and sums of sizes
// must be equal. A histogram's _sum is a sum like any other; its bucket
// counts and count are counts.
func matches(ds derivedSeries, v float64) bool {
	if v == ds.Value {
		return true
	}
	return ds.Abs > 0 && math.Abs(v-ds.Value) <= 2*float64(ds.Entries)*0x1p-53*ds.Abs
}

// above reports whether a tape value is beyond what the entries allow: a
// min can only be too low, any other metric too high.
func above(k doc.MetricKind, tapeV, derivedV float64) bool {
	if k == doc.Min {
		return tapeV < derivedV
	}
	return tapeV > derivedV
}

func viewBuckets(t *tape.Resolved) map[int64]*bucketView {
	view := map[int64]*bucketView{}
	get := func(start int64) *bucketView {
		b := view[start]
		if b == nil {
			b = &bucketView{series: map[string]tape.Point{}}
			view[start] = b
		}
		return b
	}
	for _, p := range t.Points {
		get(p.Start).series[p.Series.Text] = p
	}
	for start := range t.Seals {
		get(start).sealed = true
	}
	for _, m := range t.Markers {
		switch m.Kind {
		case tape.Late:
			get(m.Start).late += m.Count
		case tape.Cap:
			b := get(m.Start)
			if b.caps == nil {
				b.caps = map[string]int64{}
			}
			b.caps[m.Metric] += m.Count
		}
	}
	return view
}

// tapeBound returns the le of a tape series that is a _bucket, "" for any
// other.
func tapeBound(s *tape.SeriesText) string {
	if _, suffix, ok := doc.HistogramOf(s.Metric); !ok || suffix != doc.BucketSuffix {
		return ""
	}
	for _, l := range s.Labels {
		if l.Name == doc.BoundLabel {
			return l.Value
		}
	}
	return ""
}

// describe says what differs: the series and both values, and for a
// histogram's bucket its bound.
func (d diff) describe() string {
	s := d.values()
	if d.Bound != "" {
		base, _, _ := doc.HistogramOf(metricOf(d.Series))
		s += fmt.Sprintf(" (histogram %s, the bucket of bound le=%s)", base, d.Bound)
	}
	return s
}

// metricOf returns a series text's metric name.
func metricOf(series string) string {
	if i := strings.IndexByte(series, '{'); i >= 0 {
		return series[:i]
	}
	return series
}

func (d diff) values() string {
	switch {
	case d.Seal:
		return fmt.Sprintf("seal entries=%s, but %s entries of the stores are placed in the bucket (all but its !late)", valueText(d.Tape), valueText(d.Derived))
	case d.OneSide && d.Kind == diffMissing:
		return fmt.Sprintf("%s: not on the tape, re-derived %s", d.Series, valueText(d.Derived))
	case d.OneSide:
		return fmt.Sprintf("%s: tape %s, not re-derived", d.Series, valueText(d.Tape))
	}
	return fmt.Sprintf("%s: tape %s, re-derived %s", d.Series, valueText(d.Tape), valueText(d.Derived))
}

// union returns the set of bucket starts of both maps.
func union[A, B any](a map[int64]A, b map[int64]B) map[int64]bool {
	u := make(map[int64]bool, len(a)+len(b))
	for k := range a {
		u[k] = true
	}
	for k := range b {
		u[k] = true
	}
	return u
}

// listed is how many differences of each kind a report lists; the rest
// are counted.
const listed = 5

// print writes the comparison and reports whether the tape matched.
func (c *comparison) print(w io.Writer) bool {
	byKind := map[diffKind][]diff{}
	for _, d := range c.Diffs {
		byKind[d.Kind] = append(byKind[d.Kind], d)
	}
	fmt.Fprintf(w, "against: %s compared, %s", count(c.Buckets, "bucket"), count(len(c.Diffs), "difference"))
	for _, k := range []diffKind{diffMissing, diffExtra, diffShort, diffDisplaced} {
		if n := len(byKind[k]); n > 0 {
			fmt.Fprintf(w, ", %d %s", n, k)
		}
	}
	fmt.Fprintln(w)
	for _, k := range []diffKind{diffMissing, diffExtra, diffShort, diffDisplaced} {
		ds := byKind[k]
		for _, d := range ds[:min(len(ds), listed)] {
			fmt.Fprintf(w, "%-9s %s %s\n", k, timeText(d.Start), d.describe())
		}
		if len(ds) > listed {
			fmt.Fprintf(w, "%-9s ... and %d more\n", k, len(ds)-listed)
		}
	}
	if c.Open > 0 {
		fmt.Fprintf(w, "open: %d buckets from %s are not sealed yet (not compared)\n", c.Open, timeText(c.OpenFrom))
	}
	return len(c.Diffs) == 0
}
