package testscripts

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// TestTheAckConsumerScenarioRunsTheDocumentedScript keeps the copy of
// docs/examples/ack.sh in docs_the_three_printf_consumer_takes_every_batch_and_a_skip.txtar (a txtar cannot read the
// repository's files) byte for byte the script the docs show.
func TestTheAckConsumerScenarioRunsTheDocumentedScript(t *testing.T) {
	sameCopy(t, "docs_the_three_printf_consumer_takes_every_batch_and_a_skip.txtar", "ack.sh", "../docs/examples/ack.sh")
}

// TestTheCompletionScenarioRunsTheShippedScript keeps the copy of
// deploy/completion/timbertally.bash in completion_offers_flags_and_values_and_never_runs_the_command.txtar the script shipped.
func TestTheCompletionScenarioRunsTheShippedScript(t *testing.T) {
	sameCopy(t, "completion_offers_flags_and_values_and_never_runs_the_command.txtar", "timbertally.bash", "../deploy/completion/timbertally.bash")
}

// sameCopy fails unless the file name in the scenario script holds the
// bytes of the repository's file path.
func sameCopy(t *testing.T, script, name, path string) {
	t.Helper()
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ar, err := txtar.ParseFile(script)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ar.Files {
		if f.Name == name {
			if !bytes.Equal(f.Data, want) {
				t.Errorf("%s in %s differs from %s; copy the file into the txtar:\n%s\nwant:\n%s", name, script, path[3:], f.Data, want)
			}
			return
		}
	}
	t.Errorf("%s holds no %s; put a copy of %s in it", script, name, path[3:])
}

// TestTheDocsPointOnlyInsideTheRepository keeps README.md and docs/
// readable from a clone: every relative link names a file of the
// repository, and nothing points at ../shared (the contract is
// docs/design.md).
func TestTheDocsPointOnlyInsideTheRepository(t *testing.T) {
	pages, _ := filepath.Glob("../docs/*.md")
	pages = append(pages, "../README.md")
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, page := range pages {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(text, []byte("../shared")) {
			t.Errorf("%s points at ../shared, which a clone does not have; point at docs/design.md", page[3:])
		}
		if bytes.Contains(text, []byte("SPEC §")) && filepath.Base(page) != "design.md" {
			t.Errorf("%s cites SPEC §, which a clone does not have; cite docs/design.md §N, its sections have the same numbers", page[3:])
		}
		for _, m := range link.FindAllSubmatch(text, -1) {
			target, _, _ := strings.Cut(string(m[1]), "#")
			if target == "" || strings.Contains(target, "://") {
				continue
			}
			path := filepath.Join(filepath.Dir(page), target)
			if rel, err := filepath.Rel("..", path); err != nil || strings.HasPrefix(rel, "..") {
				t.Errorf("%s links to %s, outside the repository", page[3:], target)
			} else if _, err := os.Stat(path); err != nil {
				t.Errorf("%s links to %s, which does not exist", page[3:], target)
			}
		}
	}
}

// TestTheCompletionScriptsBindEveryBinary keeps deploy/completion in step
// with cmd/: a new binary completes once its name is on the scripts'
// complete and #compdef lines.
func TestTheCompletionScriptsBindEveryBinary(t *testing.T) {
	dirs, err := os.ReadDir("../cmd")
	if err != nil {
		t.Fatal(err)
	}
	for script, line := range map[string]*regexp.Regexp{
		"../deploy/completion/timbertally.bash": regexp.MustCompile(`(?m)^complete .* -F _timbertally_complete (.*)$`),
		"../deploy/completion/_timbertally":     regexp.MustCompile(`(?m)^#compdef (.*)$`),
	} {
		text, err := os.ReadFile(script)
		if err != nil {
			t.Fatal(err)
		}
		m := line.FindSubmatch(text)
		if m == nil {
			t.Fatalf("%s: no line matching %s", script[3:], line)
		}
		bound := strings.Fields(string(m[1]))
		for _, d := range dirs {
			if d.IsDir() && !slices.Contains(bound, d.Name()) {
				t.Errorf("%s does not bind cmd/%s: add it to the line %q", script[3:], d.Name(), m[0])
			}
		}
	}
}
