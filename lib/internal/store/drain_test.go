package store

import (
	"os"
	"testing"
	"time"
)

// openDraining opens a store of content whose renamed generations are
// read on until quiet for d.
func openDraining(t *testing.T, content string, d time.Duration) (string, *Reader) {
	t.Helper()
	p := writeStore(t, content)
	r, err := ResumeSpec(Spec{Path: p}, Where{}, Options{MaxLine: DefaultMaxLine, Drain: d})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return p, r
}

// drainUntil reads chunks until want's count of them is there or 10 s
// pass (a drain ends by time: a poll with a deadline, not a sleep).
func drainUntil(t *testing.T, r *Reader, n int) []Chunk {
	t.Helper()
	var got []Chunk
	for deadline := time.Now().Add(10 * time.Second); len(got) < n && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		got = append(got, drain(t, r, 100, 1<<20)...)
	}
	return got
}

func TestARenamedGenerationIsReadOnUntilQuietBeforeTheNewFile(t *testing.T) {
	p, r := openDraining(t, "a\n", time.Second)
	assertChunks(t, drain(t, r, 100, 1<<20), []Chunk{entries(0, "a")})
	if err := os.Rename(p, p+".1"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The new file is there, but the renamed one was written just now:
	// nothing of the new file is read, and the Reader says it drains.
	if got := drain(t, r, 100, 1<<20); len(got) != 0 {
		t.Fatalf("read %+v while the renamed file was not yet quiet", got)
	}
	if d, _ := r.Draining(); !d {
		t.Fatal("Draining() = false at the renamed file's end, the new file waiting")
	}
	// Its server writes on into it after the rename, then reopens.
	appendStore(t, p+".1", "late\n")
	got := drainUntil(t, r, 2)
	assertChunks(t, got, []Chunk{entries(2, "late"), entries(7, "new")})
	if d, _ := r.Draining(); d {
		t.Fatal("Draining() = true once the new file is read")
	}
}

func TestARotationDuringTheDrainDoesNotSkipTheFileThatWasAtThePath(t *testing.T) {
	p, r := openDraining(t, "a\n", time.Second)
	drain(t, r, 100, 1<<20)
	if err := os.Rename(p, p+".1"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	drain(t, r, 100, 1<<20) // the drain begins: the file at the path is the next generation
	// A second rotation before the drain ends.
	if err := os.Rename(p+".1", p+".2"); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(p, p+".1"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("c\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	assertChunks(t, drainUntil(t, r, 2), []Chunk{entries(2, "b"), entries(4, "c")})
}

func TestBytesAppendedAfterTheReaderMovedOnAreReportedLate(t *testing.T) {
	p, r := openDraining(t, "a\n", 100*time.Millisecond)
	drain(t, r, 100, 1<<20)
	if err := os.Rename(p, p+".1"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	assertChunks(t, drainUntil(t, r, 1), []Chunk{entries(2, "b")})
	appendStore(t, p+".1", "later\n")
	var late []Late
	for deadline := time.Now().Add(10 * time.Second); len(late) == 0 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if got := drain(t, r, 100, 1<<20); len(got) != 0 {
			t.Fatalf("read %+v: a late writer's bytes have no position on the axis", got)
		}
		late = r.TakeLate()
	}
	if len(late) != 1 || late[0].Path != p+".1" || late[0].From != 2 || late[0].Bytes != 6 || late[0].Gen.Base != 0 {
		t.Fatalf("TakeLate() = %+v, want 6 bytes of %s.1 from byte 2 of the generation at 0", late, p)
	}
	if again := r.TakeLate(); len(again) != 0 {
		t.Fatalf("TakeLate() handed out %+v again", again)
	}
}
