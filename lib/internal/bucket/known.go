package bucket

import (
	"slices"
	"sort"

	"github.com/timbertally/timbertally/lib/internal/tape"
)

// Known is what a tape already accounts for, as far as a replay from the
// resume positions can meet it: the seals with their at= positions, the
// marker ranges, and each store's frontier (the furthest position any
// record covers).
//
// Records are added newest first, from a backward scan of the tape's tail.
// Enough reports when the scan may stop: once, for every resumed store, a
// seal (or end) record lists it at or before its resume position. Every
// record older than such a seal reaches no further for that store: a seal's
// at= is the position processed when it was written, and a run seals
// nothing until it has replayed past everything the tape already covers
// (the Roller's catch-up), so no older record, of this run or an earlier
// one, can reach past it. Markers prove nothing of the kind (a run that
// resumes from an older cursor writes markers for low positions after
// higher ones), so they never end the scan.
type Known struct {
	resume   map[string]int64
	done     map[string]bool
	seals    map[int64][]tape.Pos // bucket start → at=
	lastSeal int64
	hasSeal  bool
	lastLate int64 // the newest bucket a !late marker names: closed, sealed or not
	hasLate  bool
	spans    map[string][]span
	frontier map[string]int64
	lastEnd  []tape.Pos
	hasEnd   bool
}

// span is the range of a marker already on the tape.
type span struct{ offset, end int64 }

// NewKnown returns an empty Known for a replay from the resume positions.
func NewKnown(resume map[string]int64) *Known {
	return &Known{resume: resume, done: map[string]bool{}, seals: map[int64][]tape.Pos{},
		spans: map[string][]span{}, frontier: map[string]int64{}}
}

// Add records one tape record; records come newest first.
func (k *Known) Add(rec *tape.Record) {
	switch rec.Kind {
	case tape.Seal:
		if !k.hasSeal {
			k.lastSeal, k.hasSeal = rec.Start, true
		}
		if _, dup := k.seals[rec.Start]; !dup {
			k.seals[rec.Start] = slices.Clone(rec.At)
		}
		k.covers(rec.At)
	case tape.End:
		if !k.hasEnd && len(k.seals) == 0 && len(k.spans) == 0 {
			k.lastEnd, k.hasEnd = slices.Clone(rec.At), true
		}
		k.covers(rec.At)
	case tape.Late, tape.Drop, tape.Cap:
		if rec.Kind == tape.Late && (!k.hasLate || rec.Start > k.lastLate) {
			k.lastLate, k.hasLate = rec.Start, true
		}
		k.spans[rec.ID] = append(k.spans[rec.ID], span{rec.Offset, rec.End})
		k.extend(rec.ID, rec.End)
	}
}

// covers notes a seal's or an end's positions: a store listed at or before
// its resume position needs nothing older.
func (k *Known) covers(at []tape.Pos) {
	for _, p := range at {
		k.extend(p.ID, p.Pos)
		if r, ok := k.resume[p.ID]; ok && p.Pos <= r {
			k.done[p.ID] = true
		}
	}
}

// extend notes that a record covers store id up to pos.
func (k *Known) extend(id string, pos int64) {
	k.frontier[id] = max(k.frontier[id], pos)
}

// Enough reports whether the records added so far hold everything a replay
// from the resume positions can meet, and the last seal.
func (k *Known) Enough() bool {
	if !k.hasSeal {
		return false
	}
	for id := range k.resume {
		if !k.done[id] {
			return false
		}
	}
	return true
}

// merge adds what o, from a scan for store id alone, knows of id: its
// frontier, its marker spans, and the seals this Known's scan stopped short of.
func (k *Known) merge(id string, o *Known) {
	k.spans[id] = o.spans[id]
	k.extend(id, o.frontier[id])
	for start, at := range o.seals {
		if _, ok := k.seals[start]; !ok {
			k.seals[start] = at
		}
	}
}

// Frontier returns the furthest position of store id that the records
// added so far cover: a resume position beyond it has entries before it
// that no record accounts for.
func (k *Known) Frontier(id string) int64 { return k.frontier[id] }

// forStore returns a store's frontier and its marker spans, sorted.
func (k *Known) forStore(id string) (int64, []span) {
	s := k.spans[id]
	sort.Slice(s, func(i, j int) bool { return s[i].offset < s[j].offset })
	return k.frontier[id], s
}

// at returns the at= position of store id in the seal of the bucket at
// start, and whether that bucket is sealed on the tape. A store the seal
// does not list had nothing considered for it: position 0.
func (k *Known) at(start int64, id string) (int64, bool) {
	at, ok := k.seals[start]
	if !ok {
		return 0, false
	}
	for _, p := range at {
		if p.ID == id {
			return p.Pos, true
		}
	}
	return 0, true
}

// sameEnd reports whether the tape's last record is an end record with
// exactly these positions.
func (k *Known) sameEnd(at []tape.Pos) bool {
	return k.hasEnd && slices.Equal(k.lastEnd, at)
}

// covered reports whether a marker already on the tape holds pos.
func (s *storeState) covered(pos int64) bool {
	i := sort.Search(len(s.spans), func(i int) bool { return s.spans[i].end > pos })
	return i < len(s.spans) && s.spans[i].offset <= pos
}
