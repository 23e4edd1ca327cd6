package store

import (
	"bytes"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Placed is one file of a store's list placed on the axis of the files
// concatenated (decompressed): where it begins, its complete lines, and
// whether its first bytes are the generation asked for (Spec.Place).
type Placed struct {
	Path  string
	Base  int64
	Lines int64
	Is    bool
}

// Place places every file of s on its axis, up to and including the first
// whose first sigLen bytes have CRC-32 sig (Is): what a check needs to see
// that the generation a tape began counting in (its bindings' first
// bytes) lies later in the list than where the tape had it, the files
// before it never fed. Files after that one are not read. The list is
// read once, decompressed where gzip.
func (s Spec) Place(sig uint32, sigLen int) ([]Placed, error) {
	var out []Placed
	var base int64
	for _, p := range s.Files() {
		o, err := openOlder(p)
		if err != nil {
			return nil, err
		}
		is := sigLen <= len(o.head) && crc32.ChecksumIEEE(o.head[:sigLen]) == sig
		n, lines, err := o.count()
		o.close()
		if err != nil {
			return nil, err
		}
		out = append(out, Placed{Path: p, Base: base, Lines: lines, Is: is})
		if is {
			return out, nil
		}
		base += n
	}
	return out, nil
}

// count reads o from its start to its end: its bytes and its complete
// lines.
func (o *older) count() (n, lines int64, err error) {
	if err := o.open(); err != nil {
		return 0, 0, err
	}
	buf := make([]byte, 256<<10)
	for {
		k, err := o.src.Read(buf)
		n += int64(k)
		lines += int64(bytes.Count(buf[:k], newline))
		switch {
		case errors.Is(err, io.EOF):
			return n, lines, nil
		case err != nil:
			return n, lines, o.readErr(err)
		}
	}
}

// RotatedSiblings returns the regular files beside path under a rotated
// name (path's name followed by ".1", ".2.gz", "-20261201": the names
// FindHistory and a rotation's check look under), oldest first by their
// last write.
func RotatedSiblings(path string) []string {
	dir, base := filepath.Split(path)
	entries, _ := os.ReadDir(filepath.Clean(dir + "."))
	type sib struct {
		path string
		at   time.Time
	}
	var sibs []sib
	for _, e := range entries {
		suffix, ok := strings.CutPrefix(e.Name(), base)
		if !ok || !e.Type().IsRegular() || !rotatedSuffix.MatchString(suffix) {
			continue
		}
		if fi, err := e.Info(); err == nil {
			sibs = append(sibs, sib{dir + e.Name(), fi.ModTime()})
		}
	}
	slices.SortStableFunc(sibs, func(a, b sib) int { return a.at.Compare(b.at) })
	out := make([]string, len(sibs))
	for i, s := range sibs {
		out[i] = s.path
	}
	return out
}
