package store

import (
	"fmt"
	"hash/crc32"
	"io"
	"os"
)

// Seam binds a resume position to the bytes just before it: the CRC-32
// of the (up to SigSpan) bytes of its generation's file that end at the
// position. A generation's signature covers only its first bytes, and a
// log that begins with a constant banner, truncated in place and written
// again, keeps them: the seam is what tells that the bytes the cursor
// stood behind are no longer there.
type Seam struct {
	Sig uint32 // CRC-32 (IEEE) of the Len bytes before the position
	Len int    // 0..SigSpan; 0: nothing is bound (a position at its generation's start, or an older cursor)
}

// SeamAt returns the seam of position pos, read (one pread) from the file
// being read when pos lies in it; ok is false for a position in an
// earlier generation, whose file is no longer open (or an older
// generation named with the store, read in turn, perhaps compressed),
// for a file not there yet, and for a file that no longer holds the
// bytes (truncated since: the reader sees it at its next read).
func (r *Reader) SeamAt(pos int64) (s Seam, ok bool) {
	if r.f == nil || len(r.olds) > 0 {
		return Seam{}, false
	}
	g := r.gen()
	at := pos - g.Base
	if at < 0 {
		return Seam{}, false
	}
	n := int(min(at, SigSpan))
	if n == 0 {
		return Seam{}, true
	}
	if got, _ := r.f.ReadAt(r.seamBuf[:n], at-int64(n)); got != n {
		return Seam{}, false
	}
	return Seam{Sig: crc32.ChecksumIEEE(r.seamBuf[:n]), Len: n}, true
}

// CheckSeam refuses, with a *ReplacedError, a file whose bytes before the
// resume position are not the seam s the cursor recorded there: the file
// was rewritten in place (a copytruncate while feed was down, the new
// content beginning as the old one did), and resuming would start in the
// middle of other content, its lines before the position never read.
// A position in an older generation named with the store is not checked
// (it has no byte to read back to; its signature is).
func (r *Reader) CheckSeam(s Seam) error {
	if s.Len == 0 || r.f == nil || len(r.olds) > 0 || r.Pos() == r.gen().Base {
		return nil // nothing to read back to (at a generation's start: another file's bytes)
	}
	got, ok := r.SeamAt(r.Pos())
	if ok && got == s {
		return nil
	}
	g := *r.gen()
	fi, err := r.f.Stat()
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	dev, ino := identity(fi)
	return &ReplacedError{Path: r.path, Was: g, Dev: dev, Ino: ino,
		Why: fmt.Sprintf("same inode and first %d bytes, but the %d bytes before the cursor's position differ: rewritten in place", g.SigLen, s.Len)}
}

// HasSeam says whether the file at path holds seam s before position pos
// of generation g (true when s binds nothing): with IsGen, whether the
// file is still the content a cursor stood in, not other content of the
// same inode that begins with the same bytes.
func HasSeam(path string, g Gen, pos int64, s Seam) bool {
	at := pos - g.Base
	if s.Len == 0 {
		return true
	}
	if at < int64(s.Len) {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	b := make([]byte, s.Len)
	if n, _ := f.ReadAt(b, at-int64(s.Len)); n != s.Len {
		return false
	}
	return crc32.ChecksumIEEE(b) == s.Sig
}

// holding returns which of a store's generations holds a cursor's position
// w when the cursor was written with the store named by its path alone and
// the store is now named with its history: the file at the path while it
// is still the cursor's (its identity, first bytes and seam), else the
// latest older generation with the cursor's first bytes and seam (the
// copy a copytruncate made, perhaps compressed since), else the path
// (len(olds)), whose check then says what changed.
func holding(s Spec, olds []*older, w Where) int {
	if IsGen(s.Path, w.Gen) && HasSeam(s.Path, w.Gen, w.Pos, w.Seam) {
		return len(olds)
	}
	for i := len(olds) - 1; i >= 0; i-- {
		if olds[i].matches(w.Gen.id()) && olds[i].hasSeam(w.Pos-w.Gen.Base, w.Seam) {
			return i
		}
	}
	return len(olds)
}

// hasSeam says whether the generation's bytes, decompressed, hold seam sm
// before byte at: read from its start (a gzip stream has no other way),
// once, when a cursor is first resumed in a named history.
func (o *older) hasSeam(at int64, sm Seam) bool {
	if sm.Len == 0 {
		return true
	}
	if at < int64(sm.Len) || o.open() != nil {
		return false
	}
	defer o.close()
	if _, err := io.CopyN(io.Discard, o.src, at-int64(sm.Len)); err != nil {
		return false
	}
	b := make([]byte, sm.Len)
	if _, err := io.ReadFull(o.src, b); err != nil {
		return false
	}
	return crc32.ChecksumIEEE(b) == sm.Sig
}
