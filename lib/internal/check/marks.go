package check

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/timbertally/timbertally/lib/internal/doc"
	"github.com/timbertally/timbertally/lib/internal/tape"
)

// outcome is what re-deriving made of one entry: whether it extracted (and
// else why not), its bucket, and the series each metric took a value from
// it in.
type outcome struct {
	ok     bool
	reason string
	start  int64
	series []string // per metric, in document order: its series' text, "" for no value
}

// marks checks one store's !late, !cap and !drop markers against its
// entries as they are read, in position order: a marker's offset..end range
// holds exactly its count entries (docs/design.md §5: a marker covers one run of
// consecutive entries of one kind and bucket), each of its kind. A !late
// entry is of the marker's bucket; a !cap one too, with a value for the
// marker's metric in a series left off the tape (tally never starts a
// series once the cap is reached); a !drop one does not extract, for the
// marker's reason.
// The ranges of a skip's !drop markers are not here: they are no entries.
//
// Invariant: active holds the markers whose range contains the last
// position entered; list[next:] start after it.
type marks struct {
	list   []tape.Placed // by offset
	metric []int         // per marker: its metric's index (!cap), else -1
	next   int
	active []int
	count  []int64
	wrong  []string // per marker: the first entry not of its kind
	onTape func(start int64, series string) bool
	cov    cover // enter's, reused
	// Boundaries: ends lists the markers by end=; offAt and endAt say
	// whether a marker's offset= and end= fell where a line starts (or
	// at the end of what the tape knows); list[bo:] and ends[be:] are
	// those not yet passed.
	ends         []int
	offAt, endAt []bool
	bo, be       int
}

// cover is what the markers holding an entry cover of it: all of it (a
// !late), or its value for some metrics (!cap, by metric index).
type cover struct {
	late   bool
	capped []bool
	future bool // a !drop reason=future holds it
}

func newMarks(list []tape.Placed, metrics int, metricIndex func(string) int, onTape func(int64, string) bool) *marks {
	list = slices.Clone(list)
	slices.SortStableFunc(list, func(a, b tape.Placed) int { return cmp.Compare(a.Offset, b.Offset) })
	m := &marks{list: list, metric: make([]int, len(list)), count: make([]int64, len(list)), wrong: make([]string, len(list)),
		onTape: onTape, cov: cover{capped: make([]bool, metrics)},
		ends: make([]int, len(list)), offAt: make([]bool, len(list)), endAt: make([]bool, len(list))}
	for i := range m.ends {
		m.ends[i] = i
	}
	slices.SortStableFunc(m.ends, func(a, b int) int { return cmp.Compare(list[a].End, list[b].End) })
	for i, mk := range list {
		m.metric[i] = -1
		if mk.Kind == tape.Cap {
			m.metric[i] = metricIndex(mk.Metric)
		}
	}
	return m
}

// boundary notes that a line of the store starts at pos (or that pos is
// the end of what the tape knows of it); positions come in increasing
// order. A marker's range must start and end at such positions: its
// offset= where its first entry starts, its end= where its last one ends.
func (m *marks) boundary(pos int64) {
	for ; m.bo < len(m.list) && m.list[m.bo].Offset <= pos; m.bo++ {
		m.offAt[m.bo] = m.list[m.bo].Offset == pos
	}
	for ; m.be < len(m.ends) && m.list[m.ends[m.be]].End <= pos; m.be++ {
		m.endAt[m.ends[m.be]] = m.list[m.ends[m.be]].End == pos
	}
}

// enter makes the markers whose range holds the entry at pos the active
// ones, and returns what they cover of it (valid until the next enter).
func (m *marks) enter(pos int64) cover {
	for m.next < len(m.list) && m.list[m.next].Offset <= pos {
		m.active = append(m.active, m.next)
		m.next++
	}
	m.cov.late, m.cov.future = false, false
	clear(m.cov.capped)
	keep := m.active[:0]
	for _, i := range m.active {
		mk := &m.list[i]
		if mk.End <= pos {
			continue
		}
		keep = append(keep, i)
		switch {
		case mk.Kind == tape.Late:
			m.cov.late = true
		case mk.Kind == tape.Drop && mk.Reason == doc.ReasonFuture:
			m.cov.future = true
		case m.metric[i] >= 0:
			m.cov.capped[m.metric[i]] = true
		}
	}
	m.active = keep
	return m.cov
}

// hold counts the entry entered last in every marker holding it.
func (m *marks) hold(e outcome) {
	for _, i := range m.active {
		m.count[i]++
		if m.wrong[i] == "" {
			m.wrong[i] = m.mismatch(i, e)
		}
	}
}

// mismatch says how e is not an entry marker i can hold, or "".
func (m *marks) mismatch(i int, e outcome) string {
	mk := &m.list[i]
	switch {
	case mk.Kind == tape.Drop && e.ok:
		return fmt.Sprintf("holds an entry that extracts (bucket %s)", timeText(e.start))
	case mk.Kind == tape.Drop && e.reason != mk.Reason:
		return fmt.Sprintf("holds an entry dropped for reason=%s", e.reason)
	case mk.Kind == tape.Drop:
		return ""
	case !e.ok:
		return fmt.Sprintf("holds an entry that does not extract (reason=%s)", e.reason)
	case e.start != mk.Start:
		return fmt.Sprintf("holds an entry of bucket %s", timeText(e.start))
	case mk.Kind != tape.Cap:
		return ""
	case m.metric[i] < 0 || e.series[m.metric[i]] == "":
		return fmt.Sprintf("holds an entry with no value for metric %s", mk.Metric)
	case m.onTape != nil && m.onTape(mk.Start, e.series[m.metric[i]]):
		return fmt.Sprintf("holds an entry of %s, which is on the tape", e.series[m.metric[i]])
	}
	return ""
}

// findings returns, in tape line order, the markers whose range does not
// hold exactly count entries of their kind.
func (m *marks) findings() []finding {
	var fs []finding
	for i, mk := range m.list {
		text := tape.Append(nil, &mk.Record)
		text = text[:len(text)-1]
		switch {
		case m.count[i] != mk.Count:
			fs = append(fs, finding{mk.Line, fmt.Sprintf("%s: its range holds %d entries, not count=%d", text, m.count[i], mk.Count)})
		case m.wrong[i] != "":
			fs = append(fs, finding{mk.Line, fmt.Sprintf("%s: its range %s", text, m.wrong[i])})
		case !m.offAt[i]:
			fs = append(fs, finding{mk.Line, fmt.Sprintf("%s: its offset= is not where an entry starts", text)})
		case !m.endAt[i]:
			fs = append(fs, finding{mk.Line, fmt.Sprintf("%s: its end= is not where an entry ends", text)})
		}
	}
	return fs
}
