package testscripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAConsumerAuthorsModuleDrivesTheToolkitInItsOwnScenarios builds a
// throwaway module outside the repository, as a consumer author's would
// be: it requires this module (a replace to the checkout), imports only
// lib/toolkit and lib/toolkit/scenario, and its testscript scenario
// (testdata/consumer/consumer.txtar) runs a three-printf consumer under
// feed, and checks the tape tally made with tgcheck and tgread. It fails
// when the public API stops compiling from outside, or the binaries stop
// running in-process in another module's test binary.
func TestAConsumerAuthorsModuleDrivesTheToolkitInItsOwnScenarios(t *testing.T) {
	goPath := tool(t, "go", "golang-go")
	if testing.Short() {
		t.Skip("builds a module and the toolkit in it; -short leaves it out")
	}
	checkout, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/consumer\n\ngo 1.26\n\n"+
		"require github.com/timbertally/timbertally v0.0.0\n\n"+
		"replace github.com/timbertally/timbertally => "+checkout+"\n")
	write("scenario_test.go", string(readFile(t, "testdata/consumer/scenario_test.go.txt")))
	write("testdata/consumer.txtar", string(readFile(t, "testdata/consumer/consumer.txtar")))

	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(goPath, args...)
		cmd.Dir = dir
		// -mod=mod lets go add the requirements the test file's imports
		// need (testscript) and write go.sum, from the module cache or the
		// proxy; GOWORK=off keeps a workspace around the checkout out.
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s in the consumer's module: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run("get", "github.com/rogpeppe/go-internal/testscript")
	out := run("test", "-count=1", "-v", "-run", "TestScenarios/consumer", ".")
	if !strings.Contains(out, "--- PASS: TestScenarios/consumer") {
		t.Errorf("the consumer's scenario did not pass:\n%s", out)
	}
}
