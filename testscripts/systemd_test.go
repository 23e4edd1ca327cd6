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

// units are the service units shipped, with the binaries they run.
var units = map[string][]string{
	"../deploy/timbertally-web.service": {"feed", "tally"},
	"../deploy/tgpush-web.service":      {"tgpush"},
}

// systemdAnalyze returns the path of systemd-analyze (see tool).
func systemdAnalyze(t *testing.T) string {
	t.Helper()
	return tool(t, "systemd-analyze", "systemd")
}

// installed is a copy of unit, in a temp dir, whose ExecStart names an
// executable there: systemd-analyze verify refuses a unit whose command
// does not exist, and /usr/local/bin/feed is not on a test machine.
func installed(t *testing.T, unit string, binaries []string) string {
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
	for _, b := range binaries {
		if err := os.Symlink(self, filepath.Join(dir, b)); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, filepath.Base(unit))
	if !strings.Contains(string(text), "ExecStart=/usr/local/bin/"+binaries[0]+" ") {
		t.Fatalf("%s: ExecStart no longer runs /usr/local/bin/%s; update this test", unit, binaries[0])
	}
	text = []byte(strings.ReplaceAll(string(text), "/usr/local/bin/", dir+"/"))
	if err := os.WriteFile(path, text, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestTheServiceUnitsVerifyWithoutAComplaint(t *testing.T) {
	sa := systemdAnalyze(t)
	for unit, binaries := range units {
		out, err := exec.Command(sa, "verify", installed(t, unit, binaries)).CombinedOutput()
		if err != nil || len(out) > 0 {
			t.Errorf("systemd-analyze verify %s: %v\n%s", unit, err, out)
		}
	}
}

// TestTheServiceUnitsAreHardenedToAnExposureOf3OrLess runs
// systemd-analyze security on each unit file (--offline: no running
// systemd needed).
func TestTheServiceUnitsAreHardenedToAnExposureOf3OrLess(t *testing.T) {
	sa := systemdAnalyze(t)
	for unit, binaries := range units {
		out, err := exec.Command(sa, "security", "--offline=true", installed(t, unit, binaries)).CombinedOutput()
		m := regexp.MustCompile(`Overall exposure level for \S+: (\d+\.\d)`).FindSubmatch(out)
		if m == nil {
			t.Fatalf("systemd-analyze security --offline=true %s: %v, no exposure level in:\n%s", unit, err, out)
		}
		if level, _ := strconv.ParseFloat(string(m[1]), 64); level > 3.0 {
			t.Errorf("%s: exposure %.1f, above 3.0: harden it (the lines marked ✗ below)\n%s", unit, level, out)
		}
	}
}

func TestEveryShippedUnitIsChecked(t *testing.T) {
	files, _ := filepath.Glob("../deploy/*.service")
	for _, f := range files {
		if _, ok := units[f]; !ok {
			t.Errorf("%s is not in units in systemd_test.go: add it with the binaries it runs", f)
		}
	}
}
