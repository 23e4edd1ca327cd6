package store

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/timbertally/timbertally/lib/protocol"
)

// A glob names every regular file matching it as a store (filepath.Match's
// syntax: *, ?, [class], \ escapes; a wildcard never matches '/'). Each
// file's id is the text the wildcards matched: per path element holding a
// wildcard, the element less the pattern's literal text before its first
// wildcard and after its last, the elements' parts joined by '.'. A byte
// outside [A-Za-z0-9._-] becomes '_'; when the wildcards matched no text,
// the id is the file's base name. Two files of one id are refused.
//
// A match named like a rotated generation of another file (RotatedOf:
// access.log.1, access.log.2.gz, access.log-20261201 beside access.log) is
// not a store: it is that file's history, and a rename-and-create rotation
// would otherwise give the store's renamed file to a second store, its
// entries counted twice.

// CheckGlob says whether pattern is a glob feed can follow.
func CheckGlob(pattern string) error {
	if _, err := filepath.Match(pattern, ""); err != nil {
		return fmt.Errorf("store: the glob %q is malformed (%v); quote it from the shell and close every [ with ]", pattern, err)
	}
	if !hasMeta(pattern) {
		return fmt.Errorf("store: the glob %q has no wildcard (*, ? or [...]); name the file as PATH or ID=PATH instead", pattern)
	}
	return nil
}

// Rotated is a match of a glob that is another file's rotated generation.
type Rotated struct{ Path, Of string }

// Glob returns a store for every regular file matching pattern now, in
// path order, each with its id from GlobID, and the matches that are
// rotated generations (RotatedOf, isStore as there), which are not stores.
// Two files with one id are refused, naming both.
func Glob(pattern string, isStore func(string) bool) ([]Spec, []Rotated, error) {
	if err := CheckGlob(pattern); err != nil {
		return nil, nil, err
	}
	paths, _ := filepath.Glob(pattern) // the pattern is well formed
	sort.Strings(paths)
	var specs []Spec
	var rotated []Rotated
	byID := map[string]string{}
	for _, p := range paths {
		if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
			continue // gone since, or a directory: not a log file
		}
		if of := RotatedOf(p, isStore); of != "" {
			rotated = append(rotated, Rotated{p, of})
			continue
		}
		id := GlobID(pattern, p)
		if other, dup := byID[id]; dup {
			return nil, nil, IDClashError(pattern, id, other, p)
		}
		byID[id] = p
		specs = append(specs, Spec{ID: id, Path: p})
	}
	return specs, rotated, nil
}

// RotatedOf returns the file that path is a rotated generation of: a file
// beside it (or, per isStore, a store's path, empty for a moment in a
// rename-and-create rotation) whose name, followed by a rotated suffix
// (".1", ".2.gz", "-20261201": the suffixes a store's renamed generations
// are looked for under), is path's name. "" when there is none.
func RotatedOf(path string, isStore func(string) bool) string {
	dir, name := filepath.Split(path)
	for i := 1; i < len(name); i++ {
		if (name[i] != '.' && name[i] != '-') || !rotatedSuffix.MatchString(name[i:]) {
			continue
		}
		of := dir + name[:i]
		if isStore != nil && isStore(of) {
			return of
		}
		if fi, err := os.Stat(of); err == nil && fi.Mode().IsRegular() {
			return of
		}
	}
	return ""
}

// IDClashError says two files of a glob map to one id.
func IDClashError(pattern, id, a, b string) error {
	return fmt.Errorf("store: the glob %q gives %s and %s one id, %s (the text its wildcards matched): one store's positions would be taken for the other's; make the wildcards cover the part of the path that tells them apart, or name one as ID=PATH", pattern, a, b, id)
}

// GlobID returns the id of path, a match of pattern: see the rule above.
func GlobID(pattern, path string) string {
	pe, fe := strings.Split(pattern, "/"), strings.Split(path, "/")
	var parts []string
	for i, seg := range pe {
		if !hasMeta(seg) || i >= len(fe) {
			continue
		}
		pre, suf := literalEnds(seg)
		name := fe[i]
		if len(pre)+len(suf) <= len(name) {
			name = name[len(pre) : len(name)-len(suf)]
		}
		if name != "" {
			parts = append(parts, name)
		}
	}
	id := strings.Join(parts, ".")
	if id == "" {
		id = filepath.Base(path)
	}
	return sanitize(id)
}

// sanitize replaces every byte that may not be in an id with '_'.
func sanitize(s string) string {
	if protocol.ValidID(s) {
		return s
	}
	b := []byte(s)
	for i, c := range b {
		if !protocol.ValidID(string(c)) {
			b[i] = '_'
		}
	}
	return string(b)
}

// hasMeta says whether a pattern holds an unescaped wildcard.
func hasMeta(pattern string) bool {
	for i := 0; i < len(pattern); i++ {
		switch pattern[i] {
		case '\\':
			i++
		case '*', '?', '[':
			return true
		}
	}
	return false
}

// literalEnds returns the literal text (unescaped) of a path element's
// pattern before its first wildcard and after its last.
func literalEnds(seg string) (pre, suf string) {
	var lit strings.Builder
	first := true
	for i := 0; i < len(seg); i++ {
		c := seg[i]
		switch c {
		case '\\':
			if i+1 < len(seg) {
				i++
				c = seg[i]
			}
			lit.WriteByte(c)
			continue
		case '*', '?':
		case '[':
			i = classEnd(seg, i)
		default:
			lit.WriteByte(c)
			continue
		}
		if first {
			pre, first = lit.String(), false
		}
		lit.Reset()
	}
	return pre, lit.String()
}

// classEnd returns the index of the ']' closing the class opened at seg[i]
// (filepath.Match's rule: a ']' right after "[" or "[^" is a member).
func classEnd(seg string, i int) int {
	i++
	if i < len(seg) && seg[i] == '^' {
		i++
	}
	for n := 0; i < len(seg); i, n = i+1, n+1 {
		switch {
		case seg[i] == '\\':
			i++
		case seg[i] == ']' && n > 0:
			return i
		}
	}
	return len(seg) - 1
}
