package bucket

import (
	"encoding/binary"
	"fmt"
	"sort"

	"github.com/timbertally/timbertally/lib/doc"
	"github.com/timbertally/timbertally/lib/extract"
	"github.com/timbertally/timbertally/lib/tape"
)

// metric is a document metric compiled against an extractor's fields.
type metric struct {
	doc.Metric
	field int // the numeric field of sum/min/max; -1 for count
	where *where
	group int    // index in aggregator.groups
	pos   int    // index of its value in the group's slots
	bit   uint64 // its bit in a slot's has mask
}

type where struct {
	field int
	op    doc.Op
	value string
}

// group gathers the metrics that share one by= list, so that an entry costs
// one map lookup per distinct label set, not one per metric (the built-in
// documents have one group of two metrics).
type group struct {
	by      []int // field indices
	names   []string
	metrics []int
}

// slot is one series of a group in one bucket: a value per metric of the
// group, and a bit per metric saying whether that metric has a value yet.
type slot struct {
	has  uint64
	vals []float64
}

// aggregator computes a document's metrics into buckets.
type aggregator struct {
	metrics []metric
	groups  []group
	cap     int
	key     []byte // reused label key buffer
}

func newAggregator(d *doc.Doc, x *extract.Extractor) (*aggregator, error) {
	a := &aggregator{cap: d.Cap}
	byGroup := map[string]int{}
	for _, dm := range d.Metrics {
		m := metric{Metric: dm, field: -1}
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
			m.where = &where{f, dm.Where.Op, dm.Where.Value}
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
		m.group, m.pos, m.bit = gi, len(g.metrics), 1<<len(g.metrics)
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

// labelValues reverses labelKey.
func labelValues(g *group, key string) []string {
	if len(g.by) == 1 {
		return []string{key}
	}
	vals := make([]string, 0, len(g.by))
	for len(key) > 0 {
		n, w := binary.Uvarint([]byte(key[:min(len(key), binary.MaxVarintLen64)]))
		vals = append(vals, key[w:w+int(n)])
		key = key[w+int(n):]
	}
	return vals
}

// value returns what e contributes to m, and whether it contributes: a
// where= that fails, or a min/max field that is not a number, contributes
// nothing; a sum field that is not a number contributes 0 (SPEC §4).
func (m *metric) value(e *extract.Entry) (float64, bool) {
	if m.where != nil && !extract.Compare(e.Fields[m.where.field], m.where.op, m.where.value) {
		return 0, false
	}
	switch m.Kind {
	case doc.Count:
		return 1, true
	case doc.Sum:
		v, _ := extract.Number(e.Fields[m.field])
		return v, true
	}
	return extract.Number(e.Fields[m.field])
}

func (m *metric) fold(old, v float64) float64 {
	switch m.Kind {
	case doc.Min:
		return min(old, v)
	case doc.Max:
		return max(old, v)
	}
	return old + v
}

// add puts entry e (store st, bytes [pos, end)) into bucket b.
func (a *aggregator) add(b *Bucket, e *extract.Entry, st int, pos, end int64) {
	b.entries++
	if b.first[st] < 0 {
		b.first[st] = pos
	}
	for gi := range a.groups {
		g := &a.groups[gi]
		key := a.labelKey(g, e)
		s := b.series[gi][string(key)]
		for _, mi := range g.metrics {
			m := &a.metrics[mi]
			v, ok := m.value(e)
			switch {
			case !ok:
			case s != nil && s.has&m.bit != 0:
				s.vals[m.pos] = m.fold(s.vals[m.pos], v)
			case b.count[mi] >= a.cap:
				b.capped(mi, st, pos, end)
			default:
				if s == nil {
					s = &slot{vals: make([]float64, len(g.metrics))}
					b.series[gi][string(key)] = s
				}
				b.count[mi]++
				s.has |= m.bit
				s.vals[m.pos] = v
			}
		}
	}
}

// appendSeries appends b's series lines, sorted by metric (document order)
// then label bytes, so that a bucket's group reads the same on every run.
func (a *aggregator) appendSeries(out []byte, b *Bucket, start []byte) []byte {
	type line struct {
		metric int
		key    string
		val    float64
	}
	var lines []line
	for gi, series := range b.series {
		for key, s := range series {
			for _, mi := range a.groups[gi].metrics {
				if m := &a.metrics[mi]; s.has&m.bit != 0 {
					lines = append(lines, line{mi, key, s.vals[m.pos]})
				}
			}
		}
	}
	sort.Slice(lines, func(i, j int) bool {
		if lines[i].metric != lines[j].metric {
			return lines[i].metric < lines[j].metric
		}
		return lines[i].key < lines[j].key
	})
	var labels []tape.Label
	for _, l := range lines {
		m := &a.metrics[l.metric]
		g := &a.groups[m.group]
		labels = labels[:0]
		for i, v := range labelValues(g, l.key) {
			labels = append(labels, tape.Label{Name: g.names[i], Value: v})
		}
		out = append(out, start...)
		out = append(out, ' ')
		out = tape.AppendSeries(out, m.Name, labels)
		out = append(out, ' ')
		out = tape.AppendValue(out, l.val)
		out = append(out, '\n')
	}
	return out
}
