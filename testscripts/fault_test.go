package testscripts

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The fault tests run the real binaries as separate processes, built once
// per test run into a temporary directory.
var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// bin returns the path of the built binary name (feed, tally, tgcheck, tgserve).
func bin(t *testing.T, name string) string {
	t.Helper()
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "timbertally-bin-")
		if buildErr != nil {
			return
		}
		cmd := exec.Command("go", "build", "-o", binDir, "../cmd/feed", "../cmd/tally", "../cmd/tgcheck", "../cmd/tgserve")
		out, err := cmd.CombinedOutput()
		if err != nil {
			buildErr = err
			binDir = string(out)
		}
	})
	if buildErr != nil {
		t.Fatalf("go build: %v\n%s", buildErr, binDir)
	}
	return filepath.Join(binDir, name)
}

// run runs argv in dir and returns its stderr and exit status.
func run(t *testing.T, dir string, argv ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return stderr.String(), ee.ExitCode()
	}
	if err != nil {
		t.Fatalf("%v: %v", argv, err)
	}
	return stderr.String(), 0
}

// mustRun runs argv in dir and fails the test unless it exits 0.
func mustRun(t *testing.T, dir string, argv ...string) {
	t.Helper()
	if stderr, code := run(t, dir, argv...); code != 0 {
		t.Fatalf("%s exited %d:\n%s", strings.Join(argv, " "), code, stderr)
	}
}

// writeLog writes n Apache lines, 50 a second of log time, to path: 2000
// entries make four 10 s buckets.
func writeLog(t *testing.T, path string, n int) {
	t.Helper()
	var b bytes.Buffer
	start := time.Date(2026, 10, 10, 13, 0, 0, 0, time.UTC)
	for i := range n {
		ts := start.Add(time.Duration(i) * 20 * time.Millisecond).Format("02/Jan/2006:15:04:05 -0700")
		fmt.Fprintf(&b, "10.0.0.%d - - [%s] \"GET /item/%d HTTP/1.1\" %d %d \"-\" \"fault-test\"\n",
			i%250, ts, i, []int{200, 200, 200, 404, 500}[i%5], 100+i%900)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// wholeTape returns the tape of an uninterrupted run of feed and tally over
// the store at logPath, under the id web.
func wholeTape(t *testing.T, logPath string) []byte {
	t.Helper()
	dir := t.TempDir()
	mustRun(t, dir, bin(t, "tally"), "--provision", "--doc", "apache-combined", "whole")
	mustRun(t, dir, bin(t, "feed"), "-q", "web="+logPath, "--", bin(t, "tally"), "--run", "whole")
	return readFile(t, filepath.Join(dir, "whole", "tape"))
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestATapeOnAFullDiskStopsThePipelineAndARestartWritesTheExactTape(t *testing.T) {
	work := t.TempDir()
	logPath := filepath.Join(work, "web.log")
	writeLog(t, logPath, 20000) // 40 buckets, a tape of ~13 KiB
	want := wholeTape(t, logPath)
	disk := mountTmpfs(t, 8<<10)
	feed, tally := bin(t, "feed"), bin(t, "tally")
	mustRun(t, disk, tally, "--provision", "--doc", "apache-combined", "st")
	stderr, code := run(t, disk, feed, "-q", "--batch-size", "256", "--cursor", filepath.Join(work, "cursor"), "web="+logPath, "--", tally, "--run", "st")
	if code == 0 || !strings.Contains(stderr, "no space left on device") {
		t.Fatalf("feed on a full disk exited %d, want non-zero with the tape's ENOSPC:\n%s", code, stderr)
	}
	// Every durable offset is covered by the tape: a restart with room
	// writes exactly the uninterrupted tape, no entry lost or counted twice.
	grow(t, disk, 1<<20)
	mustRun(t, disk, feed, "-q", "--batch-size", "256", "--cursor", filepath.Join(work, "cursor"), "web="+logPath, "--", tally, "--run", "st")
	if got := readFile(t, filepath.Join(disk, "st", "tape")); !bytes.Equal(got, want) {
		t.Fatalf("tape after the disk-full restart differs from the uninterrupted tape:\n%s\nwant:\n%s", got, want)
	}
	mustRun(t, disk, bin(t, "tgcheck"), "--strict", "--entries", "20000", "--against", "web="+logPath, "st")
}

func TestACursorOnAFullDiskStopsFeedAndARestartWritesTheExactTape(t *testing.T) {
	work := t.TempDir()
	logPath := filepath.Join(work, "web.log")
	writeLog(t, logPath, 20000)
	want := wholeTape(t, logPath)
	disk := mountTmpfs(t, 64<<10)
	// The disk is full before the first save: the cursor cannot be written.
	filler := filepath.Join(disk, "filler")
	os.WriteFile(filler, bytes.Repeat([]byte("x"), 64<<10), 0o644)
	feed, tally := bin(t, "feed"), bin(t, "tally")
	mustRun(t, work, tally, "--provision", "--doc", "apache-combined", "st")
	cur := filepath.Join(disk, "cursor")
	stderr, code := run(t, work, feed, "-q", "--batch-size", "256", "--cursor", cur, "web="+logPath, "--", tally, "--run", "st")
	if code == 0 || !strings.Contains(stderr, "feed: cursor: cannot save "+cur) || !strings.Contains(stderr, "no space left on device") {
		t.Fatalf("feed with a full cursor disk exited %d, want non-zero naming the cursor:\n%s", code, stderr)
	}
	if _, err := os.Stat(cur); err == nil {
		t.Fatalf("a cursor was written on a full disk")
	}
	os.Remove(filler)
	mustRun(t, work, feed, "-q", "--batch-size", "256", "--cursor", cur, "web="+logPath, "--", tally, "--run", "st")
	if got := readFile(t, filepath.Join(work, "st", "tape")); !bytes.Equal(got, want) {
		t.Fatalf("tape after the cursor's disk-full restart differs from the uninterrupted tape")
	}
}

func TestTheConsumerArgvIsPassedLiterallyWithNoShell(t *testing.T) {
	dir := t.TempDir()
	writeLog(t, filepath.Join(dir, "web.log"), 10)
	os.WriteFile(filepath.Join(dir, "args.sh"), []byte("printf '%s\\n' \"$@\" > args.txt\ncat > /dev/null\n"), 0o644)
	hostile := []string{"a; touch pwned1", "$(touch pwned2)", "`touch pwned3`", "> pwned4", "*"}
	mustRun(t, dir, append([]string{bin(t, "feed"), "-q", "web.log", "--", "sh", "args.sh"}, hostile...)...)
	if got := string(readFile(t, filepath.Join(dir, "args.txt"))); got != strings.Join(hostile, "\n")+"\n" {
		t.Fatalf("the consumer got the arguments %q, want %q verbatim", got, hostile)
	}
	matches, _ := filepath.Glob(filepath.Join(dir, "pwned*"))
	if len(matches) > 0 {
		t.Fatalf("a shell ran the consumer's arguments: %v exist", matches)
	}
}

func TestTheCursorAndTapeRespectTheUmask(t *testing.T) {
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	dir := t.TempDir()
	writeLog(t, filepath.Join(dir, "web.log"), 2000)
	mustRun(t, dir, bin(t, "tally"), "--provision", "--doc", "apache-combined", "st")
	mustRun(t, dir, bin(t, "feed"), "-q", "--cursor", "cur", "web.log", "--", bin(t, "tally"), "--run", "st")
	for _, name := range []string{"cur", "st/tape"} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, %v; want 0600 under umask 077", name, fi.Mode().Perm(), err)
		}
	}
}

// startFeed starts feed with argv in dir, its stderr in the file
// feed.stderr there, which the test may read while feed runs; the test's
// end kills it.
func startFeed(t *testing.T, dir string, argv ...string) (*exec.Cmd, fileText) {
	t.Helper()
	cmd := exec.Command(bin(t, "feed"), argv...)
	cmd.Dir = dir
	stderr := fileText(filepath.Join(dir, "feed.stderr"))
	f, err := os.Create(string(stderr))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd.Stderr = f
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	return cmd, stderr
}

func TestAHungConsumerIsWarnedOnceAndSIGTERMStillStopsFeedCleanly(t *testing.T) {
	dir := t.TempDir()
	writeLog(t, filepath.Join(dir, "web.log"), 2000)
	// Reads everything and never reports: the first batch is never taken.
	cmd, stderr := startFeed(t, dir, "--stall", "100ms", "--idle-tick", "50ms", "--cursor", "cur", "web.log", "--", "sh", "-c", "cat > /dev/null")
	waitUntil(t, "the stall warning", func() bool { return strings.Contains(stderr.String(), "has been parked") })
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 143 {
		t.Fatalf("feed after SIGTERM: %v, want exit 143\n%s", err, stderr)
	}
	if n := strings.Count(stderr.String(), "has been parked"); n != 1 {
		t.Fatalf("the stall warning was printed %d times, want once:\n%s", n, stderr)
	}
	if !strings.Contains(stderr.String(), "feed: interrupted by SIGTERM: no end sent") {
		t.Fatalf("no interrupt note:\n%s", stderr)
	}
	// The cursor names the store's file from the start, but at offset 0:
	// no report was ever made, so nothing is durable.
	if cur, err := os.ReadFile(filepath.Join(dir, "cur")); err != nil || !strings.Contains(string(cur), " offset=0 ") {
		t.Fatalf("the cursor should hold offset 0 (%v):\n%s", err, cur)
	}
}

func TestFeedKilledWhileTallyRunsSealsNothingEarlyAndARestartIsExact(t *testing.T) {
	dir := t.TempDir()
	logPath := filepath.Join(dir, "web.log")
	writeLog(t, logPath, 20000)
	want := wholeTape(t, logPath)
	tally := bin(t, "tally")
	mustRun(t, dir, tally, "--provision", "--doc", "apache-combined", "st")
	// Stopped by SIGKILL once some buckets are sealed: tally sees EOF
	// without end, so it seals no open bucket and writes no end.
	cmd, _ := startFeed(t, dir, "--follow", "--idle-tick", "1h", "--batch-size", "64", "--cursor", "cur", "web="+logPath, "--", tally, "--run", "st")
	tape := filepath.Join(dir, "st", "tape")
	waitUntil(t, "a seal on the tape", func() bool { b, _ := os.ReadFile(tape); return bytes.Contains(b, []byte("seal ")) })
	cmd.Process.Kill()
	cmd.Wait()
	// The orphaned tally exits on its own; until then the lock refuses a
	// second one and the restart fails harmlessly.
	waitUntil(t, "a restart to complete", func() bool {
		_, code := run(t, dir, bin(t, "feed"), "-q", "--cursor", "cur", "web="+logPath, "--", tally, "--run", "st")
		return code == 0
	})
	if got := readFile(t, tape); !bytes.Equal(got, want) {
		t.Fatalf("tape after feed was killed and restarted differs from the uninterrupted tape")
	}
}
