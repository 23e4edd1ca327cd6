package tally

import (
	"os"
	"runtime"
	"strings"
	"testing"
)

// Reads that each wait for a few lines (a store's live edge) have tally run
// on one P (spin.Procs); reads of a backlog bring the default back (which
// P count that is, package spin's tests say: on a one-CPU machine it is 1
// again).
func TestReadsOfAFewLinesAtATimeRunTallyOnOneP(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	in := newInput(r)
	line := strings.Repeat("l", 199) + "\n"
	for range 20 {
		w.WriteString(strings.Repeat(line, 10))
		in.fill(0, false)
		in.discard(in.w - in.r)
	}
	if runtime.GOMAXPROCS(0) != 1 {
		t.Fatalf("20 reads of 10 lines each left tally at GOMAXPROCS %d", runtime.GOMAXPROCS(0))
	}
	// A backlog: a full pipe of the kernel's default size (64 KiB, a
	// piece) before each read, which a write of it never blocks on.
	for range 48 {
		w.WriteString(strings.Repeat(line, 2<<10)[:pieceSize])
		in.fill(0, false)
		in.discard(in.w - in.r)
	}
	if in.procs.Lowered() {
		t.Fatalf("3 MB of input read in large reads left tally on one P (GOMAXPROCS %d)", runtime.GOMAXPROCS(0))
	}
}
