// Package tallystore owns a tally store: the directory tally --provision
// makes and tally --run, tgread, tgcheck and tgpush open. It is the one
// place that knows its layout, makes it, replaces its tape and takes its
// lock; every other package asks it for a path.
//
// A tally store DIR holds:
//
//	DIR/document                 the document, frozen at --provision
//	DIR/tape                     the records, appended by the one tally --run
//	DIR/bindings                 what the tape was counted from (tally's, see docs/bindings.md)
//	DIR/lock                     held by the one process changing the store, naming it
//	DIR/tape.replaced.TIME       a tape that --replace moved aside, never deleted
//	DIR/bindings.replaced.TIME   its bindings, moved with it
//
// Invariants:
//   - No other package spells a file name of the layout: they use [At]'s
//     paths.
//   - A store is a store once its document exists; its tape exists from
//     the same --provision on. Provision refuses a directory that holds a
//     tape unless told to replace it.
//   - Replacing never deletes: the tape and its bindings are renamed beside
//     the new ones, under the same time, and a name already taken is
//     refused, not overwritten.
//   - The document and the empty tape are durable (synced, the directory
//     too) before Provision returns nil.
//   - One process at a time changes a store: [Lock] takes DIR/lock without
//     waiting, and a refusal names the holder.
package tallystore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/timbertally/timbertally/lib/internal/atomicfile"
	"github.com/timbertally/timbertally/lib/internal/doc"
	"github.com/timbertally/timbertally/lib/internal/lockfile"
)

// The file names of the layout.
const (
	documentName = "document"
	tapeName     = "tape"
	bindingsName = "bindings"
	lockName     = "lock"
	replaced     = ".replaced."
)

// Layout is where the files of the tally store in Dir are.
type Layout struct{ Dir string }

// At is the layout of the tally store in dir.
func At(dir string) Layout { return Layout{Dir: dir} }

// Document is the path of the store's frozen document.
func (l Layout) Document() string { return filepath.Join(l.Dir, documentName) }

// Tape is the path of the store's tape.
func (l Layout) Tape() string { return filepath.Join(l.Dir, tapeName) }

// Bindings is the path of the record of what the tape was counted from.
func (l Layout) Bindings() string { return filepath.Join(l.Dir, bindingsName) }

// Lock is the path of the lock the one process changing the store holds.
func (l Layout) Lock() string { return filepath.Join(l.Dir, lockName) }

// IsLock reports whether name, a file name in the store, is its lock
// (which names its holder: not the store's state).
func IsLock(name string) bool { return name == lockName }

// OfTape is the store whose tape is the file path, and false when path is
// not a file named as a store's tape (a tape file elsewhere).
func OfTape(path string) (Layout, bool) {
	if filepath.Base(path) != tapeName {
		return Layout{}, false
	}
	return At(filepath.Dir(path)), true
}

// replacedTape is where --replace moves the tape at now.
func (l Layout) replacedTape(now time.Time) string {
	return l.Tape() + replaced + now.UTC().Format(time.RFC3339)
}

// replacedBindings is where --replace moves the bindings of the tape it
// moved to moved: bindings.replaced.TIME, the tape's time.
func (l Layout) replacedBindings(moved string) string {
	return filepath.Join(l.Dir, bindingsName+strings.TrimPrefix(filepath.Base(moved), tapeName))
}

// Provision makes a tally store in dir for document d. An existing store
// is refused unless replace, which moves its tape (and its bindings) aside,
// never deleting them, and returns the path the tape moved to.
func Provision(dir string, d *doc.Doc, replace bool, now time.Time) (moved string, err error) {
	l := At(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	_, statErr := os.Stat(l.Tape())
	exists := statErr == nil
	if exists && !replace {
		return "", fmt.Errorf("%s already holds a tally store; add --replace to start a new tape (the old one is kept beside it)", dir)
	}
	lk, err := Lock(dir, "tally")
	if err != nil {
		return "", err
	}
	defer lk.Close()
	if exists {
		if moved, err = l.moveAside(now); err != nil {
			return moved, err
		}
	}
	if err := atomicfile.WriteFile(l.Document(), d.Text); err != nil {
		return moved, err
	}
	f, err := os.OpenFile(l.Tape(), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return moved, err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return moved, err
	}
	return moved, errors.Join(f.Close(), atomicfile.SyncDir(dir))
}

// moveAside renames the tape and its bindings to their replaced names.
func (l Layout) moveAside(now time.Time) (string, error) {
	moved := l.replacedTape(now)
	if _, err := os.Stat(moved); err == nil {
		return "", fmt.Errorf("%s already exists; wait a second and run --replace again", moved)
	}
	if err := os.Rename(l.Tape(), moved); err != nil {
		return "", err
	}
	// The bindings say what the old tape was counted from: they go with it
	// (a new tape could reuse its inode once it is deleted).
	if err := os.Rename(l.Bindings(), l.replacedBindings(moved)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return moved, err
	}
	return moved, nil
}

// LoadDocument reads the store's frozen document. A directory without one
// is no tally store, and the error says how to make one.
func LoadDocument(dir string) (*doc.Doc, error) {
	p := At(dir).Document()
	text, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s is not a tally store (no %s); make one with tally --provision --doc apache-combined %s", dir, documentName, dir)
	}
	if err != nil {
		return nil, err
	}
	return doc.Parse(p, text)
}

// Lock takes the store's lock for holder (the command's name) without
// waiting. The holder's pid and start time go into the lock file, so that
// a refused second process can name the running one.
func Lock(dir, holder string) (*os.File, error) {
	f, err := lockfile.Take(At(dir).Lock(), holder)
	var held *lockfile.HeldError
	if errors.As(err, &held) {
		return nil, fmt.Errorf("tally store %s is in use by %s; one tally --run per store: stop that one first", dir, held.Holder)
	}
	return f, err
}
