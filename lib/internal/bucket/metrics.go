package bucket

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/timbertally/timbertally/lib/internal/doc"
	"github.com/timbertally/timbertally/lib/internal/extract"
	"github.com/timbertally/timbertally/lib/internal/tape"
	"github.com/timbertally/timbertally/lib/internal/textslab"
)

// metric is a document metric compiled against an extractor's fields.
type metric struct {
	doc.Metric
	field int // the numeric field of sum/min/max/histogram; -1 for count
	where *extract.Condition
	group int    // index in aggregator.groups
	pos   int    // index of its first value in a series' slots
	bit   uint64 // its bit in a slot's has mask
	// A histogram's values are a count per bound, +Inf last (not yet
	// cumulative: an observation costs one increment), then its sum; its
	// count is the counts' total. mul and div scale a value first
	// (doc.Metric.ScaleBy); leTails are the le label of each bound, +Inf
	// last, closing the label set: le="0.005"}.
	mul, div float64
	leTails  []string
}

// slots is how many values a metric keeps per series: one, or a
// histogram's bounds, +Inf and sum.
func (m *metric) slots() int {
	if m.Kind == doc.Histogram {
		return len(m.Buckets) + 2
	}
	return 1
}

// group gathers the metrics that share one by= list, so that an entry costs
// one map lookup per distinct label set, not one per metric (the built-in
// documents have one group of two metrics).
type group struct {
	by      []int // field indices
	names   []string
	metrics []int
	stride  int // values per series: its metrics' slots
}

// seriesSet is one group's series in one bucket. A series is a number:
// index maps its label key to it, and its values live in flat slices
// (vals holds group.stride values per series, has a bit per metric
// saying whether that metric has a value yet), so that a new series costs
// its key's bytes in a slab and amortised slice growth, not allocations. A set
// is reused by the next bucket after its own is sealed (reset keeps the
// capacity, so a steady stream of buckets stops allocating).
type seriesSet struct {
	index map[string]int32
	keys  []string
	has   []uint64
	vals  []float64
	short [shortSlots]shortSlot
	slab  textslab.Slab // the keys' bytes
}

// Label keys of up to 8 bytes (a status, a method, a short name: the
// built-in documents' by=status) are found first in short, a direct-mapped
// table of the last series seen under each slot, compared as one word: the
// map lookup it saves was a large share of tally --try's time in a profile
// of BenchmarkTry (figures: bench/README.md, "The figures behind the code's comments"). A slot that holds another key
// falls back to the map and takes the key over, so the map stays the
// truth and the table only ever saves a lookup.
const shortSlots = 64

type shortSlot struct {
	word uint64 // the key's bytes, little-endian, zero-padded
	n    uint8  // the key's length; 0: empty slot
	i    int32  // the series number
}

// slot returns the slot of short that a key of 1 to 8 bytes goes in, and
// the key as that slot holds it; nil for any other key.
func (s *seriesSet) slot(key []byte) (*shortSlot, shortSlot) {
	if len(key) == 0 || len(key) > 8 {
		return nil, shortSlot{}
	}
	var w uint64
	for j, c := range key {
		w |= uint64(c) << (8 * j)
	}
	h := (w * 0x9e3779b97f4a7c15) >> (64 - 6) // Fibonacci hashing into 64 slots
	return &s.short[h], shortSlot{word: w, n: uint8(len(key))}
}

// find returns the number of the series with key in s, -1 when it does not
// exist.
func (s *seriesSet) find(key []byte) int32 {
	sl, k := s.slot(key)
	if sl != nil && sl.n == k.n && sl.word == k.word {
		return sl.i
	}
	i, ok := s.index[string(key)]
	if !ok {
		return -1
	}
	if sl != nil {
		k.i = i
		*sl = k
	}
	return i
}

// create adds the series with key, which find did not find, its values
// unset, and returns its number.
func (s *seriesSet) create(key []byte, stride int) int32 {
	i := int32(len(s.keys))
	k := s.keep(key)
	s.index[k] = i
	s.keys = append(s.keys, k)
	s.has = append(s.has, 0)
	for range stride {
		s.vals = append(s.vals, 0)
	}
	if sl, k := s.slot(key); sl != nil {
		k.i = i
		*sl = k
	}
	return i
}

// keep returns a string of key's bytes, copied into the slab rather than
// allocated on its own (by=path over 100 000 paths made ~500 000 keys of
// ~50 bytes, one allocation each).
func (s *seriesSet) keep(key []byte) string { return s.slab.String(key) }

func (s *seriesSet) reset() {
	clear(s.index)
	s.keys, s.has, s.vals = s.keys[:0], s.has[:0], s.vals[:0]
	s.short = [shortSlots]shortSlot{}
}

// order returns the series numbers sorted by label key, so that a
// bucket's group reads the same on every run.
func (s *seriesSet) order(buf []keyed) []keyed {
	buf = buf[:0]
	for i, k := range s.keys {
		buf = append(buf, keyed{key: k, i: int32(i)})
	}
	sortKeyed(buf)
	return buf
}

// aggregator computes a document's metrics into buckets.
type aggregator struct {
	metrics []metric
	groups  []group
	cap     int
	key     []byte  // reused label key buffer
	order   []keyed // reused by appendSeries
	// labelSets holds the escaped label sets of a.order's series, each
	// ending at its labelEnds; reused by appendSeries.
	labelSets []byte
	labelEnds []int
	labels    []tape.Label // reused by escapeLabelSets
}

func newAggregator(d *doc.Doc, x *extract.Extractor) (*aggregator, error) {
	a := &aggregator{cap: d.Cap}
	byGroup := map[string]int{}
	for _, dm := range d.Metrics {
		m := metric{Metric: dm, field: -1}
		if dm.Kind == doc.Histogram {
			m.mul, m.div = dm.ScaleBy()
			m.leTails = leTails(dm.Buckets)
		}
		if dm.Kind != doc.Count {
			if m.field = x.Field(dm.Field); m.field < 0 {
				return nil, fmt.Errorf("metric %s: no field %q", dm.Name, dm.Field)
			}
		}
		if dm.Where != nil {
			f := x.Field(dm.Where.Field)
			if f < 0 {
				return nil, fmt.Errorf("metric %s: no field %q", dm.Name, dm.Where.Field)
			}
			c := extract.NewCondition(f, dm.Where.Op, dm.Where.Value)
			m.where = &c
		}
		gk := fmt.Sprint(dm.By)
		gi, ok := byGroup[gk]
		if !ok {
			g := group{names: dm.By}
			for _, name := range dm.By {
				f := x.Field(name)
				if f < 0 {
					return nil, fmt.Errorf("metric %s: no field %q", dm.Name, name)
				}
				g.by = append(g.by, f)
			}
			gi = len(a.groups)
			byGroup[gk] = gi
			a.groups = append(a.groups, g)
		}
		g := &a.groups[gi]
		if len(g.metrics) == 64 {
			return nil, fmt.Errorf("metric %s: more than 64 metrics share by=%v", dm.Name, dm.By)
		}
		m.group, m.pos, m.bit = gi, g.stride, 1<<len(g.metrics)
		g.stride += m.slots()
		g.metrics = append(g.metrics, len(a.metrics))
		a.metrics = append(a.metrics, m)
	}
	return a, nil
}

// labelKey returns the bytes that identify e's series in group g: the one
// label value itself, or each value prefixed by its length. The result
// aliases a reused buffer or the entry.
func (a *aggregator) labelKey(g *group, e *extract.Entry) []byte {
	if len(g.by) == 1 {
		return e.Fields[g.by[0]]
	}
	k := a.key[:0]
	for _, f := range g.by {
		k = binary.AppendUvarint(k, uint64(len(e.Fields[f])))
		k = append(k, e.Fields[f]...)
	}
	a.key = k
	return k
}

// appendLabels appends g's labels for a series' key (labelKey reversed).
func appendLabels(labels []tape.Label, g *group, key string) []tape.Label {
	if len(g.by) == 1 {
		return append(labels, tape.Label{Name: g.names[0], Value: key})
	}
	for i := 0; len(key) > 0; i++ {
		n, w := binary.Uvarint([]byte(key[:min(len(key), binary.MaxVarintLen64)]))
		labels = append(labels, tape.Label{Name: g.names[i], Value: key[w : w+int(n)]})
		key = key[w+int(n):]
	}
	return labels
}

// value returns what e contributes to m, and whether it contributes: a
// where= that fails, or a min/max field that is not a number, contributes
// nothing; a sum field that is not a number contributes 0 (docs/design.md §4).
func (m *metric) value(e *extract.Entry) (float64, bool) {
	if m.where != nil && !m.where.Holds(e) {
		return 0, false
	}
	switch m.Kind {
	case doc.Count:
		return 1, true
	case doc.Sum:
		v, _ := e.Number(m.field) // 0 when not a number
		return v, true
	case doc.Histogram:
		v, ok := e.Number(m.field) // not a number: not observed, as for min and max
		return v * m.mul / m.div, ok
	}
	return e.Number(m.field)
}

// fold folds v into the metric's values of a series that has them.
func (m *metric) fold(vals []float64, v float64) {
	switch m.Kind {
	case doc.Min:
		vals[0] = min(vals[0], v)
	case doc.Max:
		vals[0] = max(vals[0], v)
	case doc.Histogram:
		m.observe(vals, v)
	default:
		vals[0] += v
	}
}

// first sets the metric's values of a series from its first value; a
// histogram's start at zero (create zeroes every slot).
func (m *metric) first(vals []float64, v float64) {
	if m.Kind == doc.Histogram {
		m.observe(vals, v)
		return
	}
	vals[0] = v
}

// observe counts v in the first bucket whose bound is at or above it (le:
// a value on a bound is in that bound's bucket), +Inf when none is, and
// adds it to the sum. A linear scan: a histogram has a dozen bounds, and
// most values fall in the first few.
func (m *metric) observe(vals []float64, v float64) {
	i := 0
	for i < len(m.Buckets) && v > m.Buckets[i] {
		i++
	}
	vals[i]++
	vals[len(m.Buckets)+1] += v
}

// leTails returns each bound's le label closing a label set, +Inf last.
func leTails(bounds []float64) []string {
	tails := make([]string, 0, len(bounds)+1)
	for _, b := range append(slices.Clone(bounds), math.Inf(1)) {
		tails = append(tails, doc.BoundLabel+`="`+string(tape.AppendValue(nil, b))+`"}`)
	}
	return tails
}

// add puts entry e (store st, bytes [pos, end)) into bucket b.
func (a *aggregator) add(b *Bucket, e *extract.Entry, st int, pos, end int64) {
	b.entries++
	if b.first[st] < 0 {
		b.first[st] = pos
	}
	for gi := range a.groups {
		g := &a.groups[gi]
		set := &b.series[gi]
		stride := g.stride
		key := a.labelKey(g, e)
		si := set.find(key)
		for _, mi := range g.metrics {
			m := &a.metrics[mi]
			v, ok := m.value(e)
			switch {
			case !ok:
			case si >= 0 && set.has[si]&m.bit != 0:
				m.fold(set.vals[int(si)*stride+m.pos:], v)
			case b.count[mi] >= a.cap:
				b.capped(mi, st, pos, end)
			default:
				if si < 0 {
					si = set.create(key, stride)
				}
				b.count[mi]++
				set.has[si] |= m.bit
				m.first(set.vals[int(si)*stride+m.pos:], v)
			}
		}
	}
}

// appendSeries appends b's series lines, sorted by metric (document order)
// then label bytes, so that a bucket's group reads the same on every run.
// Each group's series are sorted once, whatever its number of metrics.
func (a *aggregator) appendSeries(out []byte, b *Bucket, start []byte) []byte {
	sorted := -1 // the group a.order and a.labelSets are for
	for mi := range a.metrics {
		m := &a.metrics[mi]
		g := &a.groups[m.group]
		set := &b.series[m.group]
		if sorted != m.group {
			a.order, sorted = set.order(a.order), m.group
			a.escapeLabelSets(g)
		}
		from := 0
		for j, k := range a.order {
			ls := a.labelSets[from:a.labelEnds[j]]
			from = a.labelEnds[j]
			si := k.i
			if set.has[si]&m.bit == 0 {
				continue
			}
			vals := set.vals[int(si)*g.stride+m.pos:]
			if m.Kind == doc.Histogram {
				out = m.appendHistogram(out, start, ls, vals)
				continue
			}
			out = appendLine(out, start, m.Name, "", ls, vals[0])
		}
	}
	return out
}

// appendLine appends one series line: start, metric name and suffix,
// label set, value.
func appendLine(out, start []byte, name, suffix string, ls []byte, v float64) []byte {
	out = append(out, start...)
	out = append(out, ' ')
	out = append(out, name...)
	out = append(out, suffix...)
	out = append(out, ls...)
	out = append(out, ' ')
	out = tape.AppendValue(out, v)
	return append(out, '\n')
}

// appendHistogram appends a histogram series' lines in Prometheus's classic
// layout: NAME_bucket per bound, cumulative, le last among the labels and
// +Inf last, then NAME_sum and NAME_count.
func (m *metric) appendHistogram(out, start, ls []byte, vals []float64) []byte {
	var cum float64
	for i, tail := range m.leTails {
		cum += vals[i]
		out = append(out, start...)
		out = append(out, ' ')
		out = append(out, m.Name...)
		out = append(out, doc.BucketSuffix...)
		if len(ls) == 0 {
			out = append(out, '{')
		} else {
			out = append(out, ls[:len(ls)-1]...) // the label set open again for le
			out = append(out, ',')
		}
		out = append(out, tail...)
		out = append(out, ' ')
		out = tape.AppendValue(out, cum)
		out = append(out, '\n')
	}
	out = appendLine(out, start, m.Name, doc.SumSuffix, ls, vals[len(m.Buckets)+1])
	return appendLine(out, start, m.Name, doc.CountSuffix, ls, cum)
}

// escapeLabelSets escapes the label set ({name="value",...}) of each series
// of a.order, in order, into a.labelSets, each ending at its a.labelEnds: a
// group's metrics print the same label sets, escaped once.
func (a *aggregator) escapeLabelSets(g *group) {
	a.labelSets, a.labelEnds = a.labelSets[:0], a.labelEnds[:0]
	for _, k := range a.order {
		a.labels = appendLabels(a.labels[:0], g, k.key)
		a.labelSets = tape.AppendSeries(a.labelSets, "", a.labels)
		a.labelEnds = append(a.labelEnds, len(a.labelSets))
	}
}
