package store

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/timbertally/timbertally/lib/protocol"
)

// DefaultMaxLine is the longest entry, in bytes before its '\n', that a store
// delivers by default; a longer line becomes a skip.
const DefaultMaxLine = 1 << 20

// Spec is a store as the command line names it: its id, the files of its
// older generations (oldest first: read once, from their start, before
// Path) and the file at its path now.
type Spec struct {
	ID      string
	History []string
	Path    string
}

// ParseSpec reads a command-line store: "PATH", "ID=PATH" or, with the
// store's older generations oldest first, "ID=GEN1,GEN2,…,PATH". The
// default id is the file's base name when it matches [A-Za-z0-9._-]+;
// otherwise the caller must name the store. Only the ID= form splits on
// commas: a plain PATH is one file, whatever it holds.
func ParseSpec(arg string) (Spec, error) {
	if name, list, ok := strings.Cut(arg, "="); ok && protocol.ValidID(name) {
		if list == "" {
			return Spec{}, fmt.Errorf("store: %q names store %s but no file; write ID=PATH, or ID=GEN1,…,PATH with its older generations", arg, name)
		}
		files := strings.Split(list, ",")
		for i, f := range files {
			if f == "" {
				return Spec{}, fmt.Errorf("store: %q has an empty file name in its list; write ID=GEN1,GEN2,…,PATH, the older generations oldest first, separated by single commas", arg)
			}
			if j := slices.Index(files[:i], f); j >= 0 {
				return Spec{}, fmt.Errorf("store: %q names %s twice: its entries would be counted twice; name each generation once", arg, f)
			}
		}
		last := len(files) - 1
		return Spec{ID: name, History: slices.Clip(files[:last]), Path: files[last]}, nil
	} else if ok && !strings.Contains(name, "/") {
		return Spec{}, fmt.Errorf("store: in %q, the id %q is not [A-Za-z0-9._-]+; write ID=PATH with such an id", arg, name)
	}
	if arg == "" {
		return Spec{}, fmt.Errorf("store: an empty store argument; write PATH or ID=PATH")
	}
	base := filepath.Base(arg)
	if !protocol.ValidID(base) {
		return Spec{}, fmt.Errorf("store: the file name of %q is not an id ([A-Za-z0-9._-]+); name it ID=PATH", arg)
	}
	return Spec{ID: base, Path: arg}, nil
}

// Files returns every file of s, oldest first: its history, then Path.
func (s Spec) Files() []string { return append(slices.Clone(s.History), s.Path) }

// String is s as the command line names it, the inverse of ParseSpec:
// ID=PATH, or ID=GEN1,…,PATH with its history. Advice that names a store
// spells it so, the operator's history included. A PATH holding a comma
// (possible only without history, named by itself) is PATH alone.
func (s Spec) String() string {
	if len(s.History) == 0 && strings.Contains(s.Path, ",") {
		return s.Path
	}
	return s.ID + "=" + strings.Join(s.Files(), ",")
}

// Abs is s with every path absolute (as filepath.Abs makes it, from the
// working directory), so that a command written from it runs the same
// from any directory: a tally store records it, and tgcheck and tally
// advise it later, elsewhere. A path Abs cannot make absolute is kept.
func (s Spec) Abs() Spec {
	abs := func(p string) string {
		if a, err := filepath.Abs(p); err == nil {
			return a
		}
		return p
	}
	out := Spec{ID: s.ID, Path: abs(s.Path)}
	for _, h := range s.History {
		out.History = append(out.History, abs(h))
	}
	return out
}
