package feed

import (
	"fmt"
	"slices"

	"github.com/timbertally/timbertally/lib/internal/store"
	"github.com/timbertally/timbertally/lib/internal/tallystore"
)

// drainNotes is what was said of a store's renamed generation being read
// on (store.Options.Drain): once a drain, each.
type drainNotes struct {
	begun bool // the drain's note is printed
	gone  bool // the note that the renamed file lost its name is printed
}

// draining says whether the store is reading on its renamed generation,
// the new file waiting: it is not at its live edge (no idle goes out, or
// tally would seal the buckets the new file's lines belong to).
func (s *stream) draining() bool {
	d, _ := s.r.Draining()
	return d
}

// noteDrain says once when a store starts reading on a renamed
// generation, once if it loses its name meanwhile, and warns of every
// writer later than the drain.
func (f *feeder) noteDrain(s *stream) {
	d, gone := s.r.Draining()
	if !d {
		s.drained = drainNotes{}
	}
	if d && !s.drained.begun {
		s.drained.begun = true
		f.note("feed: store %s was rotated (renamed): its renamed file%s is read on until it has been quiet for %v (--rotate-wait; its server may still write to it: nginx until it reopens its log, Apache's old children until their requests end), then %s from where it ends",
			s.ID, named(s.r.DrainingName()), f.opt.RotateWait, s.Path)
	}
	if d && gone && !s.drained.gone {
		s.drained.gone = true
		f.note("feed: store %s: the renamed file feed is reading on was removed meanwhile (logrotate's compress without delaycompress?): feed reads it to its end through the file it holds open, each byte once; a re-derivation names the compressed copy in its place, which holds what was written before it was made",
			s.ID)
	}
	for _, l := range s.r.TakeLate() {
		f.warnLate(s, l)
	}
}

// warnLate warns of bytes appended to a generation after feed moved past
// it: they lie at no position of the store, and only a re-derivation
// naming the generation counts them.
func (f *feeder) warnLate(s *stream, l store.Late) {
	name, hist := l.Path, l.Path
	if name == "" {
		name, hist = "the generation before position "+fmt.Sprint(l.Gen.Base+l.From)+" (no name left: compressed or removed)", "GEN"
	}
	st := s.Store
	st.History = append(slices.Clone(st.History), hist)
	dir := tallystore.RunDir(f.opt.Consumer)
	f.warn("feed: warning: store %s: %d bytes were appended to %s after it had been quiet for --rotate-wait %v and feed had moved on to %s (at position %d): a writer later than the drain; this run does not count them. To count them, re-derive, both steps in this order: %s (check it with tgcheck --against %s %s)",
		s.ID, l.Bytes, name, f.opt.RotateWait, s.Path, l.Gen.Base+l.From,
		f.remake(f.argv(st, storeArg(st), true)), storeArg(st), dir)
}

// named is " NAME" for a file's name, "" when it has none.
func named(path string) string {
	if path == "" {
		return ""
	}
	return " " + path
}
