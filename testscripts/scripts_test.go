// Package testscripts runs the end-to-end scenarios in this folder: each
// .txtar file is a testscript whose commands feed, tally, tgread, tgcheck
// and tgsynth (also as synth) are the real command lines, run as separate processes.
//
// Besides testscript's own commands, a scenario has waitfor (see
// cmdWaitfor), so that it polls for a condition instead of sleeping.
package testscripts

import (
	"flag"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/timbertally/timbertally/lib/check"
	"github.com/timbertally/timbertally/lib/feed"
	"github.com/timbertally/timbertally/lib/read"
	"github.com/timbertally/timbertally/lib/synth"
	"github.com/timbertally/timbertally/lib/tally"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"feed":    func() { os.Exit(feed.Main()) },
		"tally":   func() { os.Exit(tally.Main()) },
		"tgread":  func() { os.Exit(read.Main()) },
		"tgcheck": func() { os.Exit(check.Main()) },
		"tgsynth": func() { os.Exit(synth.Main()) },
		"synth":   func() { os.Exit(synth.Main()) }, // tgsynth's first name, which older scenarios call
	})
}

func TestScenarios(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 ".",
		RequireExplicitExec: true,
		Cmds:                map[string]func(*testscript.TestScript, bool, []string){"waitfor": cmdWaitfor},
	})
}

// cmdWaitfor is the scenario command
//
//	waitfor [-count N] [-timeout D] FILE REGEXP
//
// It polls FILE (relative to $WORK) every 10 ms until at least N of its
// lines (default 1) match the Go regular expression REGEXP, and fails
// after D (default 30s) with the file's last lines. A missing file counts
// as no line.
func cmdWaitfor(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("waitfor does not take !: wait for the line that shows the state instead")
	}
	fs := flag.NewFlagSet("waitfor", flag.ContinueOnError)
	count := fs.Int("count", 1, "lines that must match")
	timeout := fs.Duration("timeout", 30*time.Second, "how long to wait")
	if err := fs.Parse(args); err != nil || fs.NArg() != 2 {
		ts.Fatalf("usage: waitfor [-count N] [-timeout D] FILE REGEXP")
	}
	re, err := regexp.Compile(fs.Arg(1))
	ts.Check(err)
	file := ts.MkAbs(fs.Arg(0))
	deadline := time.Now().Add(*timeout)
	for {
		data, _ := os.ReadFile(file)
		n := matching(re, string(data))
		if n >= *count {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("waitfor: after %v, %s has %d lines matching %q, not %d; its last lines:\n%s",
				*timeout, fs.Arg(0), n, fs.Arg(1), *count, tail(string(data), 10))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// matching counts the complete lines of s that re matches.
func matching(re *regexp.Regexp, s string) int {
	n := 0
	for line := range strings.Lines(s) {
		if strings.HasSuffix(line, "\n") && re.MatchString(strings.TrimSuffix(line, "\n")) {
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
