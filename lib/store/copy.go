package store

import (
	"os"
	"path/filepath"
	"strings"
)

// FindCopy returns the file beside path, under a rotated name, that begins
// with generation g's first bytes but is not the file at path: where a
// copytruncate while feed was down put the content the cursor was reading
// (a copy has another inode, so the cursor's identity does not find it).
// "" when there is none, or g signs no bytes.
func FindCopy(path string, g Gen) string {
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
		if isCopy(p, at, g) {
			return p
		}
	}
	return ""
}

// isCopy says whether the file at p is not at and begins with g's bytes.
func isCopy(p string, at os.FileInfo, g Gen) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || os.SameFile(fi, at) {
		return false
	}
	sig, err := sign(f, g.SigLen)
	return err == nil && sig == g.Sig
}
