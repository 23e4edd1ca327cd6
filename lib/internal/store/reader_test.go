package store

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func writeStore(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "web1.log")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// openStore writes a store holding content and opens it from position 0;
// the reader is closed when the test ends.
func openStore(t *testing.T, content string) (string, *Reader) {
	t.Helper()
	p := writeStore(t, content)
	r, err := Open(p, 0, DefaultMaxLine)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return p, r
}

func appendStore(t *testing.T, path, content string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(content); err != nil {
		t.Fatal(err)
	}
}

// drain reads every chunk available now.
func drain(t *testing.T, r *Reader, maxEntries, maxBytes int) []Chunk {
	t.Helper()
	var out []Chunk
	for {
		c, ok, err := r.Next(maxEntries, maxBytes)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return out
		}
		c.Data = bytes.Clone(c.Data)
		out = append(out, c)
	}
}

func TestChunksCarryExactPositionsAndEntries(t *testing.T) {
	r, err := Open(writeStore(t, "a\nbb\n\nccc\ndddd\n"), 0, DefaultMaxLine)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := drain(t, r, 2, 1<<20)
	want := []Chunk{
		{Offset: 0, End: 5, Entries: 2, Data: []byte("a\nbb\n")},
		{Offset: 5, End: 10, Entries: 2, Data: []byte("\nccc\n")},
		{Offset: 10, End: 15, Entries: 1, Data: []byte("dddd\n")},
	}
	assertChunks(t, got, want)
	if r.Pos() != 15 {
		t.Fatalf("Pos() = %d, want 15", r.Pos())
	}
}

func TestReadingStartsAtTheGivenPosition(t *testing.T) {
	r, err := Open(writeStore(t, "a\nbb\nccc\n"), 2, DefaultMaxLine)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	assertChunks(t, drain(t, r, 100, 1<<20), []Chunk{{Offset: 2, End: 9, Entries: 2, Data: []byte("bb\nccc\n")}})
}

func TestChunkStopsNearMaxBytesButHoldsAtLeastOneEntry(t *testing.T) {
	r, err := Open(writeStore(t, "aaaa\nbbbb\ncccc\n"), 0, DefaultMaxLine)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := drain(t, r, 100, 3)
	if len(got) != 3 || got[0].Entries != 1 || got[2].End != 15 {
		t.Fatalf("chunks = %+v, want three chunks of one entry each", got)
	}
}

func TestAPartialLastLineIsHeldBackUntilComplete(t *testing.T) {
	p, r := openStore(t, "one\ntw")
	assertChunks(t, drain(t, r, 100, 1<<20), []Chunk{{Offset: 0, End: 4, Entries: 1, Data: []byte("one\n")}})
	if r.Pos() != 4 {
		t.Fatalf("Pos() = %d after a partial line, want 4", r.Pos())
	}
	appendStore(t, p, "o\nthree")
	assertChunks(t, drain(t, r, 100, 1<<20), []Chunk{{Offset: 4, End: 8, Entries: 1, Data: []byte("two\n")}})
}

func TestALineOverMaxLineIsOneSkipAndReadingGoesOn(t *testing.T) {
	long := strings.Repeat("x", 11)
	r, err := Open(writeStore(t, "ok\n"+long+"\nfine\n"), 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	assertChunks(t, drain(t, r, 100, 1<<20), []Chunk{
		{Offset: 0, End: 3, Entries: 1, Data: []byte("ok\n")},
		{Offset: 3, End: 15, Skip: SkipTooLong},
		{Offset: 15, End: 20, Entries: 1, Data: []byte("fine\n")},
	})
}

func TestALineOfExactlyMaxLineIsAnEntry(t *testing.T) {
	r, err := Open(writeStore(t, "0123456789\n"), 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	assertChunks(t, drain(t, r, 100, 1<<20), []Chunk{{Offset: 0, End: 11, Entries: 1, Data: []byte("0123456789\n")}})
}

func TestALineLongerThanTheBufferIsStreamedPastAsOneSkip(t *testing.T) {
	// 3 MiB without '\n' exceeds the readSize+maxLine+1 buffer several times.
	long := strings.Repeat("y", 3<<20)
	p := writeStore(t, "a\n"+long)
	r, err := Open(p, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	drain(t, r, 100, 1<<20)
	if r.Pos() != 2 {
		t.Fatalf("Pos() = %d while the long line is incomplete, want 2", r.Pos())
	}
	if len(r.buf) > readSize+101 {
		t.Fatalf("buffer grew to %d bytes: the long line was loaded", len(r.buf))
	}
	appendStore(t, p, "\nb\n")
	end := int64(2 + len(long) + 1)
	assertChunks(t, drain(t, r, 100, 1<<20), []Chunk{
		{Offset: 2, End: end, Skip: SkipTooLong},
		{Offset: end, End: end + 2, Entries: 1, Data: []byte("b\n")},
	})
}

func TestEntriesSpanningManyReadsAreAllDelivered(t *testing.T) {
	var sb strings.Builder
	for sb.Len() < 5*readSize {
		sb.WriteString("127.0.0.1 - - [10/Oct/2026:13:55:36 +0000] \"GET /x HTTP/1.1\" 200 2326\n")
	}
	r, err := Open(writeStore(t, sb.String()), 0, DefaultMaxLine)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var got bytes.Buffer
	next := int64(0)
	for _, c := range drain(t, r, 512, 8<<20) {
		if c.Offset != next || c.End-c.Offset != int64(len(c.Data)) || bytes.Count(c.Data, []byte("\n")) != c.Entries {
			t.Fatalf("chunk %d..%d with %d entries and %d bytes does not follow %d", c.Offset, c.End, c.Entries, len(c.Data), next)
		}
		next = c.End
		got.Write(c.Data)
	}
	if got.String() != sb.String() {
		t.Fatalf("delivered %d bytes, want the %d of the store", got.Len(), sb.Len())
	}
}

func TestAStoreShorterThanItsPositionIsRefusedOnOpen(t *testing.T) {
	_, err := Open(writeStore(t, "a\n"), 100, DefaultMaxLine)
	var short *ShorterError
	if !errors.As(err, &short) || !strings.Contains(err.Error(), "--reset") {
		t.Fatalf("Open past the end: err = %v, want a ShorterError naming --reset", err)
	}
}

func TestNextRefusesZeroEntries(t *testing.T) {
	r, err := Open(writeStore(t, "a\n"), 0, DefaultMaxLine)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, _, err := r.Next(0, 1); err == nil {
		t.Fatal("Next(0, 1) succeeded")
	}
}

func assertChunks(t *testing.T, got, want []Chunk) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d chunks %+v, want %d %+v", len(got), got, len(want), want)
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.Offset != w.Offset || g.End != w.End || g.Entries != w.Entries || g.Skip != w.Skip || !bytes.Equal(g.Data, w.Data) {
			t.Fatalf("chunk %d = %+v (%q), want %+v (%q)", i, g, g.Data, w, w.Data)
		}
	}
}

func TestEndOfLastLineStopsBeforeAPartialLine(t *testing.T) {
	for content, want := range map[string]int64{
		"":                                      0,
		"partial":                               0,
		"a\nb\n":                                4,
		"a\nb\npart":                            4,
		"a\n" + strings.Repeat("z", 3*tailStep): 2,
	} {
		got, err := EndOfLastLine(writeStore(t, content))
		if err != nil || got != want {
			t.Errorf("EndOfLastLine of %d bytes = %d, %v; want %d", len(content), got, err, want)
		}
	}
}

// prefix is sourceFrom bytes of lines: what a store holds before the first
// chunk Source may vouch for.
var prefix = strings.Repeat(strings.Repeat("p", 1023)+"\n", sourceFrom/1024)

// chunkAfterPrefix writes a store of prefix then line, and returns its
// path, a reader of it and the chunk of line, the first Source may vouch
// for.
func chunkAfterPrefix(t *testing.T, line string) (string, *Reader, Chunk) {
	t.Helper()
	p := writeStore(t, prefix+line)
	r, err := Open(p, sourceFrom, DefaultMaxLine)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	c, ok, err := r.Next(1, 1<<20)
	if !ok || err != nil || string(c.Data) != line {
		t.Fatalf("the chunk after the prefix: %q, %v, %v", c.Data, ok, err)
	}
	return p, r, c
}

// A chunk's bytes may be sent from its file (spliced) rather than from
// Data only while the file still holds them: a store truncated in place
// and regrown with other lines since the read no longer does.
func TestAChunkIsSourcedFromItsFileOnlyWhileTheFileHoldsItsBytes(t *testing.T) {
	p, r, c := chunkAfterPrefix(t, "second\n")
	f, off, ok := r.Source(c)
	if !ok {
		t.Fatal("a chunk just read is not sourced from its file")
	}
	got := make([]byte, len(c.Data))
	if _, err := f.ReadAt(got, off); err != nil || string(got) != "second\n" {
		t.Fatalf("the file at %d holds %q (%v); want the chunk's %q", off, got, err, c.Data)
	}
	// Renamed away: the open file still holds the bytes.
	os.Rename(p, p+".1")
	os.WriteFile(p, []byte("other\n"), 0o644)
	if _, _, ok := r.Source(c); !ok {
		t.Fatal("a store renamed away no longer sources a chunk of its old file")
	}
	// Truncated in place and regrown past the chunk with other lines.
	os.WriteFile(p+".1", []byte(strings.ToUpper(prefix)+"SECOND\nTHIRD\n"), 0o644)
	if _, _, ok := r.Source(c); ok {
		t.Fatal("a store truncated and regrown with other lines still sources a chunk read before")
	}
}

// Between Source's check and the splice, a copytruncate refilled past a
// chunk near the file's start could put other bytes under it: only chunks
// sourceFrom into their generation are sourced.
func TestAChunkNearItsGenerationsStartIsNotSourced(t *testing.T) {
	_, r := openStore(t, prefix+"after\n")
	c, ok, _ := r.Next(1, 1<<20)
	if !ok || c.Offset != 0 {
		t.Fatalf("first chunk: %+v", c)
	}
	if _, _, ok := r.Source(c); ok {
		t.Fatal("a chunk at the file's start is sourced")
	}
}

func TestASkipIsNeverSourcedFromTheFile(t *testing.T) {
	_, r := openStore(t, strings.Repeat("x", 10)+"\n")
	r.maxLine = 4
	c, ok, _ := r.Next(1, 1<<20)
	if !ok || c.Skip == "" {
		t.Fatalf("want a skip, got %+v", c)
	}
	if _, _, ok := r.Source(c); ok {
		t.Fatal("a skipped line is sourced from the file")
	}
}

// Source runs once a batch, so it allocates nothing: its garbage grew
// feed's peak RSS 1.42x from 500 000 to 5 000 000 entries.
func TestSourceAllocatesNothing(t *testing.T) {
	_, r, c := chunkAfterPrefix(t, "second\n")
	if n := testing.AllocsPerRun(100, func() { r.Source(c) }); n != 0 {
		t.Fatalf("Source allocates %v times a call", n)
	}
}

// A copytruncate refilled past the reader's position while it reads a
// backlog, not at the file's end, is seen at the next read: the new lines
// start a generation at their first byte, and no line is half old, half
// new. Checked only at the end, the refilled file was read on from the old
// position: a hybrid line, then the new lines at old positions, and the
// same lines again once the end was reached.
func TestACopytruncateRefilledWhileABacklogIsReadStartsAGeneration(t *testing.T) {
	old := strings.Repeat(strings.Repeat("a", 99)+"\n", 60000) // 6 MB: more than one read
	p, r := openStore(t, old)
	if _, ok, err := r.Next(10, 1<<20); !ok || err != nil {
		t.Fatalf("first chunk: %v, %v", ok, err)
	}
	newer := strings.Repeat(strings.Repeat("B", 76)+"\n", 100000)
	if err := os.WriteFile(p, []byte(newer), 0o644); err != nil { // truncate in place, refill
		t.Fatal(err)
	}
	var newAt int64 = -1
	newLines := 0
	for _, c := range drain(t, r, 512, 1<<20) {
		for _, l := range strings.SplitAfter(string(c.Data), "\n") {
			switch {
			case l == "":
			case strings.Trim(l, "a\n") == "":
			case strings.Trim(l, "B\n") == "" && len(l) == 77:
				if newAt < 0 {
					newAt = c.Offset
				}
				newLines++
			default:
				t.Fatalf("chunk at %d holds a line that is neither old nor new: %q", c.Offset, l)
			}
		}
	}
	gens := r.Gens()
	if last := gens[len(gens)-1]; len(gens) != 2 || last.Cause != "truncated" || newAt != last.Base || newLines != 100000 {
		t.Fatalf("generations %+v; new lines from %d, %d of them; want a truncated generation whose base is where the 100000 new lines start", gens, newAt, newLines)
	}
}

// cutAfterRead has the next read of the store at p followed, before the
// reader looks again, by the store's truncation and refill with content.
func cutAfterRead(t *testing.T, p, content string) {
	t.Helper()
	afterRead = func() {
		afterRead = func() {}
		os.WriteFile(p, []byte(content), 0o644)
	}
	t.Cleanup(func() { afterRead = func() {} })
}

// allLines reads r to its end and returns its chunks' lines.
func allLines(t *testing.T, r *Reader) []string {
	t.Helper()
	var lines []string
	for _, c := range drain(t, r, 100, 1<<20) {
		for _, l := range strings.SplitAfter(string(c.Data), "\n") {
			if l != "" {
				lines = append(lines, l)
			}
		}
	}
	return lines
}

// A generation's signature is taken from the bytes its first read got,
// not by reading the file again: a store cut and refilled in between was
// signed over its new lines, the cut went unseen, and the next read joined
// an old partial line to the new lines.
func TestAStoreCutRightAfterAGenerationsFirstReadIsSeenAtTheNext(t *testing.T) {
	p, r := openStore(t, "")
	appendStore(t, p, "old-1\nold-2-partial")
	cutAfterRead(t, p, strings.Repeat("NEW-LINE-XXXXXXXXXXXXX\n", 4))
	got := allLines(t, r)
	want := append([]string{"old-1\n"}, slices.Repeat([]string{"NEW-LINE-XXXXXXXXXXXXX\n"}, 4)...)
	if strings.Join(got, "|") != strings.Join(want, "|") || len(r.Gens()) != 2 || r.Gens()[1].Base != 19 {
		t.Fatalf("lines %q, generations %+v; want the old line, then the new ones as a generation at 19", got, r.Gens())
	}
}

// A read during which the store was cut may hold two generations' bytes:
// it is dropped, and the new generation begins where the reads before it
// ended.
func TestAStoreCutDuringAReadDropsWhatTheReadGot(t *testing.T) {
	p, r := openStore(t, "old-1\n")
	if c, ok, _ := r.Next(10, 1<<20); !ok || string(c.Data) != "old-1\n" {
		t.Fatalf("first chunk %q", c.Data)
	}
	appendStore(t, p, "old-2\n")
	cutAfterRead(t, p, "NEW-1\nNEW-2\n")
	got := allLines(t, r)
	if strings.Join(got, "|") != "NEW-1\n|NEW-2\n" || len(r.Gens()) != 2 || r.Gens()[1].Base != 6 {
		t.Fatalf("lines %q, generations %+v; want the new lines only, as a generation at 6", got, r.Gens())
	}
}
