//go:build linux && !portable

package feed

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// splice moves what the file holds and says how much: a file cut shorter
// since it was checked, or one that cannot be spliced, leaves the rest to
// be written from the read buffer, so a batch is never cut short; a full
// pipe says so, to be waited on.
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
	pw, r, err := pipe(false)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer syscall.Close(pw)
	// One page: a spliced piece of a file fills the pipe.
	syscall.Syscall(syscall.SYS_FCNTL, uintptr(pw), fSetPipeSz, 4096)
	w := &writer{fd: pw}

	if n, full, err := w.splice(int(readable.Fd()), 1, 8); n != 3 || full || err != nil {
		t.Fatalf("8 bytes from 1 of a 4-byte file: moved %d, full %v, %v; want 3", n, full, err)
	}
	if n, full, err := w.splice(int(readable.Fd()), 0, 4); n != 0 || !full || err != nil {
		t.Fatalf("into a full pipe: moved %d, full %v, %v; want full", n, full, err)
	}
	got := make([]byte, 16)
	if n, _ := r.Read(got); string(got[:n]) != "bc\n" || w.written != 3 {
		t.Fatalf("the pipe got %q (%d counted); want %q", got[:n], w.written, "bc\n")
	}
	if n, full, err := w.splice(int(readable.Fd()), 4, 4); n != 0 || full || err != nil || w.noSplice {
		t.Fatalf("at the file's end: moved %d, full %v, %v, noSplice %v; want nothing", n, full, err, w.noSplice)
	}
	if n, full, err := w.splice(int(unreadable.Fd()), 0, 4); n != 0 || full || err != nil || !w.noSplice {
		t.Fatalf("from a file open for writing only: moved %d, full %v, %v, noSplice %v; want splicing off", n, full, err, w.noSplice)
	}
	if n, _, _ := w.splice(int(readable.Fd()), 0, 4); n != 0 {
		t.Fatalf("with splicing off, %d bytes were spliced", n)
	}
}
