//go:build !linux

package slotfile

import "os"

// datasync flushes f: File.Sync, which on macOS is F_FULLFSYNC.
func datasync(f *os.File) error { return f.Sync() }
