// Package atomicfile replaces a file so that a crash at any moment leaves
// either the old content or the new, whole, and durable once the call
// returns: a temporary file beside it is written and fsynced, renamed over
// it, and the rename made durable by an fsync of the directory.
//
// Files are created with mode 0644 less the umask, never wider.
package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteFile replaces path with data. The temporary file is path + ".tmp";
// one writer at a time per path (the caller holds the store's lock or owns
// the file).
func WriteFile(path string, data []byte) error {
	tmp := path + ".tmp"
	// A temp file left by a crash may have another mode; start afresh so that
	// O_CREATE's 0644 (less the umask) applies.
	if err := os.Remove(tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return SyncDir(filepath.Dir(path))
}

// SyncDir makes a rename or a creation in dir durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
