package testscripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// tool returns the path of a program the test runs, skipping the test
// (naming the Debian package pkg) when it is not installed, except under
// CI=true, where a skip would hide a test that must run.
func tool(t *testing.T, name, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not installed (apt-get install %s); CI must run this test", name, pkg)
		}
		t.Skipf("%s is not installed; apt-get install %s to run this test", name, pkg)
	}
	return p
}

// TestABinaryBuiltFromACloneSaysItsRevisionAndTime builds feed in a fresh
// clone of this repository (a worktree has no .git directory, so go build
// stamps no VCS data there) and checks that --version names the commit and
// its time, as git tells them.
func TestABinaryBuiltFromACloneSaysItsRevisionAndTime(t *testing.T) {
	gitPath, goPath := tool(t, "git", "git"), tool(t, "go", "golang-go")
	dir := t.TempDir()
	run := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-buildvcs=true", "TZ=UTC")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	run(gitPath, "clone", "-q", "--no-hardlinks", mustAbs(t, ".."), "clone")
	dir = filepath.Join(dir, "clone")
	rev := run(gitPath, "rev-parse", "HEAD")
	when := run(gitPath, "log", "-1", "--date=format-local:%Y-%m-%dT%H:%M:%SZ", "--format=%cd")
	run(goPath, "build", "-o", "feed.bin", "./cmd/feed")
	got := run("./feed.bin", "--version")
	// go build names the module's version after the commit too (a
	// pseudo-version), or (devel).
	want := regexp.MustCompile(`^feed version (\(devel\)|v\S+) revision=` + rev + ` time=` + regexp.QuoteMeta(when) + ` go=go\S+$`)
	if !want.MatchString(got) {
		t.Errorf("feed --version printed %q, want one line matching %s", got, want)
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
