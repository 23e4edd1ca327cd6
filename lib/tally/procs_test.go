package tally

import (
	"os"
	"runtime"
	"strings"
	"testing"
)

// Reads that each wait for a few lines (a store's live edge) have tally run
// on one P (spin.Procs); reads of a backlog bring the default back.
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
	go func() {
		for range 64 {
			w.WriteString(strings.Repeat(line, 1<<8)) // 50 KiB
		}
	}()
	for got := 0; got < 3<<20; {
		n := in.w - in.r
		in.fill(0, false)
		got += in.w - in.r - n
		in.discard(in.w - in.r)
	}
	if runtime.GOMAXPROCS(0) < 2 {
		t.Fatal("3 MB of input read in large reads left tally on one P")
	}
}
