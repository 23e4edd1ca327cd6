package feed

import (
	"os"

	"github.com/timbertally/timbertally/lib/internal/store"
)

// A glob's file is read from its birth. A file born and rotated before
// feed first read it (within one scan, or while feed was down) has its
// first generation beside it under a rotated name, which no store read:
// taking the file at the path from position 0 would leave it uncounted,
// without a word. So a glob store new to the cursor starts with its newest
// rotated sibling that no store has read (access.log.1, .1.gz, -20261205:
// the names docs/feed.md's rules recognise; newest by modification time)
// as its older generation, as if named ID=SIBLING,PATH; the cursor records
// it, and a later run names it again from that record, so that a restart
// and a re-derivation (--reset) on that cursor place every byte where this
// run did. One sibling, not all: a file rotated once before feed read it
// has one, and a glob's first run over a log directory must not read
// months of older generations nobody asked for.

// born returns glob store st with its history: the generations the cursor
// recorded it with, found beside its path by their first bytes, or, for a
// store the cursor does not know, its newest rotated sibling no store has
// read (with that file's info; nil when there is none).
func (f *feeder) born(st Store) (Store, os.FileInfo) {
	if m, ok := f.cp.cur[st.ID]; ok {
		if len(m.Gens) > 0 {
			if found, missing := store.FindHistory(st.Path, m.Gens); missing == 0 && len(found) > 0 {
				st.History = found
			}
		}
		return st, nil
	}
	sibs := store.RotatedSiblings(st.Path)
	for k := len(sibs) - 1; k >= 0; k-- {
		fi, err := os.Stat(sibs[k])
		if err != nil || f.claimedBy(st.ID, sibs[k]) != "" {
			continue
		}
		st.History = []string{sibs[k]}
		return st, fi
	}
	return st, nil
}

// openGlob opens glob store st, the run's i-th, from its birth (born). A
// rotation between the look at its siblings and the open leaves the file
// opened a generation after the one looked at, its first generation a
// sibling now: looked at again, up to three times.
func (f *feeder) openGlob(st Store, i int, joins bool) (*stream, error) {
	for try := 0; ; try++ {
		b, sib := f.born(st)
		s, err := f.openStream(b, i, true, joins)
		if err != nil || try == 2 || !f.rotatedMeanwhile(b, sib, s) {
			if err == nil && sib != nil {
				f.note("feed: store %s: %s was rotated before feed first read it: %s, which no store has read, is read first, as its first generation (the store is %s; the cursor records it)",
					b.ID, b.Path, b.History[0], storeArg(b))
			}
			return s, err
		}
		s.r.Close()
	}
}

// rotatedMeanwhile says whether store st (new to the cursor), opened as s
// with sibling sib as its first generation (nil: none), has another newest
// unread sibling now that is not the file s reads: its file was rotated
// between the look and the open.
func (f *feeder) rotatedMeanwhile(st Store, sib os.FileInfo, s *stream) bool {
	if _, known := f.cp.cur[st.ID]; known {
		return false
	}
	_, fi := f.born(Store{ID: st.ID, Path: st.Path})
	if fi == nil || (sib != nil && os.SameFile(fi, sib)) {
		return false
	}
	if cur := statOf(s.r); cur != nil && os.SameFile(fi, cur) {
		return false // the file s reads, renamed since: s follows it
	}
	return true
}
