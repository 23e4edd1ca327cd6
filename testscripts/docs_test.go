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
	doc, err := os.ReadFile("../docs/examples/ack.sh")
	if err != nil {
		t.Fatal(err)
	}
	ar, err := txtar.ParseFile("docs_ack_consumer.txtar")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ar.Files {
		if f.Name == "ack.sh" {
			if !bytes.Equal(f.Data, doc) {
				t.Errorf("ack.sh in docs_ack_consumer.txtar differs from docs/examples/ack.sh; copy the script into the txtar:\n%s\nwant:\n%s", f.Data, doc)
			}
			return
		}
	}
	t.Error("docs_ack_consumer.txtar holds no ack.sh; put a copy of docs/examples/ack.sh in it")
}
