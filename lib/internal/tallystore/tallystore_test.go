package tallystore

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/timbertally/timbertally/lib/internal/doc"
)

func document(t *testing.T) *doc.Doc {
	t.Helper()
	d, err := doc.Parse("test", []byte("format apache-combined\nwindow 10s\nmetric requests count by=status\n"))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// A new store has its document and an empty tape; a second --provision is
// refused, naming --replace, and changes nothing.
func TestProvisionMakesTheDocumentAndAnEmptyTapeAndRefusesASecond(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "web")
	d := document(t)
	if moved, err := Provision(dir, d, false, time.Now()); err != nil || moved != "" {
		t.Fatalf("Provision: %q, %v", moved, err)
	}
	if got, _ := os.ReadFile(At(dir).Document()); string(got) != string(d.Text) {
		t.Errorf("the document is %q, want the document's text", got)
	}
	if fi, err := os.Stat(At(dir).Tape()); err != nil || fi.Size() != 0 {
		t.Errorf("the tape: %v, %v; want an empty file", fi, err)
	}
	os.WriteFile(At(dir).Tape(), []byte("end\n"), 0o644)
	if _, err := Provision(dir, d, false, time.Now()); err == nil || !strings.Contains(err.Error(), "--replace") {
		t.Errorf("a second Provision: %v, want a refusal naming --replace", err)
	}
	if got, _ := os.ReadFile(At(dir).Tape()); string(got) != "end\n" {
		t.Errorf("a refused Provision changed the tape to %q", got)
	}
}

// --replace moves the tape and its bindings aside under one time, deletes
// nothing, and refuses to overwrite a tape moved aside in the same second.
func TestReplaceMovesTheTapeAndItsBindingsAsideAndNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	d := document(t)
	l := At(dir)
	if _, err := Provision(dir, d, false, time.Now()); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(l.Tape(), []byte("old tape\n"), 0o644)
	os.WriteFile(l.Bindings(), []byte("old bindings\n"), 0o644)
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	moved, err := Provision(dir, d, true, now)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "tape.replaced.2026-01-02T03:04:05Z"); moved != want {
		t.Errorf("moved to %s, want %s", moved, want)
	}
	if got, _ := os.ReadFile(moved); string(got) != "old tape\n" {
		t.Errorf("the moved tape holds %q", got)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "bindings.replaced.2026-01-02T03:04:05Z")); string(got) != "old bindings\n" {
		t.Errorf("the moved bindings hold %q", got)
	}
	if _, err := os.Stat(l.Bindings()); err == nil {
		t.Errorf("the new tape has the old tape's bindings")
	}
	os.WriteFile(l.Tape(), []byte("second tape\n"), 0o644)
	if _, err := Provision(dir, d, true, now); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("a second --replace in the same second: %v, want a refusal", err)
	}
	if got, _ := os.ReadFile(moved); string(got) != "old tape\n" {
		t.Errorf("the first moved tape was overwritten: %q", got)
	}
}

// A second holder of the lock is refused, naming the first; a directory
// without a document is no store, and the error says how to make one.
func TestTheLockNamesItsHolderAndANonStoreSaysHowToMakeOne(t *testing.T) {
	dir := t.TempDir()
	lk, err := Lock(dir, "tally")
	if err != nil {
		t.Fatal(err)
	}
	defer lk.Close()
	if _, err := Lock(dir, "tally"); err == nil || !strings.Contains(err.Error(), "in use by tally pid "+strconv.Itoa(os.Getpid())) {
		t.Errorf("a second Lock: %v, want a refusal naming this process", err)
	}
	if _, err := LoadDocument(dir); err == nil || !strings.Contains(err.Error(), "tally --provision --doc apache-combined "+dir) {
		t.Errorf("LoadDocument of no store: %v, want the command that makes one", err)
	}
}

// OfTape knows a store's tape by its path, and nothing else.
func TestOfTapeKnowsAStoresTapeByItsName(t *testing.T) {
	if l, ok := OfTape("/srv/web/tape"); !ok || l.Dir != "/srv/web" {
		t.Errorf("OfTape(/srv/web/tape) = %v, %v", l, ok)
	}
	if _, ok := OfTape("/srv/web/tape.replaced.2026-01-02T03:04:05Z"); ok {
		t.Errorf("a replaced tape is no store's tape")
	}
}

// TestNoOtherPackageSpellsAFileNameOfTheLayout parses every Go file under
// lib/ but the tests (whose fixtures may name a file they make) and fails on a filepath.Join with a literal file
// name of the layout outside this package: the layout has one owner.
func TestNoOtherPackageSpellsAFileNameOfTheLayout(t *testing.T) {
	names := map[string]bool{documentName: true, tapeName: true, bindingsName: true, lockName: true}
	files := 0
	err := filepath.WalkDir("..", func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || filepath.Dir(path) == "." {
			return err
		}
		files++
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if sel, isSel := func() (*ast.SelectorExpr, bool) {
				if !ok {
					return nil, false
				}
				s, ok := call.Fun.(*ast.SelectorExpr)
				return s, ok
			}(); !isSel || sel.Sel.Name != "Join" {
				return true
			}
			for _, a := range call.Args {
				if lit, ok := a.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					if v, _ := strconv.Unquote(lit.Value); names[v] {
						t.Errorf("%s joins the file name %q of a tally store: use tallystore.At(dir)", path, v)
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 80 {
		t.Fatalf("walked %d Go files under lib/, want them all", files)
	}
}
