package store

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// entry returns a batch chunk of the given lines at offset.
func entries(offset int64, lines ...string) Chunk {
	data := strings.Join(lines, "\n") + "\n"
	return Chunk{Offset: offset, End: offset + int64(len(data)), Entries: len(lines), Data: []byte(data)}
}

func TestACopytruncatedStoreContinuesItsAxisFromWhereTheOldFileEnded(t *testing.T) {
	p, r := openStore(t, "a\nbb\n")
	assertChunks(t, drain(t, r, 100, 1<<20), []Chunk{entries(0, "a", "bb")})
	if err := os.Truncate(p, 0); err != nil {
		t.Fatal(err)
	}
	appendStore(t, p, "c\n")
	assertChunks(t, drain(t, r, 100, 1<<20), []Chunk{entries(5, "c")})
	gens := r.Gens()
	if len(gens) != 2 || gens[1].Base != 5 || gens[1].Cause != "truncated" {
		t.Fatalf("generations = %+v, want a second one at 5, truncated", gens)
	}
}

func TestAStoreTruncatedAndRegrownPastThePositionIsToldByItsFirstBytes(t *testing.T) {
	p, r := openStore(t, "a\nbb\n")
	drain(t, r, 100, 1<<20)
	// Between two polls the file is emptied and grows past 5 bytes again.
	if err := os.WriteFile(p, []byte("xyz\nuvw\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	assertChunks(t, drain(t, r, 100, 1<<20), []Chunk{entries(5, "xyz", "uvw")})
}

func TestARenamedStoreIsDrainedToItsEndBeforeTheNewFileIsRead(t *testing.T) {
	p, r := openStore(t, "a\n")
	drain(t, r, 100, 1<<20)
	old := p + ".1"
	if err := os.Rename(p, old); err != nil {
		t.Fatal(err)
	}
	// The writer still holds the old file and appends to it after the rename.
	appendStore(t, old, "late\n")
	if err := os.WriteFile(p, []byte("new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	assertChunks(t, drain(t, r, 100, 1<<20), []Chunk{entries(2, "late"), entries(7, "new")})
	if g := r.GenAt(7); g.Base != 7 || g.Cause != "renamed" {
		t.Fatalf("GenAt(7) = %+v, want the renamed generation at 7", g)
	}
	if g := r.GenAt(6); g.Base != 0 {
		t.Fatalf("GenAt(6) = %+v, want the first generation", g)
	}
}

func TestARenamedStoreNotYetRecreatedWaits(t *testing.T) {
	p, r := openStore(t, "a\n")
	if err := os.Rename(p, p+".1"); err != nil {
		t.Fatal(err)
	}
	assertChunks(t, drain(t, r, 100, 1<<20), []Chunk{entries(0, "a")})
	if err := os.WriteFile(p, []byte("b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	assertChunks(t, drain(t, r, 100, 1<<20), []Chunk{entries(2, "b")})
}

func TestAPartialLineCutByARotationIsOneUnterminatedSkip(t *testing.T) {
	p, r := openStore(t, "a\npart")
	drain(t, r, 100, 1<<20)
	if err := os.Rename(p, p+".1"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	assertChunks(t, drain(t, r, 100, 1<<20), []Chunk{
		{Offset: 2, End: 6, Skip: SkipUnterminated}, entries(6, "b")})
}

func TestAStoreRotatedWhileFeedWasDownIsReadFromItsRenamedFileFirst(t *testing.T) {
	p, r := openStore(t, "a\nb\n")
	drain(t, r, 100, 1<<20)
	g := r.GenAt(2)
	r.Close()
	appendStore(t, p, "c\n")
	if err := os.Rename(p, p+".1"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("d\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Resume(p, 2, g, DefaultMaxLine)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	assertChunks(t, drain(t, r, 100, 1<<20), []Chunk{entries(2, "b", "c"), entries(6, "d")})
}

func TestAStoreReplacedWhileFeedWasDownIsRefused(t *testing.T) {
	p, r := openStore(t, "a\nb\n")
	drain(t, r, 100, 1<<20)
	g := r.GenAt(4)
	r.Close()
	// Removed and recreated longer: the size alone would not tell.
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(filepath.Dir(p), "other"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("other\nlines\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Resume(p, 4, g, DefaultMaxLine)
	var rep *ReplacedError
	if !errors.As(err, &rep) || !strings.Contains(err.Error(), "--reset") {
		t.Fatalf("Open of a replaced store: err = %v, want a ReplacedError naming --reset", err)
	}
}

func TestAStoreRewrittenInPlaceWhileFeedWasDownIsRefused(t *testing.T) {
	p, r := openStore(t, "a\nb\n")
	drain(t, r, 100, 1<<20)
	g := r.GenAt(4)
	r.Close()
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("x\ny\nz\n")
	f.Close()
	_, err = Resume(p, 4, g, DefaultMaxLine)
	if err == nil || !strings.Contains(err.Error(), "same inode, but its first 4 bytes differ") {
		t.Fatalf("Open of a rewritten store: err = %v, want one saying its first bytes differ", err)
	}
}

// Renamed twice while the old file was still being read (feed behind, or
// both rotations within one poll): the file between is skipped, but named
// with the rotation, not skipped without a word. It is not read: another
// store named after this one, or an old generation touched since, looks
// the same. Files that only begin with the store's name, or were written
// before the old file, are not named.
func TestAFileRenamedAwayBeforeFeedReachedItIsNamedWithTheRotation(t *testing.T) {
	p, r := openStore(t, "gen1 a\ngen1 b\n")
	if c, ok, _ := r.Next(1, 1<<20); !ok || string(c.Data) != "gen1 a\n" {
		t.Fatalf("first chunk %q", c.Data)
	}
	at := time.Now()
	stamp := func(name string, age time.Duration) { os.Chtimes(name, at.Add(age), at.Add(age)) }
	stamp(p, -time.Hour)
	os.Rename(p, p+".2") // the file being read, shifted twice by logrotate
	os.WriteFile(p+".1", []byte("gen2 a\ngen2 b\n"), 0o644)
	stamp(p+".1", -time.Hour) // written within the old file's last clock tick
	os.WriteFile(p, []byte("gen3 a\n"), 0o644)
	os.WriteFile(p+".json", []byte("not the store\n"), 0o644)
	os.WriteFile(p+".3.gz", []byte("\x1f\x8bcompressed\n"), 0o644)
	stamp(p+".3.gz", -2*time.Hour) // an older generation
	got := allLines(t, r)
	gens := r.Gens()
	if strings.Join(got, "") != "gen1 b\ngen3 a\n" || len(gens) != 2 || gens[1].Cause != "renamed" || gens[1].Skipped != p+".1" {
		t.Fatalf("read %q, generations %+v; want gen1, then gen3 with the .1 file named as skipped", got, gens)
	}
}

// The file being read, renamed and then compressed under its rotated name
// (logrotate's compress without delaycompress) before the reader moved on,
// is not named as a generation skipped: its bytes were read through the
// file held open. (A drain that ended before the removal was seen made
// feed warn of lines never read.)
func TestTheFileBeingReadCompressedUnderItsRotatedNameIsNotNamedAsSkipped(t *testing.T) {
	p, r := openStore(t, "gen1 a\ngen1 b\n")
	if c, ok, _ := r.Next(1, 1<<20); !ok || string(c.Data) != "gen1 a\n" {
		t.Fatalf("first chunk %q", c.Data)
	}
	at := time.Now()
	os.Chtimes(p, at.Add(-time.Hour), at.Add(-time.Hour))
	os.Rename(p, p+".1")
	os.WriteFile(p, []byte("gen2 a\n"), 0o644)
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write([]byte("gen1 a\ngen1 b\n"))
	w.Close()
	os.WriteFile(p+".1.gz", gz.Bytes(), 0o644) // gzip writes the copy, then removes the original
	os.Remove(p + ".1")
	got := allLines(t, r)
	gens := r.Gens()
	if strings.Join(got, "") != "gen1 b\ngen2 a\n" || len(gens) != 2 || gens[1].Skipped != "" {
		t.Fatalf("read %q, generations %+v; want gen1 to its end, then gen2, nothing named as skipped", got, gens)
	}
}

// An older generation shifted up with the store (.1 to .2, the store to
// .1) is not taken for a generation renamed away, though written within
// the store's last clock tick (two files written together).
func TestAnOlderGenerationShiftedUpWithTheStoreIsNotNamedAsSkipped(t *testing.T) {
	p, r := openStore(t, "gen2 a\n")
	os.WriteFile(p+".1", []byte("gen1 a\n"), 0o644)
	at := time.Now()
	os.Chtimes(p, at, at)
	os.Chtimes(p+".1", at, at)
	allLines(t, r)
	os.Rename(p+".1", p+".2")
	os.Rename(p, p+".1")
	os.WriteFile(p, []byte("gen3 a\n"), 0o644)
	got := allLines(t, r)
	gens := r.Gens()
	if strings.Join(got, "") != "gen3 a\n" || len(gens) != 2 || gens[1].Skipped != "" {
		t.Fatalf("read %q, generations %+v; want gen3, nothing named as skipped", got, gens)
	}
}

func TestWithPathEveryARotationIsTakenOnceThatLongHasPassed(t *testing.T) {
	p := writeStore(t, "a\n")
	r, err := ResumeSpec(Spec{Path: p}, Where{}, Options{MaxLine: DefaultMaxLine, PathEvery: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	drain(t, r, 100, 1<<20) // reads a, and looks at the path at its end
	os.Rename(p, p+".1")
	os.WriteFile(p, []byte("new\n"), 0o644)
	if got := drain(t, r, 100, 1<<20); len(got) != 0 {
		t.Fatalf("the rotation was taken within PathEvery: %+v", got)
	}
	r.pathAt = time.Time{} // an hour on
	assertChunks(t, drain(t, r, 100, 1<<20), []Chunk{entries(2, "new")})
}
