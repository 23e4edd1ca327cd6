package tally

import (
	"os"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// Reads that each wait for a few lines (a store's live edge) have tally run
// on one P (spin.Procs); reads of a backlog bring the default back (which
// P count that is, package spin's tests say: on a one-CPU machine it is 1
// again).
//
// Each read's bytes are in the pipe before it, and the pipe is as large as
// the one feed gives tally's stdin: written from a goroutine in 50 KiB
// pieces into a 64 KiB pipe, a read often got what one write had left
// (under 64 KiB, an idle read), and the test failed in up to half its runs.
func TestReadsOfAFewLinesAtATimeRunTallyOnOneP(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	const fSetPipeSz = 1031 // Linux's F_SETPIPE_SZ, as feed enlarges tally's stdin
	if _, _, e := syscall.Syscall(syscall.SYS_FCNTL, w.Fd(), fSetPipeSz, 1<<20); e != 0 {
		t.Fatalf("enlarging the pipe to 1 MiB: %v", e)
	}
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
	for range 12 { // 250 KB a read, 3 MB in all
		w.WriteString(strings.Repeat(line, 1280))
		in.fill(0, false)
		if n := in.w - in.r; n != 1280*len(line) {
			t.Fatalf("a read took %d bytes of the %d in the pipe", n, 1280*len(line))
		}
		in.discard(in.w - in.r)
	}
	if in.procs.Lowered() {
		t.Fatalf("3 MB of input read in large reads left tally on one P (GOMAXPROCS %d)", runtime.GOMAXPROCS(0))
	}
}
