package testscripts

import (
	"bytes"
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// TestTheAckConsumerScenarioRunsTheDocumentedScript keeps the copy of
// docs/examples/ack.sh in docs_ack_consumer.txtar (a txtar cannot read the
// repository's files) byte for byte the script the docs show.
func TestTheAckConsumerScenarioRunsTheDocumentedScript(t *testing.T) {
	sameCopy(t, "docs_ack_consumer.txtar", "ack.sh", "../docs/examples/ack.sh")
}

// TestTheCompletionScenarioRunsTheShippedScript keeps the copy of
// deploy/completion/timbertally.bash in completion.txtar the script shipped.
func TestTheCompletionScenarioRunsTheShippedScript(t *testing.T) {
	sameCopy(t, "completion.txtar", "timbertally.bash", "../deploy/completion/timbertally.bash")
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
