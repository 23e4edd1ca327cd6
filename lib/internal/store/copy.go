package store

import (
	"io"
	"os"
	"path/filepath"
	"strings"
)

// FindCopy returns the file beside path, under a rotated name, that begins
// with generation g's first bytes, decompressed when it is gzip, and holds
// seam s before position pos, but is not the file at path: where a
// copytruncate while feed was down put the content the cursor was reading
// (a copy has another inode, so the cursor's identity does not find it),
// or where a rotation moved it and compressed it since. "" when there is
// none, or g signs no bytes.
func FindCopy(path string, g Gen, pos int64, s Seam) string {
	if g.SigLen == 0 {
		return ""
	}
	at, err := os.Stat(path)
	if err != nil {
		return ""
	}
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		return ""
	}
	base := filepath.Base(path)
	for _, e := range entries {
		suffix, ok := strings.CutPrefix(e.Name(), base)
		if !ok || !e.Type().IsRegular() || !rotatedSuffix.MatchString(suffix) {
			continue
		}
		p := filepath.Join(filepath.Dir(path), e.Name())
		if isCopy(p, at, g, pos-g.Base, s) {
			return p
		}
	}
	return ""
}

// isCopy says whether the file at p is not at, begins with g's bytes and
// holds seam s before byte off.
func isCopy(p string, at os.FileInfo, g Gen, off int64, s Seam) bool {
	if fi, err := os.Stat(p); err != nil || os.SameFile(fi, at) {
		return false
	}
	o, err := openOlder(p)
	return err == nil && o.matches(g.id()) && o.hasSeam(off, s)
}

// beginsAs says whether the file at p, decompressed when it is gzip,
// begins with generation id's first bytes.
func beginsAs(p string, id GenID) bool {
	if id.SigLen == 0 {
		return false
	}
	o, err := openOlder(p)
	if err != nil {
		return false
	}
	defer o.close()
	return o.matches(id)
}

// ContentSize returns how many bytes the file at path holds, decompressed
// when it is gzip: how far a copy found by FindCopy reaches on the store's
// axis from its generation's base.
func ContentSize(path string) (int64, error) {
	o := &older{path: path}
	if err := o.open(); err != nil {
		return 0, err
	}
	defer o.close()
	n, err := io.Copy(io.Discard, o.src)
	if err != nil {
		return 0, o.readErr(err)
	}
	return n, nil
}
