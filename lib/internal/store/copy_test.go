package store

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FindCopy finds the copy a copytruncate made (another inode, the same
// first bytes) under a rotated name, never the truncated file itself nor a
// file of other content or another name.
func TestFindCopyFindsTheCopyByItsFirstBytes(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "q.log")
	os.WriteFile(p, []byte("old line 1\nold line 2\n"), 0o644)
	r, err := Open(p, 0, DefaultMaxLine)
	if err != nil {
		t.Fatal(err)
	}
	g := r.GenAt(0)
	r.Close()
	os.WriteFile(p+".json", []byte("old line 1\nold line 2\n"), 0o644) // not a rotated name
	os.WriteFile(p+".2", []byte("other content\n"), 0o644)
	if got := FindCopy(p, g, 0, Seam{}); got != "" {
		t.Fatalf("before the copy: %q", got)
	}
	os.WriteFile(p+".1", []byte("old line 1\nold line 2\n"), 0o644)
	os.WriteFile(p, []byte("new\n"), 0o644) // truncated in place and rewritten
	if got := FindCopy(p, g, 0, Seam{}); got != p+".1" {
		t.Fatalf("FindCopy = %q, want %s.1", got, p)
	}
}

// With the bytes before the cursor's position (its seam), FindCopy tells
// the copy from an older generation of the same first bytes (a constant
// banner), gzip included.
func TestFindCopyTellsTheCopyByItsSeamAmongGenerationsOfOneBanner(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "q.log")
	banner := strings.Repeat("#", SigSpan) + "\n"
	os.WriteFile(p, []byte(banner+"old 1\nold 2\n"), 0o644)
	r, err := Open(p, 0, DefaultMaxLine)
	if err != nil {
		t.Fatal(err)
	}
	pos := int64(len(banner + "old 1\nold 2\n"))
	g := r.GenAt(0)
	s, _ := r.SeamAt(pos)
	r.Close()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(banner + "older 1\nolder 2\n"))
	zw.Close()
	os.WriteFile(p+".2.gz", gz.Bytes(), 0o644) // the banner, other lines
	os.WriteFile(p+".1", []byte(banner+"old 1\nold 2\nold 3\n"), 0o644)
	if got := FindCopy(p, g, pos, s); got != p+".1" {
		t.Fatalf("FindCopy = %q, want %s.1", got, p)
	}
	gz.Reset()
	zw = gzip.NewWriter(&gz)
	zw.Write([]byte(banner + "old 1\nold 2\nold 3\n"))
	zw.Close()
	os.Remove(p + ".1")
	os.WriteFile(p+".1.gz", gz.Bytes(), 0o644)
	if got := FindCopy(p, g, pos, s); got != p+".1.gz" {
		t.Fatalf("compressed: FindCopy = %q, want %s.1.gz", got, p)
	}
}

// AtLineStart says whether the reader stands where a line starts.
func TestAtLineStartSaysWhetherAPositionStartsALine(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.log")
	os.WriteFile(p, []byte("one\ntwo\n"), 0o644)
	for pos, want := range map[int64]bool{0: true, 2: false, 4: true, 6: false, 8: true} {
		r, err := Open(p, pos, DefaultMaxLine)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := r.AtLineStart(); got != want || err != nil {
			t.Errorf("position %d: %v, %v; want %v", pos, got, err, want)
		}
		r.Close()
	}
}
