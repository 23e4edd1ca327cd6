package feed

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/timbertally/timbertally/lib/internal/store"
	"github.com/timbertally/timbertally/lib/protocol"
)

// goneScans is how many glob scans in a row (an idle tick apart) must find
// a store's file gone before it ends: a rename-and-create rotation leaves
// the path empty for a moment, a removal for good.
const goneScans = 2

// globber holds the --glob patterns of a run and every file that is, or
// was, one of its stores. Following, the patterns are matched again once
// an idle tick, and a new file joins the run.
type globber struct {
	patterns  []string
	paths     map[string]bool // the files of the run's stores, by path
	refused   map[string]bool // new files refused (and named) already
	seen      map[string]bool // the files the last scan matched
	rotated   []rotatedMatch  // at start: the matches that are rotated generations
	scannedAt time.Time
}

// expand returns the run's stores: those named, then every file the
// patterns match now (a file named or matched already is not a second
// store), and per store the pattern it matched ("" for a named one). Two
// stores of one id are refused, naming both files.
func (g *globber) expand(named []Store, patterns []string) ([]Store, []string, error) {
	g.patterns, g.paths, g.refused, g.seen = patterns, map[string]bool{}, map[string]bool{}, map[string]bool{}
	stores := append([]Store(nil), named...)
	globbed := make([]string, len(named))
	byID := map[string]string{}
	for _, st := range named {
		g.paths[st.Path], byID[st.ID] = true, st.Path
	}
	for _, p := range patterns {
		specs, rotated, err := store.Glob(p, g.isStore)
		if err != nil {
			return nil, nil, fmt.Errorf("feed: %w", err)
		}
		for _, r := range rotated {
			g.refused[r.Path] = true
			g.rotated = append(g.rotated, rotatedMatch{p, r})
		}
		for _, sp := range specs {
			if g.paths[sp.Path] {
				continue
			}
			if other, dup := byID[sp.ID]; dup {
				if i := slices.IndexFunc(named, func(st Store) bool { return st.ID == sp.ID }); i >= 0 {
					return nil, nil, fmt.Errorf("feed: the glob %q gives %s the id %s, the id of the store named %s: one store's positions would be taken for the other's; name that store under another id, or make the wildcards cover the part of the path that tells them apart", p, sp.Path, sp.ID, storeArg(named[i]))
				}
				return nil, nil, fmt.Errorf("feed: %w", store.IDClashError(p, sp.ID, other, sp.Path))
			}
			g.paths[sp.Path], byID[sp.ID] = true, sp.Path
			stores, globbed = append(stores, sp), append(globbed, p)
		}
	}
	return stores, globbed, nil
}

// isStore says whether path is the file of one of the run's stores.
func (g *globber) isStore(path string) bool { return g.paths[path] }

// rotatedMatch is a match of pattern that is a rotated generation.
type rotatedMatch struct {
	pattern string
	r       store.Rotated
}

// isHistory says whether path is an older generation a store of the run
// was named or born with (born: read from its birth).
func (f *feeder) isHistory(path string) bool {
	for _, s := range f.streams {
		if slices.Contains(s.History, path) {
			return true
		}
	}
	return false
}

// rotatedNote says a match is a rotated generation, not a store.
func rotatedNote(pattern string, r store.Rotated) string {
	return fmt.Sprintf("feed: %s matches --glob %s but is named as a rotated generation of %s: it is not a store, or a store's renamed file would be counted twice (to count it, re-derive that store named with its history, ID=GEN1,…,PATH, and --reset: docs/feed.md)", r.Path, pattern, r.Of)
}

// due is when the next glob scan is due, if there is one.
func (g *globber) due(follow bool, tick time.Duration) (time.Time, bool) {
	return g.scannedAt.Add(tick), follow && len(g.patterns) > 0
}

// scanGlobs, following, once an idle tick: every new regular file a
// pattern matches joins the run; a glob store whose file is gone, once it
// is read to its end, ends.
func (f *feeder) scanGlobs(now time.Time) error {
	g := &f.globs
	if due, ok := g.due(f.opt.Follow, f.opt.IdleTick); !ok || now.Before(due) {
		return nil
	}
	g.scannedAt = now
	clear(g.seen)
	for _, p := range g.patterns {
		paths, _ := filepath.Glob(p) // checked well formed on the command line
		// A link joins after the other matches: when its file is one of
		// them, that name is the store, and the link's is noted.
		paths = linksLast(paths, func(path string) bool { return g.paths[path] || g.refused[path] })
		for _, path := range paths {
			g.seen[path] = true
			if g.paths[path] || g.refused[path] {
				continue
			}
			if of := store.RotatedOf(path, g.isStore); of != "" {
				g.refused[path] = true
				if !f.isHistory(path) { // else born's note said what it is
					f.note("%s", rotatedNote(p, store.Rotated{Path: path, Of: of}))
				}
				continue
			}
			if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
				if err := f.join(p, path, fi); err != nil {
					return err
				}
			}
		}
	}
	for _, s := range f.streams {
		if g.seen[s.Path] {
			s.gone = 0
		}
		if s.glob != "" && !s.ended && !g.seen[s.Path] { // matched: it exists
			if err := f.checkGone(s); err != nil {
				return err
			}
		}
	}
	return nil
}

// join makes the file at path, new to the run and matching pattern, a
// store of the run: its store line goes out now, before its first batch,
// and it is read from its start (or where the cursor has it). A file that
// would take another store's id, or that is another store's file (a
// rotated name the pattern also matches), is named once and not read.
func (f *feeder) join(pattern, path string, fi os.FileInfo) error {
	g := &f.globs
	id := store.GlobID(pattern, path)
	if i, dup := f.led.ids[id]; dup {
		g.refused[path] = true
		f.warn("feed: %v; it is not read", store.IDClashError(pattern, id, f.streams[i].Path, path))
		return nil
	}
	for _, s := range f.streams {
		if isLink(path) && os.SameFile(fi, statOf(s.r)) {
			g.refused[path] = true
			f.note("%s", linkNote(path, pattern, s.Store))
			return nil
		}
		if os.SameFile(fi, statOf(s.r)) {
			g.refused[path] = true
			f.note("feed: %s matches --glob %s but is the file of store %s (%s), renamed: it is read as that store, not as a new one", path, pattern, s.ID, s.Path)
			return nil
		}
	}
	if other := f.claimedBy(id, path); other != "" {
		g.refused[path] = true
		f.note("feed: %s matches --glob %s but is a generation of store %s, renamed: its entries are that store's, not read again", path, pattern, other)
		return nil
	}
	s, err := f.openGlob(Store{ID: id, Path: path}, len(f.streams), true)
	if err != nil {
		g.refused[path] = true
		f.warn("%v; it is not read", err)
		return nil
	}
	s.glob, g.paths[path] = pattern, true
	f.streams = append(f.streams, s)
	f.led.add(id, s.r.Pos())
	f.cp.join(f.streams)
	f.note("feed: store %s: %s matches --glob %s: it joins the run from position %d", id, path, pattern, s.r.Pos())
	return f.write(appendStore(f.hdr[:0], s))
}

// statOf returns the info of the file a Reader reads now, nil if none.
func statOf(r *store.Reader) os.FileInfo {
	fi, _ := r.Stat()
	return fi
}

// checkGone ends a glob store whose file has been gone for goneScans scans
// in a row, once everything it held is delivered: "end id=" goes out, and
// the store reads nothing more in this run.
func (f *feeder) checkGone(s *stream) error {
	if _, err := os.Stat(s.Path); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if s.gone++; s.gone < goneScans || !s.dry || s.ready {
		return nil
	}
	s.ended = true
	f.note("feed: store %s: %s was removed; read to its end, it ends (end id=%s)", s.ID, s.Path, s.ID)
	return f.write(protocol.AppendEnd(f.hdr[:0], s.ID))
}

// appendStore appends store s's store line: its id, resume position, the
// identity of the generation holding it, where it came from, and how it
// is named (absolute: a tally store records it for the commands it and
// tgcheck advise). A store joining mid-run sends the same line.
func appendStore(b []byte, s *stream) []byte {
	g := s.r.GenAt(s.r.Pos())
	return protocol.AppendHeader(b, protocol.Header{Kind: protocol.KindStore, ID: s.ID, Offset: s.r.Pos(),
		Gen: protocol.Gen{Known: g.Known(), Base: g.Base, Sig: g.Sig, SigLen: g.SigLen}, From: s.from, Spec: s.Store.Abs().String()})
}

// absPath is path made absolute (as store.Spec.Abs makes a store's), ""
// for none.
func absPath(path string) string {
	if path == "" {
		return ""
	}
	return store.Spec{Path: path}.Abs().Path
}

// linksLast returns paths with the symbolic links among those not known
// (a new match is looked at once: an lstat each) after the others.
func linksLast(paths []string, known func(string) bool) []string {
	out := make([]string, 0, len(paths))
	var links []string
	for _, p := range paths {
		if !known(p) && isLink(p) {
			links = append(links, p)
		} else {
			out = append(out, p)
		}
	}
	return append(out, links...)
}
