package feed

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// splice moves what the file holds and says how much: a file cut shorter
// since it was checked, or one that cannot be spliced, leaves the rest to
// be written from the read buffer, so a batch is never cut short.
func TestSpliceMovesWhatTheFileHoldsAndLeavesTheRestToWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.log")
	os.WriteFile(path, []byte("abc\n"), 0o644)
	readable, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer readable.Close()
	unreadable, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unreadable.Close()
	r, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	w := &writer{fd: int(pw.Fd()), wait: func() error { return nil }}

	if n, err := w.splice(int(readable.Fd()), 1, 8); n != 3 || err != nil || w.noSplice {
		t.Fatalf("8 bytes from 1 of a 4-byte file: moved %d, %v, noSplice %v; want 3, nil, false", n, err, w.noSplice)
	}
	if n, err := w.splice(int(unreadable.Fd()), 0, 4); n != 0 || err != nil || !w.noSplice {
		t.Fatalf("from a file open for writing only: moved %d, %v, noSplice %v; want 0, nil, true", n, err, w.noSplice)
	}
	if n, _ := w.splice(int(readable.Fd()), 0, 4); n != 0 {
		t.Fatalf("after a failed splice, %d bytes were spliced; want none: the entries are written", n)
	}
	pw.Close()
	if out, _ := io.ReadAll(r); string(out) != "bc\n" || w.written != 3 {
		t.Fatalf("the pipe got %q (%d counted); want %q", out, w.written, "bc\n")
	}
}
