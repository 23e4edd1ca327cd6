package testscripts

import (
	"os"
	"strings"
	"testing"
)

// The Go tests' small helpers that every OS's build of them shares.

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
