package check

import (
	"fmt"
	"maps"
	"slices"

	"github.com/timbertally/timbertally/lib/internal/tape"
)

// sealAt is where a sealed bucket's seal puts one store: the position of its
// first entry not considered for the bucket (docs/design.md §5), and the seal's line.
type sealAt struct {
	Pos  int64
	Line int
}

// sealAts returns, per sealed bucket, the at= position its last seal gives
// store id; a seal that does not list the store considered none of its
// entries (position 0: a store first fed after that seal).
func sealAts(t *tape.Resolved, id string) map[int64]sealAt {
	ats := make(map[int64]sealAt, len(t.Seals))
	for start, seals := range t.Seals {
		last := seals[len(seals)-1]
		at := sealAt{Line: last.Line}
		for _, p := range last.At {
			if p.ID == id {
				at.Pos = p.Pos
			}
		}
		ats[start] = at
	}
	return ats
}

// seals checks one store's entries against the at= of their buckets'
// seals: an entry before it is in the bucket (or its !cap), one at or after
// it is !late.
type seals struct {
	id    string
	ats   map[int64]sealAt
	wrong map[int64]*atWrong
}

// atWrong counts the entries of one bucket on the wrong side of its at=.
type atWrong struct {
	lateBefore, placedAfter int64
	first                   int64 // the first such entry's position
}

func newSeals(id string, ats map[int64]sealAt) *seals {
	return &seals{id: id, ats: ats, wrong: map[int64]*atWrong{}}
}

// check notes the entry at pos, late or not, if its bucket's seal puts it
// on the wrong side.
func (s *seals) check(pos int64, e outcome, late bool) {
	if !e.ok {
		return
	}
	at, ok := s.ats[e.start]
	if !ok || (pos < at.Pos) != late {
		return
	}
	w := s.wrong[e.start]
	if w == nil {
		w = &atWrong{first: pos}
		s.wrong[e.start] = w
	}
	if late {
		w.lateBefore++
	} else {
		w.placedAfter++
	}
}

// findings returns a finding per seal some entries contradict, at its line.
func (s *seals) findings() []finding {
	var fs []finding
	for _, start := range slices.Sorted(maps.Keys(s.wrong)) {
		w, at := s.wrong[start], s.ats[start]
		fs = append(fs, finding{at.Line, fmt.Sprintf("seal %s at=%s:%d: %d entries of the bucket before it are !late and %d at or after it are not (the first at %d)",
			timeText(start), s.id, at.Pos, w.lateBefore, w.placedAfter, w.first)})
	}
	return fs
}
