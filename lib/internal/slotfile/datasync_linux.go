package slotfile

import (
	"os"
	"syscall"
)

// datasync flushes f's data: a save in place changes no metadata that
// reading it back needs (the size is fixed), so fdatasync is enough.
func datasync(f *os.File) error {
	for {
		err := syscall.Fdatasync(int(f.Fd()))
		if err != syscall.EINTR {
			return err
		}
	}
}
