package check

import (
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/timbertally/timbertally/lib/doc"
	"github.com/timbertally/timbertally/lib/tape"
)

// DiffKind names how a tape differs from the re-derived buckets.
type DiffKind string

// The differences of SPEC §6.
const (
	Missing   DiffKind = "missing"   // a re-derived series is not on the tape, and no marker explains it
	Extra     DiffKind = "extra"     // on the tape, not re-derived (or above it with nothing short anywhere)
	Short     DiffKind = "short"     // the tape is below the entries, no marker explaining it: a fragment
	Displaced DiffKind = "displaced" // the tape is above the entries here while it is short or late elsewhere
)

// Diff is one difference. Series is the series text, or for a bucket
// compared in total (it has markers) the metric name; Tape then includes
// the bucket's !late and the metric's !cap entries. OneSide is set for a
// series on the tape only (Derived is then 0) or re-derived only (Tape 0).
type Diff struct {
	Kind          DiffKind
	Start         int64
	Series        string
	Tape, Derived float64
	Total         bool
	OneSide       bool
	LeftOut       bool // Series is a metric; Tape is its !cap (and, when short, !late) entries, Derived the entries of its series not on the tape
}

// Comparison is the outcome of comparing a tape with re-derived buckets.
type Comparison struct {
	Diffs    []Diff // in bucket, then series order
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

// Compare compares the store's tape with the re-derived buckets, bucket by
// bucket (SPEC §6): a bucket without markers matches series for series; a
// bucket with !late or !cap markers matches in total for each count metric
// without where=, and no series is above its re-derived value (a sum's,
// with !late entries, may be: a late entry can be negative). Within that
// rule, a bucket with !cap markers alone is held to more: every series on
// its tape is exact, since a series over the cap is left out whole.
func Compare(s *Store, d *Derived) *Comparison {
	view := viewBuckets(s.Tape)
	last, _, anySealed := lastSeal(s.Tape)
	starts := slices.Sorted(maps.Keys(union(view, d.Buckets)))
	c := &Comparison{}
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
		over = c.bucket(start, b, d.Buckets[start], s.Doc, over)
	}
	displaced := s.Tape.Totals[tape.Late].Entries > 0 || slices.ContainsFunc(c.Diffs, func(d Diff) bool {
		return d.Kind == Short || d.Kind == Missing
	})
	for _, i := range over {
		if displaced {
			c.Diffs[i].Kind = Displaced
		}
	}
	return c
}

// bucket compares one bucket and returns over with the indexes of new
// differences where the tape is above the entries.
func (c *Comparison) bucket(start int64, b *bucketView, derived map[string]Series, d *doc.Doc, over []int) []int {
	add := func(k DiffKind, series string, tapeV, derivedV float64, total, oneSide bool) {
		if k == Extra {
			over = append(over, len(c.Diffs))
		}
		c.Diffs = append(c.Diffs, Diff{Kind: k, Start: start, Series: series, Tape: tapeV, Derived: derivedV, Total: total, OneSide: oneSide})
	}
	// Only !late entries can leave a series on the tape below its entries:
	// a series over the cap is left out whole (once a metric's cap is
	// reached in a bucket, no new series starts, and one that exists gets
	// every entry), so in a bucket with !cap markers alone every series on
	// the tape is exact. A late entry of a sum may be negative, so a sum's
	// series may even be above its entries when some were late.
	late := b.late > 0
	for _, text := range slices.Sorted(maps.Keys(derived)) {
		ds := derived[text]
		tp, ok := b.series[text]
		switch {
		case !ok && !b.marked():
			add(Missing, text, 0, ds.Value, false, true)
		case !ok || tp.Value == ds.Value:
		case above(ds.Metric.Kind, tp.Value, ds.Value) && !(late && ds.Metric.Kind == doc.Sum):
			add(Extra, text, tp.Value, ds.Value, false, false)
		case !late:
			add(Short, text, tp.Value, ds.Value, false, false)
		}
	}
	for _, text := range slices.Sorted(maps.Keys(b.series)) {
		if _, ok := derived[text]; !ok {
			add(Extra, text, b.series[text].Value, 0, false, true)
		}
	}
	if !b.marked() {
		return over
	}
	over = c.leftOut(start, b, derived, d, over)
	for _, name := range plainCounts(d) {
		var tapeV, derivedV float64
		for _, p := range b.series {
			if p.Series.Metric == name {
				tapeV += p.Value
			}
		}
		for _, ds := range derived {
			if ds.Metric.Name == name {
				derivedV += ds.Value
			}
		}
		tapeV += float64(b.late + b.caps[name])
		switch {
		case tapeV < derivedV:
			add(Short, name, tapeV, derivedV, true, false)
		case tapeV > derivedV:
			add(Extra, name, tapeV, derivedV, true, false)
		}
	}
	return over
}

// leftOut checks, for each metric a bucket's totals do not check (all but
// plain counts), the entries of its series left off the tape against the
// bucket's markers: every entry over the cap is in a series left out whole
// (once a metric's cap is reached no new series starts), and a series left
// out holds only capped and late entries. So its !cap count is at most the
// re-derived entries left out, and at least those less the bucket's !late.
func (c *Comparison) leftOut(start int64, b *bucketView, derived map[string]Series, d *doc.Doc, over []int) []int {
	out := map[string]int64{}
	for text, ds := range derived {
		if _, ok := b.series[text]; !ok {
			out[ds.Metric.Name] += ds.Entries
		}
	}
	plain := plainCounts(d)
	for _, m := range d.Metrics {
		if slices.Contains(plain, m.Name) {
			continue
		}
		capped, left := b.caps[m.Name], out[m.Name]
		switch {
		case capped > left:
			over = append(over, len(c.Diffs))
			c.Diffs = append(c.Diffs, Diff{Kind: Extra, Start: start, Series: m.Name, Tape: float64(capped), Derived: float64(left), LeftOut: true})
		case left > capped+b.late:
			c.Diffs = append(c.Diffs, Diff{Kind: Short, Start: start, Series: m.Name, Tape: float64(capped + b.late), Derived: float64(left), LeftOut: true})
		}
	}
	return over
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

// describe says what differs: the series and both values.
func (d Diff) describe() string {
	switch {
	case d.LeftOut:
		return fmt.Sprintf("%s: entries in series not on the tape: re-derived %s, the bucket's markers account for %s", d.Series, valueText(d.Derived), valueText(d.Tape))
	case d.Total:
		return fmt.Sprintf("total %s with the bucket's markers: tape %s, re-derived %s", d.Series, valueText(d.Tape), valueText(d.Derived))
	case d.OneSide && d.Kind == Missing:
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
func (c *Comparison) print(w io.Writer) bool {
	byKind := map[DiffKind][]Diff{}
	for _, d := range c.Diffs {
		byKind[d.Kind] = append(byKind[d.Kind], d)
	}
	fmt.Fprintf(w, "against: %s compared, %s", count(c.Buckets, "bucket"), count(len(c.Diffs), "difference"))
	for _, k := range []DiffKind{Missing, Extra, Short, Displaced} {
		if n := len(byKind[k]); n > 0 {
			fmt.Fprintf(w, ", %d %s", n, k)
		}
	}
	fmt.Fprintln(w)
	for _, k := range []DiffKind{Missing, Extra, Short, Displaced} {
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
