package testscripts

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// The Go tests' small helpers, every OS's build of them, in one place:
// the one poll with a deadline (waitUntil) and what is built on it, a
// process's output read while it runs (fileText: a file, which needs no
// lock), a file written whole, a floor for kill harnesses.
// (lib/internal/testkit is the packages' copy; the scenarios import only the public
// API, as a consumer author's tests would.)

// waitUntil polls cond every 10 ms for up to 60 s, and fails the test,
// naming what, when it never held. It is the one wait of these tests: none
// sleeps and then asserts an absence.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waited 60s for %s", what)
		}
	}
}

// waitfor polls a file until it holds s.
func waitfor(t *testing.T, path, s string) {
	t.Helper()
	waitUntil(t, fmt.Sprintf("%q in %s", s, path), func() bool {
		data, _ := os.ReadFile(path)
		return strings.Contains(string(data), s)
	})
}

// fileText is a file a process writes (its stderr) while the test reads it.
type fileText string

// String is what the file holds now.
func (f fileText) String() string {
	b, _ := os.ReadFile(string(f))
	return string(b)
}

// writeFile writes data to path or fails the test.
func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// killFloor fails a kill harness that ran fewer rounds or made fewer kills
// than its floor: a harness that a loaded machine, a budget or a changed
// timing left with (nearly) nothing to kill proves nothing, and must say
// so rather than pass.
func killFloor(t *testing.T, rounds, minRounds, kills, minKills int) {
	t.Helper()
	if rounds < minRounds || kills < minKills {
		t.Fatalf("the kill harness ran %d rounds and made %d kills, below its floor of %d rounds and %d kills: it proved nothing (a machine too loaded? raise its budget)", rounds, kills, minRounds, minKills)
	}
}
