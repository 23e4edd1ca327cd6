package testscripts

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// units are the service units shipped, with the binaries they run.
var units = map[string][]string{
	"../deploy/timbertally-web.service": {"feed", "tally"},
	"../deploy/tgpush-web.service":      {"tgpush"},
	"../deploy/timbertally@.service":    {"feed", "tally"},
	"../deploy/tgserve.service":         {"tgserve"},
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
	// A template is checked as one instance of it (timbertally@web).
	path := filepath.Join(dir, strings.Replace(filepath.Base(unit), "@.", "@web.", 1))
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

// TestTheSiteTemplateProvisionsAMissingStoreOnceAndFollowsTheSitesLog
// runs timbertally@.service's commands as systemd would for the instance
// web (its specifiers and environment file expanded, the binaries in a
// temp dir, the store there): a first start provisions the store with
// DOC, a second leaves it as it is, and feed follows LOG into it.
func TestTheSiteTemplateProvisionsAMissingStoreOnceAndFollowsTheSitesLog(t *testing.T) {
	text, err := os.ReadFile("../deploy/timbertally@.service")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "access.log")
	writeLog(t, log, 2000)
	env := map[string]string{"LOG": log, "DOC": "apache-combined"}
	command := func(key string) string {
		m := regexp.MustCompile(`(?m)^` + key + `=((?:.*\\\n)*.*)$`).FindStringSubmatch(string(text))
		if m == nil {
			t.Fatalf("no %s= in the unit", key)
		}
		c := strings.ReplaceAll(m[1], "\\\n", "")
		c = strings.ReplaceAll(c, "%i", "web")
		c = strings.ReplaceAll(c, "/var/lib/timbertally", dir)
		c = strings.ReplaceAll(c, "${LOG}", env["LOG"])
		c = strings.ReplaceAll(c, "$$", "$")
		return strings.ReplaceAll(c, "/usr/local/bin/", "")
	}
	pre := command("ExecStartPre")
	prefix := "/bin/sh -c '"
	if !strings.HasPrefix(pre, prefix) || !strings.HasSuffix(pre, "'") {
		t.Fatalf("ExecStartPre is not /bin/sh -c '...': %s", pre)
	}
	script := strings.TrimSuffix(strings.TrimPrefix(pre, prefix), "'")
	runPre := func() {
		t.Helper()
		cmd := exec.Command("/bin/sh", "-c", script)
		cmd.Env = append(os.Environ(), "DOC="+env["DOC"])
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("ExecStartPre: %v\n%s", err, out)
		}
	}
	runPre()
	doc, err := os.ReadFile(filepath.Join(dir, "web", "document"))
	if err != nil || !strings.Contains(string(doc), "format apache-combined") {
		t.Fatalf("the first start did not provision the store with DOC: %v\n%s", err, doc)
	}
	argv := strings.Fields(command("ExecStart"))
	argv = slices.DeleteFunc(argv, func(a string) bool { return a == "--follow" }) // read the log to its end and stop
	mustRun(t, dir, argv...)
	tp := readFile(t, filepath.Join(dir, "web", "tape"))
	env["DOC"] = "nginx-combined" // an edited environment file: the store keeps its document
	runPre()
	if again := readFile(t, filepath.Join(dir, "web", "tape")); !bytes.Equal(again, tp) {
		t.Fatal("a second start changed the tape")
	}
	if doc2, _ := os.ReadFile(filepath.Join(dir, "web", "document")); !bytes.Equal(doc2, doc) {
		t.Fatal("a second start provisioned the store again")
	}
	if n := accounted(t, tp); n != 2000 {
		t.Errorf("the tape accounts for %d entries of the site's 2000", n)
	}
}
