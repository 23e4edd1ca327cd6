// Package scenario gives testscript scenarios the commands this project's
// own scenarios use beside the toolkit's binaries, so that a consumer
// author's .txtar files can wait as the project's do:
//
//	testscript.Run(t, testscript.Params{Dir: "testdata", Cmds: scenario.Commands()})
//
// The binaries themselves come from lib/toolkit's Commands, given to
// testscript.Main.
//
// Invariants:
//   - A command polls with a deadline; none sleeps and then asserts an
//     absence (on a loaded machine the absence proves nothing).
//   - A command that fails says what it waited for and what it saw.
//   - None takes testscript's "!" prefix: a scenario waits for the line
//     that shows the state instead.
package scenario

import (
	"flag"
	"os"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// Commands is the scenario commands by name, the map
// testscript.Params.Cmds takes: waitfor (see [Waitfor]).
func Commands() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){"waitfor": Waitfor}
}

// Waitfor is the scenario command
//
//	waitfor [-count N] [-timeout D] [-alive] FILE REGEXP
//	waitfor [-count N] [-timeout D] -line LINEFILE FILE
//	waitfor [-count N] [-timeout D] -prefix LINEFILE FILE
//
// It polls FILE (relative to $WORK) every 10 ms until at least N of its
// complete lines (default 1) match, and fails after D (default 30s) with the
// file's last lines. A missing file counts as no line. A line matches the Go
// regular expression REGEXP; with -line it is the first line of LINEFILE,
// byte for byte; with -prefix it begins with that line (a line computed by
// the scenario, which a regular expression would have to quote). With
// -alive REGEXP's first group is a process id, and a line matches only while
// that process is alive (a lock file naming its holder, which a killed
// holder leaves behind).
func Waitfor(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("waitfor does not take !: wait for the line that shows the state instead")
	}
	fs := flag.NewFlagSet("waitfor", flag.ContinueOnError)
	count := fs.Int("count", 1, "lines that must match")
	timeout := fs.Duration("timeout", 30*time.Second, "how long to wait")
	alive := fs.Bool("alive", false, "REGEXP's first group is a pid that must be alive")
	line := fs.String("line", "", "a file whose first line the lines must equal")
	prefix := fs.String("prefix", "", "a file whose first line the lines must begin with")
	if err := fs.Parse(args); err != nil || fs.NArg() != 2-btoi(*line != "" || *prefix != "") {
		ts.Fatalf("usage: waitfor [-count N] [-timeout D] [-alive] FILE REGEXP | [-line|-prefix LINEFILE] FILE")
	}
	expr := fs.Arg(1)
	switch {
	case *line != "":
		expr = literal(firstLine(ts, *line), true)
	case *prefix != "":
		expr = literal(firstLine(ts, *prefix), false)
	}
	match, err := matcher(expr, *alive)
	ts.Check(err)
	file := ts.MkAbs(fs.Arg(0))
	deadline := time.Now().Add(*timeout)
	for {
		data, _ := os.ReadFile(file)
		n := matching(match, string(data))
		if n >= *count {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("waitfor: after %v, %s has %d lines matching %q, not %d; its last lines:\n%s",
				*timeout, fs.Arg(0), n, expr, *count, tail(string(data), 10))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// literal is the regular expression of lines equal to l (whole) or
// beginning with it.
func literal(l string, whole bool) string {
	if whole {
		return "^" + regexp.QuoteMeta(l) + "$"
	}
	return "^" + regexp.QuoteMeta(l)
}

// matcher is waitfor's test of one line: expr matches it and, with alive,
// its first group names a live process.
func matcher(expr string, alive bool) (func(string) bool, error) {
	re, err := regexp.Compile(expr)
	if err != nil || !alive {
		return re.MatchString, err
	}
	return func(l string) bool { m := re.FindStringSubmatch(l); return len(m) > 1 && isAlive(m[1]) }, nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// firstLine is the first line of the scenario's file name, without its newline.
func firstLine(ts *testscript.TestScript, name string) string {
	l, _, _ := strings.Cut(ts.ReadFile(name), "\n")
	return l
}

// isAlive reports whether the process with the decimal id pid exists.
func isAlive(pid string) bool {
	n, err := strconv.Atoi(pid)
	return err == nil && n > 0 && syscall.Kill(n, 0) == nil
}

// matching counts the complete lines of s that match.
func matching(match func(string) bool, s string) int {
	n := 0
	for line := range strings.Lines(s) {
		if strings.HasSuffix(line, "\n") && match(strings.TrimSuffix(line, "\n")) {
			n++
		}
	}
	return n
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
