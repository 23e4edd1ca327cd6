package tape

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// Moved reports whether path no longer names the open file f: the tape was
// renamed away (tally --provision --replace keeps it as tape.replaced.*)
// and another made in its place, or removed. A follower of a tape stops
// then, rather than wait on a file nothing appends to.
func Moved(f *os.File, path string) (bool, error) {
	now, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	was, err := f.Stat()
	if err != nil {
		return false, err
	}
	return !os.SameFile(now, was), nil
}

// Inode returns the device and inode of a file's info (false on a file
// system without them).
func Inode(fi os.FileInfo) (dev, ino uint64, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return uint64(st.Dev), st.Ino, true
}
