package toolkit

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// public is the module's public API: the only lib packages that code
// outside lib/ (the mains, the scenarios, the docs' tests, benchmarks) may
// import, as a consumer author's code can.
var public = []string{"lib/protocol", "lib/toolkit", "lib/toolkit/scenario"}

const module = "github.com/timbertally/timbertally/"

// listed is what go list -json says of a package.
type listed struct {
	ImportPath                         string
	Imports, TestImports, XTestImports []string
}

// TestNothingOutsideLibImportsALibPackageButTheOnesOutsidersMay lists every
// package of the module with go list and fails on an import, test imports
// included, of a lib package other than the public ones by a package
// outside lib/: what the mains and scenarios need, a consumer author's code
// must be able to do too.
func TestNothingOutsideLibImportsALibPackageButTheOnesOutsidersMay(t *testing.T) {
	cmd := exec.Command("go", "list", "-json", module+"...")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	outside := 0
	for dec := json.NewDecoder(strings.NewReader(string(out))); ; {
		var p listed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		rel := strings.TrimPrefix(p.ImportPath, module)
		if strings.HasPrefix(rel, "lib/") {
			continue
		}
		outside++
		for _, imp := range slices.Concat(p.Imports, p.TestImports, p.XTestImports) {
			lib, ok := strings.CutPrefix(imp, module)
			if ok && strings.HasPrefix(lib, "lib/") && !slices.Contains(public, lib) {
				t.Errorf("%s imports %s: outside lib/, import only %s (run the binaries, or read their output with the test's own code)", rel, lib, strings.Join(public, ", "))
			}
		}
	}
	if outside < 8 { // cmd/* (6), testscripts, docs/man at least
		t.Fatalf("go list named %d packages outside lib/, want the mains, testscripts and docs/man", outside)
	}
}

// TestNamesAreTheBinariesUnderCmd: every main under cmd/ is a binary of the
// toolkit and every binary has its main, so that a binary added later is
// also in Commands (and so in a consumer author's scenarios).
func TestNamesAreTheBinariesUnderCmd(t *testing.T) {
	dirs, err := os.ReadDir("../../cmd")
	if err != nil {
		t.Fatal(err)
	}
	var mains []string
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join("../../cmd", d.Name(), "main.go")); err == nil {
			mains = append(mains, d.Name())
		}
	}
	if !slices.Equal(mains, Names()) {
		t.Errorf("cmd/ has %v, toolkit.Names %v", mains, Names())
	}
	for _, n := range Names() {
		if Commands()[n] == nil {
			t.Errorf("Commands has no %s", n)
		}
		if page, err := ManPage(n); err != nil || !strings.Contains(page, n) {
			t.Errorf("ManPage(%s): %v", n, err)
		}
	}
}

// TestAnUnknownNameIsAUsageErrorNamingTheBinaries: Main of a name it does
// not know exits 2, as a usage error does, and ManPage says the same.
func TestAnUnknownNameIsAUsageErrorNamingTheBinaries(t *testing.T) {
	if got := Main("tgnothing"); got != 2 {
		t.Errorf("Main(tgnothing) = %d, want 2", got)
	}
	if _, err := ManPage("tgnothing"); err == nil || !strings.Contains(err.Error(), "feed, tally, tgcheck, tgpush, tgread, tgserve, tgsynth") {
		t.Errorf("ManPage(tgnothing): %v, want an error naming the binaries", err)
	}
}
