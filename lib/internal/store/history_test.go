package store

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeGen writes content to dir/name, gzip-compressed when gz.
func writeGen(t *testing.T, dir, name, content string, gz bool) string {
	t.Helper()
	p := filepath.Join(dir, name)
	data := []byte(content)
	if gz {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write(data)
		zw.Close()
		data = b.Bytes()
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// lines returns n numbered entries tagged tag, each with its '\n'.
func lines(tag string, n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(tag + " entry " + strings.Repeat("x", i%300) + "\n")
	}
	return b.String()
}

// rotated writes logrotate's layout of four generations (the two oldest
// compressed) and returns its spec and the content as one file.
func rotated(t *testing.T) (Spec, string) {
	t.Helper()
	dir := t.TempDir()
	g3, g2, g1, live := lines("g3", 500), lines("g2", 700), lines("g1", 300), lines("live", 400)
	return Spec{ID: "web", Path: writeGen(t, dir, "access.log", live, false), History: []string{
		writeGen(t, dir, "access.log.3.gz", g3, true),
		writeGen(t, dir, "access.log.2.gz", g2, true),
		writeGen(t, dir, "access.log.1", g1, false),
	}}, g3 + g2 + g1 + live
}

func openSpec(t *testing.T, s Spec, w Where) *Reader {
	t.Helper()
	r, err := ResumeSpec(s, w, Options{MaxLine: DefaultMaxLine})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// joined checks that chunks are contiguous from pos and returns their bytes.
func joined(t *testing.T, chunks []Chunk, pos int64) string {
	t.Helper()
	var b bytes.Buffer
	for _, c := range chunks {
		if c.Offset != pos || c.Skip != "" {
			t.Fatalf("chunk %+v after position %d", c, pos)
		}
		b.Write(c.Data)
		pos = c.End
	}
	return b.String()
}

func TestAStoreWithItsHistoryIsReadAsTheOneFileItsGenerationsMake(t *testing.T) {
	s, whole := rotated(t)
	r := openSpec(t, s, Where{})
	if got := joined(t, drain(t, r, 100, 1<<20), 0); got != whole {
		t.Fatalf("read %d bytes, want the %d of the generations in order", len(got), len(whole))
	}
	gens := r.Gens()
	if len(gens) != 4 || gens[3].Cause != "open" || gens[1].Cause != "older" {
		t.Fatalf("generations = %+v, want three older ones and the file at the path", gens)
	}
	if n, err := HistoryEnd(s); err != nil || n != gens[3].Base {
		t.Fatalf("HistoryEnd = %d, %v; want %d", n, err, gens[3].Base)
	}
}

func TestAGenerationIsToldGzipByItsContentNotItsName(t *testing.T) {
	dir := t.TempDir()
	s := Spec{ID: "web", Path: writeGen(t, dir, "live", "c\n", false), History: []string{
		writeGen(t, dir, "plain.gz", "a\n", false),
		writeGen(t, dir, "packed.1", "b\n", true),
	}}
	if got := joined(t, drain(t, openSpec(t, s, Where{}), 100, 1<<20), 0); got != "a\nb\nc\n" {
		t.Fatalf("read %q", got)
	}
}

func TestALineLeftUnterminatedAtAnOlderGenerationsEndIsOneSkip(t *testing.T) {
	dir := t.TempDir()
	s := Spec{ID: "web", Path: writeGen(t, dir, "live", "c\n", false), History: []string{writeGen(t, dir, "old.gz", "a\ntorn", true)}}
	assertChunks(t, drain(t, openSpec(t, s, Where{}), 100, 1<<20), []Chunk{
		entries(0, "a"), {Offset: 2, End: 6, Skip: SkipUnterminated}, entries(6, "c"),
	})
}

// cursorAt reads s up to about pos and returns where a cursor there resumes.
func cursorAt(t *testing.T, s Spec, pos int64) Where {
	t.Helper()
	r := openSpec(t, s, Where{})
	for r.Pos() < pos {
		if _, ok, err := r.Next(1, 1<<20); err != nil || !ok {
			t.Fatalf("Next: %v, %v", ok, err)
		}
	}
	return Where{Pos: r.Pos(), Gen: r.GenAt(r.Pos()), Gens: r.Recorded()}
}

func TestACursorInsideAnOlderGenerationResumesThere(t *testing.T) {
	s, whole := rotated(t)
	for _, pos := range []int64{1, 40000, 100000, int64(len(whole)) - 10} {
		w := cursorAt(t, s, pos)
		r := openSpec(t, s, w)
		if r.Pos() != w.Pos {
			t.Fatalf("resumed at %d, Pos() = %d", w.Pos, r.Pos())
		}
		if got := joined(t, drain(t, r, 100, 1<<20), w.Pos); got != whole[w.Pos:] {
			t.Fatalf("resumed at %d: read %d bytes, want %d", w.Pos, len(got), len(whole)-int(w.Pos))
		}
	}
}

func TestAListShiftedByARotationResumesWhereTheCursorIs(t *testing.T) {
	s, whole := rotated(t)
	w := cursorAt(t, s, int64(len(whole))-1000) // in the file at the path
	// logrotate runs: .3.gz goes, .2.gz becomes .3.gz, .1 is compressed to
	// .2.gz (a new file), the file at the path becomes .1 and a new one begins.
	dir := filepath.Dir(s.Path)
	mv := func(from, to string) {
		if err := os.Rename(filepath.Join(dir, from), filepath.Join(dir, to)); err != nil {
			t.Fatal(err)
		}
	}
	mv("access.log.2.gz", "access.log.3.gz")
	g1, _ := os.ReadFile(filepath.Join(dir, "access.log.1"))
	writeGen(t, dir, "access.log.2.gz", string(g1), true)
	mv("access.log", "access.log.1")
	writeGen(t, dir, "access.log", "new\n", false)
	r := openSpec(t, s, w)
	if got := joined(t, drain(t, r, 100, 1<<20), w.Pos); got != whole[w.Pos:]+"new\n" {
		t.Fatalf("read %q..., want the rest of the old file, then the new one", got[:min(len(got), 40)])
	}
}

func TestAGenerationListNotTheCursorsIsRefusedNamingWhich(t *testing.T) {
	s, whole := rotated(t)
	w := cursorAt(t, s, int64(len(whole))-1000)
	missing := s
	missing.History = []string{s.History[0], s.History[2]}
	other := s
	other.History = []string{s.History[0], writeGen(t, t.TempDir(), "access.log.2.gz", lines("other", 700), true), s.History[2]}
	for name, tc := range map[string]struct {
		s    Spec
		want []string
	}{
		"a missing middle generation": {missing, []string{"middle generation is missing", "between " + s.History[0] + " and " + s.History[2]}},
		"different first bytes":       {other, []string{other.History[1] + " is not the generation the cursor recorded after " + s.History[0], "first 256 bytes differ"}},
	} {
		_, err := ResumeSpec(tc.s, w, Options{MaxLine: DefaultMaxLine})
		var le *ListError
		if !errors.As(err, &le) {
			t.Fatalf("%s: ResumeSpec = %v, want a *ListError", name, err)
		}
		for _, want := range tc.want {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: %v does not say %q", name, err, want)
			}
		}
	}
}

func TestAGzipGenerationThatDoesNotDecompressIsAnErrorNamingIt(t *testing.T) {
	dir := t.TempDir()
	good := writeGen(t, dir, "old.gz", lines("a", 2000), true)
	data, _ := os.ReadFile(good)
	bad := filepath.Join(dir, "bad.gz")
	os.WriteFile(bad, data[:len(data)/2], 0o644) // still being compressed
	r := openSpec(t, Spec{ID: "web", Path: writeGen(t, dir, "live", "", false), History: []string{bad}}, Where{})
	var err error
	for err == nil {
		var ok bool
		if _, ok, err = r.Next(100, 1<<20); !ok && err == nil {
			t.Fatal("the damaged generation read to an end")
		}
	}
	if !strings.Contains(err.Error(), bad+" is gzip but does not decompress") {
		t.Fatalf("error %v does not name the damaged generation", err)
	}
}

func TestAFileThatDoesNotExistYetIsWaitedForAndReadFromItsStart(t *testing.T) {
	p := filepath.Join(t.TempDir(), "late.log")
	if _, err := Open(p, 0, DefaultMaxLine); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("Open of a missing file without Wait = %v, want an error", err)
	}
	r, err := ResumeSpec(Spec{Path: p}, Where{}, Options{MaxLine: DefaultMaxLine, Wait: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := drain(t, r, 100, 1<<20); len(got) != 0 || !r.Waiting() {
		t.Fatalf("read %+v of a missing file (waiting %v)", got, r.Waiting())
	}
	writeGen(t, filepath.Dir(p), "late.log", "a\nb\n", false)
	assertChunks(t, drain(t, r, 100, 1<<20), []Chunk{entries(0, "a", "b")})
	if g := r.GenAt(0); !g.Known() || g.Cause != "created" || r.Waiting() {
		t.Fatalf("GenAt(0) = %+v, want the created file", g)
	}
}

func TestAFileAfterItsHistoryIsWaitedForWhereTheHistoryEnds(t *testing.T) {
	dir := t.TempDir()
	s := Spec{ID: "web", Path: filepath.Join(dir, "live"), History: []string{writeGen(t, dir, "old.gz", "a\n", true)}}
	if _, err := ResumeSpec(s, Where{}, Options{MaxLine: DefaultMaxLine}); err == nil {
		t.Fatal("a missing file after its history was opened without Wait")
	}
	r, err := ResumeSpec(s, Where{}, Options{MaxLine: DefaultMaxLine, Wait: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	assertChunks(t, drain(t, r, 100, 1<<20), []Chunk{entries(0, "a")})
	writeGen(t, dir, "live", "b\n", false)
	assertChunks(t, drain(t, r, 100, 1<<20), []Chunk{entries(2, "b")})
}

func TestReadingFromAPositionPastTheHistoryStartsThereInTheFile(t *testing.T) {
	s, whole := rotated(t)
	end, err := HistoryEnd(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, pos := range []int64{end, end + 37} {
		r := openSpec(t, s, Where{Pos: pos})
		if got := joined(t, drain(t, r, 100, 1<<20), pos); got != whole[pos:] {
			t.Fatalf("from %d: read %d bytes, want %d", pos, len(got), len(whole)-int(pos))
		}
	}
	if _, err := ResumeSpec(s, Where{Pos: int64(len(whole)) + 1}, Options{MaxLine: DefaultMaxLine}); err == nil {
		// The position lies beyond the file: found at its first read.
		r := openSpec(t, s, Where{Pos: int64(len(whole)) + 1})
		var se *ShorterError
		if _, _, err := r.Next(1, 1<<20); !errors.As(err, &se) {
			t.Fatalf("reading past the store's end: %v, want a *ShorterError", err)
		}
	}
}

func TestACursorInsideAnOlderGenerationNotAtALineStartIsAnError(t *testing.T) {
	s, _ := rotated(t)
	w := cursorAt(t, s, 40000)
	w.Pos -= 3 // inside a line
	r := openSpec(t, s, w)
	if ok, err := r.AtLineStart(); !ok || err != nil {
		t.Fatalf("AtLineStart = %v, %v; the check is the read's", ok, err)
	}
	if _, _, err := r.Next(100, 1<<20); err == nil || !strings.Contains(err.Error(), "not where a line starts") {
		t.Fatalf("Next = %v, want the cursor refused", err)
	}
}

// A gzip file at a store's path, alone or after its history, or appearing
// there once waited for, is refused saying to name it as an older
// generation: read as lines, its bytes would be entries of no format.
func TestAGzipFileAtAStoresPathIsRefusedAsCompressed(t *testing.T) {
	dir := t.TempDir()
	gz := writeGen(t, dir, "p1.gz", "a\nb\n", true)
	plain := writeGen(t, dir, "p1", "c\n", false)
	for _, s := range []Spec{{ID: "js", Path: gz}, {ID: "js", History: []string{plain}, Path: gz}} {
		_, err := ResumeSpec(s, Where{}, Options{MaxLine: DefaultMaxLine})
		if err == nil || !strings.Contains(err.Error(), gz+" is gzip-compressed") || !strings.Contains(err.Error(), "ID="+gz+",PATH") {
			t.Errorf("%+v: err = %v, want it refused as compressed", s, err)
		}
	}
	late := filepath.Join(dir, "late")
	r, err := ResumeSpec(Spec{ID: "js", History: []string{plain}, Path: late}, Where{}, Options{MaxLine: DefaultMaxLine, Wait: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	drain(t, r, 100, 1<<20)
	os.Rename(gz, late)
	if _, _, err := r.Next(100, 1<<20); err == nil || !strings.Contains(err.Error(), "is gzip-compressed") {
		t.Errorf("a gzip file appearing at the path: err = %v, want it refused", err)
	}
}
