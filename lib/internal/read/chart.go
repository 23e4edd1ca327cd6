package read

import (
	"cmp"
	"slices"
	"strings"
)

// chart is the rows of a tape laid out for a picture (--plot, --format
// svg): one line per series on a shared time axis, so that the series'
// charts line up with each other.
//
// The axis is divided into slots of one bucket each: slot is the smallest
// gap between two bucket starts among the rows, which is the window (or
// --step) unless no two adjacent buckets hold a value. A single bucket
// has slot 0 and the axis is that one bucket.
type chart struct {
	lines       []line
	first, last int64 // the first and last bucket start of any series
	slot        int64 // nanoseconds
}

// line is one series: its name as the table shows it and its points in
// time order.
type line struct {
	name   string
	metric string
	points []*row
}

func newChart(rows []*row) *chart {
	byName := map[string]*line{}
	c := &chart{}
	starts := make([]int64, 0, len(rows))
	for _, r := range rows {
		name := seriesName(r)
		l, ok := byName[name]
		if !ok {
			l = &line{name: name, metric: r.metric}
			byName[name] = l
		}
		l.points = append(l.points, r)
		starts = append(starts, r.start)
	}
	for _, l := range byName {
		slices.SortFunc(l.points, func(a, b *row) int { return cmp.Compare(a.start, b.start) })
		c.lines = append(c.lines, *l)
	}
	slices.SortFunc(c.lines, func(a, b line) int { return strings.Compare(a.name, b.name) })
	slices.Sort(starts)
	starts = slices.Compact(starts)
	if len(starts) > 0 {
		c.first, c.last = starts[0], starts[len(starts)-1]
	}
	for i := 1; i < len(starts); i++ {
		if gap := starts[i] - starts[i-1]; c.slot == 0 || gap < c.slot {
			c.slot = gap
		}
	}
	return c
}

// slots is the number of buckets the axis spans, gaps included.
func (c *chart) slots() int64 {
	if c.slot == 0 {
		return 1
	}
	return (c.last-c.first)/c.slot + 1
}

// slotOf is the index on the axis of a bucket start.
func (c *chart) slotOf(start int64) int64 {
	if c.slot == 0 {
		return 0
	}
	return (start - c.first) / c.slot
}

// end is the end of the last bucket: the axis covers [first, end).
func (c *chart) end() int64 {
	return c.first + c.slots()*c.slot
}

// seriesName is a series as the table shows it: metric{k=v,k=v}, labels
// sorted by name, every byte a terminal or an XML text can show.
func seriesName(r *row) string {
	if len(r.sorted) == 0 {
		return r.metric
	}
	b := append([]byte(r.metric), '{')
	b = appendLabels(b, r.sorted, showControls|showEdges)
	return string(append(b, '}'))
}

// valueRange is the span a chart's vertical axis shows: from the smallest
// value to the largest, always including 0, so that bars and lines stand
// on zero and their heights compare.
func valueRange(points []*row) (base, top float64) {
	for _, p := range points {
		base, top = min(base, p.value), max(top, p.value)
	}
	return base, top
}
