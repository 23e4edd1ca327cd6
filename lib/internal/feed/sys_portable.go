//go:build !linux || portable

package feed

import (
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The portable path (macOS, FreeBSD, and Linux built with -tags portable,
// which is how CI tests it): poll(2) in place of ppoll(2), whose timeout
// is in milliseconds; pipe(2) and fcntl in place of pipe2(2), under
// syscall.ForkLock so that no child started meanwhile inherits the
// descriptors; and a write of feed's own copy in place of splice(2),
// which is Linux's alone.

// ppoll waits until one of fds is ready or d passes (d < 0: no limit). An
// interrupted wait (EINTR) returns early; the caller looks again anyway.
// A wait shorter than a millisecond waits one: poll(2) cannot say less,
// and 0 would spin.
func ppoll(fds []pollFd, d time.Duration) error {
	ms := -1
	if d >= 0 {
		ms = int((d + time.Millisecond - 1) / time.Millisecond)
	}
	// pollFd is struct pollfd, as unix.PollFd is.
	ufds := unsafe.Slice((*unix.PollFd)(unsafe.Pointer(&fds[0])), len(fds))
	if _, err := unix.Poll(ufds, ms); err != nil && err != unix.EINTR {
		return err
	}
	return nil
}

// pipe2 makes a pipe whose descriptors have flags (O_CLOEXEC,
// O_NONBLOCK), as pipe2(2) does in one call.
func pipe2(p []int, flags int) error {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	if err := syscall.Pipe(p); err != nil {
		return err
	}
	for _, fd := range p {
		if flags&syscall.O_CLOEXEC != 0 {
			syscall.CloseOnExec(fd)
		}
		if flags&syscall.O_NONBLOCK != 0 {
			if err := syscall.SetNonblock(fd, true); err != nil {
				syscall.Close(p[0])
				syscall.Close(p[1])
				return err
			}
		}
	}
	return nil
}

// spliceFile is splice(2), which only Linux has: it says so, and
// writer.splice turns splicing off for the run (the entries are written
// from feed's copy).
func spliceFile(fd int, off *int64, out, n int) (int64, error) {
	return 0, syscall.ENOSYS
}
