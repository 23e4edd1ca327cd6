package doc

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
)

// builtinFS holds the shipped documents, one NAME.tally file each; the
// first line of each is "# NAME: summary".
//
//go:embed builtin/*.tally
var builtinFS embed.FS

// Builtin names a shipped document and says what it measures, and what
// the server's config needs for its log to be read (a "# server:" line).
type Builtin struct{ Name, Summary, Server string }

// Builtins lists the shipped documents, sorted by name.
func Builtins() []Builtin {
	entries, _ := builtinFS.ReadDir("builtin") // sorted by file name, so by name
	var list []Builtin
	for _, e := range entries {
		name := strings.TrimSuffix(e.Name(), ".tally")
		text, _ := BuiltinText(name)
		list = append(list, Builtin{Name: name, Summary: summary(name, text), Server: serverLine(text)})
	}
	return list
}

// summary returns what follows "# NAME:" on a document's first line.
func summary(name string, text []byte) string {
	first, _, _ := strings.Cut(string(text), "\n")
	s, _ := strings.CutPrefix(first, "# "+name+":")
	return strings.TrimSpace(s)
}

// serverLine returns what follows "# server:" on a document's second line.
func serverLine(text []byte) string {
	lines := strings.SplitN(string(text), "\n", 3)
	if len(lines) < 2 {
		return ""
	}
	s, _ := strings.CutPrefix(lines[1], "# server:")
	if s == lines[1] {
		return ""
	}
	return strings.TrimSpace(s)
}

// BuiltinText returns a shipped document's source.
func BuiltinText(name string) ([]byte, bool) {
	if name == "" || strings.ContainsAny(name, "/.") {
		return nil, false // keep the name inside builtin/ and off other extensions
	}
	text, err := builtinFS.ReadFile(path.Join("builtin", name+".tally"))
	return text, err == nil
}

// Load parses a shipped document by name, or else the file at nameOrPath.
func Load(nameOrPath string) (*Doc, error) {
	if text, ok := BuiltinText(nameOrPath); ok {
		return Parse(nameOrPath, text)
	}
	text, err := os.ReadFile(nameOrPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, notFound(nameOrPath)
	}
	if err != nil {
		return nil, fmt.Errorf("doc: cannot read %s: %w", nameOrPath, err)
	}
	return Parse(nameOrPath, text)
}

// notFound is Load's error for a name that is neither a built-in document
// nor a file: a mistake in the command line, which errors.Is(err,
// fs.ErrNotExist) tells.
type notFound string

func (n notFound) Error() string {
	return fmt.Sprintf("doc: %q is neither a built-in document (%s) nor a file; name one of those or give a path", string(n), builtinNames())
}

func (notFound) Is(target error) bool { return target == fs.ErrNotExist }

// builtinNames lists the shipped documents' names for an error message.
func builtinNames() string {
	var names []string
	for _, b := range Builtins() {
		names = append(names, b.Name)
	}
	return strings.Join(names, ", ")
}
