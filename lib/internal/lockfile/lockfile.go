// Package lockfile takes an exclusive lock that names its holder: tally
// --run's on its tally store, feed's on its cursor.
//
// Invariants:
//   - The lock is flock(2) on a file of its own, never on the file it
//     guards (a cursor is replaced by a rename, which a lock on it would not
//     survive). It is released when the holder exits, however it exits: a
//     killed holder leaves no stale lock, only its line in the file.
//   - Taking it never waits: a second taker is refused at once with what
//     the holder wrote ("feed pid 4242, started 2026-…"), so an operator can
//     find the process that holds it.
//   - The holder's line is written only once the lock is held.
package lockfile

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"
)

// HeldError is a lock another process holds.
type HeldError struct {
	Path   string
	Holder string // the holder's line, "another process" when it wrote none
}

func (e *HeldError) Error() string { return fmt.Sprintf("%s is held by %s", e.Path, e.Holder) }

// Take locks the file at path (created 0644 when missing) without waiting,
// and writes "who pid N, started TIME" into it. Close the file to release.
func Take(path, who string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder, _ := os.ReadFile(path)
		f.Close()
		h := strings.TrimSpace(string(holder))
		if h == "" {
			h = "another process"
		}
		return nil, &HeldError{Path: path, Holder: h}
	}
	info := fmt.Sprintf("%s pid %d, started %s\n", who, os.Getpid(), time.Now().UTC().Format(time.RFC3339))
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(info), 0)
	}
	return f, nil
}
