package store

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/timbertally/timbertally/lib/protocol"
)

// DefaultMaxLine is the longest entry, in bytes before its '\n', that a store
// delivers by default; a longer line becomes a skip.
const DefaultMaxLine = 1 << 20

// ParseSpec splits a command-line store "PATH" or "ID=PATH". The default id is
// the file's base name when it matches [A-Za-z0-9._-]+; otherwise the caller
// must name the store.
func ParseSpec(arg string) (id, path string, err error) {
	if name, p, ok := strings.Cut(arg, "="); ok && protocol.ValidID(name) {
		if p == "" {
			return "", "", fmt.Errorf("store: %q names store %s but no file; write ID=PATH", arg, name)
		}
		return name, p, nil
	} else if ok && !strings.Contains(name, "/") {
		return "", "", fmt.Errorf("store: in %q, the id %q is not [A-Za-z0-9._-]+; write ID=PATH with such an id", arg, name)
	}
	if arg == "" {
		return "", "", fmt.Errorf("store: an empty store argument; write PATH or ID=PATH")
	}
	base := filepath.Base(arg)
	if !protocol.ValidID(base) {
		return "", "", fmt.Errorf("store: the file name of %q is not an id ([A-Za-z0-9._-]+); name it ID=PATH", arg)
	}
	return base, arg, nil
}
