package tally

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/timbertally/timbertally/lib/atomicfile"
	"github.com/timbertally/timbertally/lib/doc"
	"github.com/timbertally/timbertally/lib/lockfile"
)

// A tally store is a directory holding document (a frozen copy of the
// document), tape (the append-only records) and lock (held by the one
// tally --run).
const (
	documentFile = "document"
	tapeFile     = "tape"
	lockFile     = "lock"
)

// provision creates a tally store in dir for document d. An existing store
// is refused unless replace, which moves its tape aside (never deletes it)
// and returns the path it moved to.
func provision(dir string, d *doc.Doc, replace bool, now time.Time) (moved string, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	tp := filepath.Join(dir, tapeFile)
	_, statErr := os.Stat(tp)
	exists := statErr == nil
	if exists && !replace {
		return "", fmt.Errorf("%s already holds a tally store; add --replace to start a new tape (the old one is kept beside it)", dir)
	}
	l, err := lock(dir)
	if err != nil {
		return "", err
	}
	defer l.Close()
	if exists {
		moved = tp + ".replaced." + now.UTC().Format(time.RFC3339)
		if _, err := os.Stat(moved); err == nil {
			return "", fmt.Errorf("%s already exists; wait a second and run --replace again", moved)
		}
		if err := os.Rename(tp, moved); err != nil {
			return "", err
		}
		// The bindings say what the old tape was counted from: they go
		// with it (a new tape could reuse its inode once it is deleted).
		if err := os.Rename(filepath.Join(dir, bindingsFile), replacedBindings(dir, moved)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return moved, err
		}
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, documentFile), d.Text); err != nil {
		return moved, err
	}
	f, err := os.OpenFile(tp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return moved, err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return moved, err
	}
	return moved, errors.Join(f.Close(), atomicfile.SyncDir(dir))
}

// replacedBindings is where --replace moves the bindings of the tape it
// moved to moved: bindings.replaced.TIME, the tape's time.
func replacedBindings(dir, moved string) string {
	return filepath.Join(dir, bindingsFile+strings.TrimPrefix(filepath.Base(moved), tapeFile))
}

// loadDocument reads the store's frozen document.
func loadDocument(dir string) (*doc.Doc, error) {
	p := filepath.Join(dir, documentFile)
	text, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s is not a tally store (no %s); make one with tally --provision --doc apache-combined %s", dir, documentFile, dir)
	}
	if err != nil {
		return nil, err
	}
	return doc.Parse(p, text)
}

// lock takes the store's lock without waiting. The holder writes its pid
// and start time into the lock file, so that a refused second process can
// name the running one.
func lock(dir string) (*os.File, error) {
	f, err := lockfile.Take(filepath.Join(dir, lockFile), "tally")
	var held *lockfile.HeldError
	if errors.As(err, &held) {
		return nil, fmt.Errorf("tally store %s is in use by %s; one tally --run per store: stop that one first", dir, held.Holder)
	}
	return f, err
}
