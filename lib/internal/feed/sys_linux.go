//go:build linux && !portable

package feed

import (
	"syscall"
	"time"
	"unsafe"
)

// Linux's path: ppoll(2) with a nanosecond timeout, pipe2(2), splice(2).
// sys_portable.go is the path of every other Unix, and of Linux built
// with -tags portable (which CI tests).

// ppoll waits until one of fds is ready or d passes (d < 0: no limit). An
// interrupted wait (EINTR) returns early; the caller looks again anyway.
func ppoll(fds []pollFd, d time.Duration) error {
	var ts *syscall.Timespec
	if d >= 0 {
		t := syscall.NsecToTimespec(int64(d))
		ts = &t
	}
	_, _, e := syscall.Syscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&fds[0])), uintptr(len(fds)),
		uintptr(unsafe.Pointer(ts)), 0, 0, 0)
	if e != 0 && e != syscall.EINTR {
		return e
	}
	return nil
}

// spliceFlags makes splice non-blocking on the pipe (SPLICE_F_NONBLOCK);
// the store file is read as by a read.
const spliceFlags = 2

// pipe2 is pipe2(2): the descriptors are made with flags at once.
func pipe2(p []int, flags int) error { return syscall.Pipe2(p, flags) }

// spliceFile moves up to n bytes of file fd at *off into the pipe out,
// without blocking on the pipe (see writer.splice).
func spliceFile(fd int, off *int64, out, n int) (int64, error) {
	return syscall.Splice(fd, off, out, nil, n, spliceFlags)
}
