package read

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/timbertally/timbertally/lib/internal/testkit"
)

// syncBuffer is the buffer tgread writes while the test reads it.
type syncBuffer = testkit.SyncBuffer

// waitFor polls until out holds want (it is no timing test: the output
// comes at once when it comes at all).
func waitFor(t *testing.T, out *syncBuffer, want string) {
	t.Helper()
	testkit.Poll(t, fmt.Sprintf("stdout to hold %q", want), func() bool { return strings.Contains(out.String(), want) })
}

func TestStdinPrintsEachBucketAsItsSealArrivesWithoutWaitingForTheEnd(t *testing.T) {
	pr, pw := io.Pipe()
	var out syncBuffer
	done := make(chan int)
	go func() { done <- run([]string{"tgread", "-f", "tape"}, pr, &out, io.Discard, false, now) }()

	io.WriteString(pw, "2026-10-10T13:55:30Z requests 4\nseal 2026-10-10T13:55:30Z width=10s entries=4\n2026-10-10T13:55:40Z requests 5\n")
	waitFor(t, &out, "2026-10-10T13:55:30Z requests 4\n")
	if strings.Contains(out.String(), "13:55:40Z") {
		t.Fatalf("printed a bucket before its seal: %q", out.String())
	}
	io.WriteString(pw, "seal 2026-10-10T13:55:40Z width=10s entries=5\n2026-10-10T13:55:50Z requests 6")
	waitFor(t, &out, "2026-10-10T13:55:40Z requests 5\n")
	pw.Close()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d", code)
	}
	// The torn last line is left out; nothing is printed twice.
	if want := "2026-10-10T13:55:30Z requests 4\n2026-10-10T13:55:40Z requests 5\n"; out.String() != want {
		t.Errorf("stdout %q, want %q", out.String(), want)
	}
}

func TestStdinReportsAFragmentAfterItsSealAndPrintsItAgain(t *testing.T) {
	tape := `2026-10-10T13:55:30Z requests{status="200"} 512
seal 2026-10-10T13:55:30Z width=10s entries=512
2026-10-10T13:55:30Z requests{status="200"} 512
seal 2026-10-10T13:55:30Z width=10s entries=512
2026-10-10T13:55:30Z requests{status="200"} 1024
2026-10-10T13:55:40Z requests{status="200"} 1
`
	r := tgread(t, tape, "-f", "tsv")
	// The fragment after its seal is printed again; 13:55:40, which has no
	// seal yet, is not.
	r.want(t, 0, "time\tmetric\tlabels\tvalue\n"+
		"2026-10-10T13:55:30Z\trequests\tstatus=200\t512\n"+
		"2026-10-10T13:55:30Z\trequests\tstatus=200\t512\n"+
		"2026-10-10T13:55:30Z\trequests\tstatus=200\t1024\n")
	want := `tgread: stdin line 5 replaces requests{status="200"} at 2026-10-10T13:55:30Z: 512 -> 1024 (a fragment: the old defect's signature; run tgcheck --scan)` + "\n" +
		"tgread: note: stdin has 1 series lines of buckets without a seal, left out: a group being written, or cut short (the store's next run under feed, feed --cursor FILE STORE... -- tally --run DIR as before, repairs it; tgcheck says more)\n"
	if r.stderr != want {
		t.Errorf("stderr %q, want %q", r.stderr, want)
	}
}

func TestAStreamedTableIsATableABucket(t *testing.T) {
	tgread(t, "2026-10-10T13:55:30Z a 1\nseal 2026-10-10T13:55:30Z width=10s entries=1\n2026-10-10T13:55:40Z bb 22\nseal 2026-10-10T13:55:40Z width=10s entries=1\n", "-f", "table").
		want(t, 0, "TIME                  METRIC  LABELS  VALUE\n2026-10-10T13:55:30Z  a               1\n\nTIME                  METRIC  LABELS  VALUE\n2026-10-10T13:55:40Z  bb              22\n")
}
