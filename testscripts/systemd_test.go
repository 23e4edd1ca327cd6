package testscripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

const unit = "../deploy/timbertally-web.service"

// systemdAnalyze returns the path of systemd-analyze (see tool).
func systemdAnalyze(t *testing.T) string {
	t.Helper()
	return tool(t, "systemd-analyze", "systemd")
}

// installed is a copy of the unit, in a temp dir, whose ExecStart names
// an executable there: systemd-analyze verify refuses a unit whose
// command does not exist, and /usr/local/bin/feed is not on a test machine.
func installed(t *testing.T) string {
	t.Helper()
	text, err := os.ReadFile(unit)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []string{"feed", "tally"} {
		if err := os.Symlink(self, filepath.Join(dir, b)); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, filepath.Base(unit))
	if !strings.Contains(string(text), "/usr/local/bin/feed ") {
		t.Fatalf("%s: ExecStart no longer runs /usr/local/bin/feed; update this test", unit)
	}
	text = []byte(strings.ReplaceAll(string(text), "/usr/local/bin/", dir+"/"))
	if err := os.WriteFile(path, text, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestTheServiceUnitVerifiesWithoutAComplaint(t *testing.T) {
	sa := systemdAnalyze(t)
	out, err := exec.Command(sa, "verify", installed(t)).CombinedOutput()
	if err != nil || len(out) > 0 {
		t.Fatalf("systemd-analyze verify %s: %v\n%s", unit, err, out)
	}
}

// TestTheServiceUnitIsHardenedToAnExposureOf3OrLess runs systemd-analyze
// security on the unit file (--offline: no running systemd needed).
func TestTheServiceUnitIsHardenedToAnExposureOf3OrLess(t *testing.T) {
	sa := systemdAnalyze(t)
	out, err := exec.Command(sa, "security", "--offline=true", installed(t)).CombinedOutput()
	m := regexp.MustCompile(`Overall exposure level for \S+: (\d+\.\d)`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("systemd-analyze security --offline=true: %v, no exposure level in:\n%s", err, out)
	}
	if level, _ := strconv.ParseFloat(string(m[1]), 64); level > 3.0 {
		t.Fatalf("%s: exposure %.1f, above 3.0: harden it (the lines marked ✗ below)\n%s", unit, level, out)
	}
}
