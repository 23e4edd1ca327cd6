//go:build !linux || portable

package spin

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// The portable path (macOS, FreeBSD, and Linux built with -tags portable,
// which is how CI tests it): Linux's raw system calls are Linux's numbers
// and request codes. What a poller gives up here is little: Gosched lets
// another goroutine of this process run, not the peer process on a
// shared CPU, and FIONREAD through x/sys is a call Go's scheduler sees.

// Yield is called between two polls: here it lets this process's other
// goroutines run (Linux's path yields the CPU to the peer process).
func Yield() { runtime.Gosched() }

// Waiting returns how many bytes a read of descriptor fd (a pipe, a file)
// would return at once (FIONREAD), or 0 when it cannot tell: what a
// waiter polls.
func Waiting(fd int) int {
	n, err := unix.IoctlGetInt(fd, fionread)
	if err != nil {
		return 0
	}
	return n
}
