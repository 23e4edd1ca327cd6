package store

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A file rewritten in place with the same first bytes (a banner longer
// than the signature) is refused at the cursor's position by its seam,
// and the same content is not.
func TestAFileRewrittenBehindTheSameFirstBytesIsRefusedByItsSeam(t *testing.T) {
	p := filepath.Join(t.TempDir(), "q.log")
	banner := strings.Repeat("=", 300) + "\n"
	old := banner + "line one\nline two\n"
	if err := os.WriteFile(p, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Open(p, 0, 1<<10)
	if err != nil {
		t.Fatal(err)
	}
	pos := int64(len(old))
	seam, ok := r.SeamAt(pos)
	g := r.GenAt(pos)
	r.Close()
	if !ok || seam.Len != SigSpan {
		t.Fatalf("SeamAt(%d) = %+v, %v; want 256 bytes bound", pos, seam, ok)
	}
	check := func() error {
		r, err := Resume(p, pos, g, 1<<10)
		if err != nil {
			t.Fatalf("Resume: %v (the first bytes are the same)", err)
		}
		defer r.Close()
		return r.CheckSeam(seam)
	}
	if err := check(); err != nil {
		t.Fatalf("the same content: %v", err)
	}
	if !HasSeam(p, g, pos, seam) {
		t.Fatal("HasSeam of the same content is false")
	}
	f, _ := os.OpenFile(p, os.O_WRONLY|os.O_TRUNC, 0)
	f.WriteString(banner + "line 111\nline 222\nline three\n")
	f.Close()
	var rep *ReplacedError
	if err := check(); !errors.As(err, &rep) || !rep.SameInode() || !strings.Contains(err.Error(), "bytes before the cursor's position differ") {
		t.Fatalf("rewritten behind the banner: %v; want a same-inode ReplacedError naming the seam", err)
	}
	if HasSeam(p, g, pos, seam) {
		t.Fatal("HasSeam of other content is true")
	}
}

// A cursor written with the store named by its path alone, the file then
// copied aside and truncated (copytruncate) and rewritten behind the same
// banner, resumes in the copy once the store is named with it as its
// older generation, gzip or not: the rest of the copy, then the file at
// the path, on one axis.
func TestAPathCursorResumesInTheCopyOnceTheHistoryNamesIt(t *testing.T) {
	for _, gz := range []bool{false, true} {
		dir := t.TempDir()
		banner := strings.Repeat("=", 300) + "\n"
		old, tail, next := banner+lines("old", 50), lines("tail", 20), banner+lines("new", 80)
		p := writeGen(t, dir, "q.log", old, false)
		r, err := Open(p, 0, DefaultMaxLine)
		if err != nil {
			t.Fatal(err)
		}
		pos := int64(len(old))
		seam, _ := r.SeamAt(pos)
		g := r.GenAt(pos)
		r.Close()
		name := "q.log.1"
		if gz {
			name += ".gz"
		}
		cp := writeGen(t, dir, name, old+tail, gz)
		f, _ := os.OpenFile(p, os.O_WRONLY|os.O_TRUNC, 0) // the same inode
		f.WriteString(next)
		f.Close()
		s := Spec{ID: "q", History: []string{cp}, Path: p}
		r = openSpec(t, s, Where{Pos: pos, Gen: g, Seam: seam})
		if got := joined(t, drain(t, r, 100, 1<<20), pos); got != tail+next {
			t.Fatalf("gzip %v: read %d bytes from %d, want the copy's tail and the new file (%d)", gz, len(got), pos, len(tail+next))
		}
	}
}
