package feed

import (
	"github.com/timbertally/timbertally/lib/internal/store"
)

// warnTruncated says, for one truncation in place of store s (old was
// the generation, cut at position at), what it cost in this very case:
// whether its copy lies beside the path under a rotated name, and whether
// feed had read all of it. Lines written between logrotate's copy and its
// truncate are in neither file, whatever feed does: said, not claimed
// counted.
func (f *feeder) warnTruncated(s *stream, old store.Gen, at int64) {
	read := at - old.Base
	cp := store.FindCopy(s.Path, old, old.Base, store.Seam{})
	if cp == "" {
		f.warn("feed: warning: store %s was truncated in place at position %d, and no file beside %s under a rotated name begins as it did (cut by hand, or its copy was put elsewhere): what was written to it after feed's last read and before the cut is lost, and feed cannot tell how much", s.ID, at, s.Path)
		return
	}
	n, err := store.ContentSize(cp)
	switch {
	case err != nil:
		f.warn("feed: warning: store %s was truncated in place at position %d (copytruncate; its copy is %s, which cannot be read: %v): lines written between the copy and the truncate are in neither file", s.ID, at, cp, err)
	case n > read:
		st := s.Store
		st.History = append(append([]string(nil), st.History...), cp)
		f.warn("feed: warning: store %s was truncated in place at position %d (copytruncate; its copy is %s): the copy's last %d bytes were written before the copy and not yet read by feed, and are not counted; to count them, re-derive, both steps in this order: %s. Lines written between the copy and the truncate are in neither file",
			s.ID, at, cp, n-read, f.remake(f.argv(st, storeArg(st), true)))
	default:
		f.warn("feed: warning: store %s was truncated in place at position %d (copytruncate; its copy is %s): feed had read all of the copy; lines written between the copy and the truncate, if any, are in neither file, and nothing can count them (a rename-and-create rotation loses none while its server reopens within --rotate-wait)", s.ID, at, cp)
	}
}
