package read

import (
	"sync/atomic"

	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/timbertally/timbertally/lib/internal/testkit"
)

func init() { followPoll = 2 * time.Millisecond }

// followStore makes a tally store holding tape.
func followStore(t *testing.T, tape string) string {
	t.Helper()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "document"), []byte("format apache-combined\nwindow 10s\nmetric requests count by=status\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "tape"), []byte(tape), 0o644)
	return dir
}

func appendTo(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString(text)
}

// following runs tgread --follow in the background; stop ends it and
// returns its exit status.
func following(t *testing.T, out, errOut io.Writer, args ...string) (stop func() int) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int)
	go func() {
		done <- runContext(ctx, append([]string{"tgread", "--follow"}, args...), strings.NewReader(""), out, errOut, false, now)
	}()
	return func() int { cancel(); return <-done }
}

const followGroups = `2026-10-10T13:55:30Z requests{status="200"} 4
2026-10-10T13:55:30Z requests{status="404"} 1
seal 2026-10-10T13:55:30Z width=10s entries=5
!drop id=web offset=600 end=700 count=1 reason=no-time
2026-10-10T13:55:40Z requests{status="200"} 7
seal 2026-10-10T13:55:40Z width=10s entries=7
2026-10-10T13:55:50Z requests{status="500"} 2
seal 2026-10-10T13:55:50Z width=10s entries=2
`

func TestFollowPrintsEachGroupWhenItsSealIsAppendedAndNeverHalfAGroup(t *testing.T) {
	cut := strings.Index(followGroups, "seal 2026-10-10T13:55:40Z")
	dir := followStore(t, followGroups[:cut]) // the second group without its seal
	var idle atomic.Int64
	followIdle = func() { idle.Add(1) }
	defer func() { followIdle = func() {} }()
	var out, errOut syncBuffer
	stop := following(t, &out, &errOut, "--format", "tsv", dir)
	waitFor(t, &out, "2026-10-10T13:55:30Z\trequests\tstatus=404\t1\n")
	appendTo(t, filepath.Join(dir, "tape"), followGroups[cut:cut+10]) // a torn seal
	// Two waits at the tape's end after the append: the second began after
	// tgread read the torn seal. Nothing of the second group may show.
	seen := idle.Load()
	testkit.Poll(t, "tgread to read the torn seal and wait at the tape's end", func() bool { return idle.Load() >= seen+2 })
	if strings.Contains(out.String(), "13:55:40Z") {
		t.Fatalf("printed half a group: %q", out.String())
	}
	appendTo(t, filepath.Join(dir, "tape"), followGroups[cut+10:])
	waitFor(t, &out, "2026-10-10T13:55:50Z\trequests\tstatus=500\t2\n")
	if code := stop(); code != 0 {
		t.Fatalf("exit %d after a stop, want 0: %s", code, errOut.String())
	}
	want := "time\tmetric\tlabels\tvalue\n" +
		"2026-10-10T13:55:30Z\trequests\tstatus=200\t4\n" +
		"2026-10-10T13:55:30Z\trequests\tstatus=404\t1\n" +
		"2026-10-10T13:55:40Z\trequests\tstatus=200\t7\n" +
		"2026-10-10T13:55:50Z\trequests\tstatus=500\t2\n"
	if out.String() != want || errOut.String() != "" {
		t.Errorf("stdout %q, stderr %q; want %q", out.String(), errOut.String(), want)
	}
}

func TestFollowPrintsInEveryStreamingFormatWhatTgreadPrintsOfTheWholeTape(t *testing.T) {
	dir := followStore(t, followGroups)
	for _, f := range []string{"tsv", "csv", "json", "tape"} {
		whole := tgread(t, "", "--format", f, dir)
		var out syncBuffer
		stop := following(t, &out, io.Discard, "--format", f, dir)
		waitFor(t, &out, "13:55:50")
		stop()
		if out.String() != whole.stdout {
			t.Errorf("--format %s: --follow printed %q, tgread %q", f, out.String(), whole.stdout)
		}
	}
	var out syncBuffer
	stop := following(t, &out, io.Discard, "--format", "table", dir)
	waitFor(t, &out, "2026-10-10T13:55:50Z  requests  status=500  2\n")
	stop()
	if n := strings.Count(out.String(), "TIME "); n != 3 {
		t.Errorf("a table a group: %d headers in %q", n, out.String())
	}
}

func TestFollowEstimatesQuantilesFromTheDocumentsHistogramsAsAWholeReadDoes(t *testing.T) {
	dir := followStore(t, `2026-10-10T13:55:30Z size_bucket{le="100"} 1
2026-10-10T13:55:30Z size_bucket{le="1000"} 3
2026-10-10T13:55:30Z size_bucket{le="+Inf"} 4
2026-10-10T13:55:30Z size_sum 5000
2026-10-10T13:55:30Z size_count 4
seal 2026-10-10T13:55:30Z width=10s entries=4
`)
	os.WriteFile(filepath.Join(dir, "document"), []byte("format apache-combined\nwindow 10s\nmetric size histogram=bytes buckets=100,1000\n"), 0o644)
	args := []string{"--format", "tsv", "--metric", "size", "--quantile", "0.5", dir}
	whole := tgread(t, "", args...)
	if whole.code != 0 || !strings.Contains(whole.stdout, "quantile=0.5") {
		t.Fatalf("tgread: exit %d, %q %q", whole.code, whole.stdout, whole.stderr)
	}
	var out syncBuffer
	stop := following(t, &out, io.Discard, args...)
	waitFor(t, &out, "quantile=0.5")
	stop()
	if out.String() != whole.stdout {
		t.Errorf("--follow printed %q, tgread %q", out.String(), whole.stdout)
	}
}

func TestFollowStopsWhenTheTapeIsReplacedSayingHowToFollowTheNewOne(t *testing.T) {
	dir := followStore(t, followGroups)
	var out, errOut syncBuffer
	ctx := context.Background()
	done := make(chan int)
	go func() {
		done <- runContext(ctx, []string{"tgread", "--follow", "-f", "tsv", dir}, strings.NewReader(""), &out, &errOut, false, now)
	}()
	waitFor(t, &out, "13:55:50")
	tp := filepath.Join(dir, "tape")
	os.Rename(tp, tp+".replaced.2026-10-10T14:00:00Z")
	os.WriteFile(tp, nil, 0o644)
	if code := <-done; code != 1 || !strings.Contains(errOut.String(), "was replaced") || !strings.Contains(errOut.String(), "run tgread --follow again") {
		t.Errorf("exit %d, stderr %q", code, errOut.String())
	}
}

func TestFollowIsForOneStoreAndTheStreamingFormats(t *testing.T) {
	dir := followStore(t, followGroups)
	for _, args := range [][]string{{"-"}, {dir, dir}, {"--markers", dir}, {"--step", "1m", dir}, {"-f", "openmetrics", dir}} {
		r := tgread(t, "", append([]string{"--follow"}, args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, "--follow") {
			t.Errorf("%q: exit %d, %q", args, r.code, r.stderr)
		}
	}
}

func TestAStreamRemembersOnlyTheNewestBucketsHoweverLongItRuns(t *testing.T) {
	s := &settings{format: "tsv", now: now}
	w := bufio.NewWriter(io.Discard)
	var errOut strings.Builder
	st := s.newStreamer(w, "stdin", &errOut)
	n := 0
	add := func(line string) {
		n++
		if err := st.add([]byte(line), n); err != nil {
			t.Fatal(err)
		}
	}
	start := now.Truncate(10 * time.Second)
	for i := range 5000 {
		ts := start.Add(time.Duration(i) * 10 * time.Second).Format(time.RFC3339)
		add(fmt.Sprintf(`%s requests{status="200"} %d`, ts, i))
		add(fmt.Sprintf(`%s requests{path="/p%d"} 1`, ts, i))
		add(fmt.Sprintf("seal %s width=10s entries=%d", ts, i+1))
	}
	if len(st.printed) > streamMemory || len(st.order) > streamMemory {
		t.Errorf("after 5000 buckets the stream remembers %d buckets (%d in order), want at most %d", len(st.printed), len(st.order), streamMemory)
	}
	// A fragment of a remembered bucket is still reported.
	last := start.Add(4999 * 10 * time.Second).Format(time.RFC3339)
	add(fmt.Sprintf(`%s requests{status="200"} 1`, last))
	add(fmt.Sprintf("seal %s width=10s entries=1", last))
	if !strings.Contains(errOut.String(), "4999 -> 1") {
		t.Errorf("stderr %q lacks the fragment", errOut.String())
	}
}
