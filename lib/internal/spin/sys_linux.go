//go:build linux && !portable

package spin

import (
	"syscall"
	"unsafe"
)

// Yield is called between two polls: on a CPU the poller shares with its
// peer (the scheduler placed them together) it lets the peer run, which is
// what the poller waits for; alone on its CPU it returns at once. Without
// it, a feed polling on tally's CPU held tally back from the report feed
// waited for, missed, rested, and was woken onto tally's CPU again, and
// slept in many more of its waits (figures: bench/README.md, "The figures behind the code's comments"). A raw system call: it never blocks.
func Yield() { syscall.RawSyscall(syscall.SYS_SCHED_YIELD, 0, 0, 0) }

// Waiting returns how many bytes a read of descriptor fd (a pipe, a file)
// would return at once (FIONREAD), or 0 when it cannot tell: what a waiter
// polls. It is a raw system call, which Go's scheduler does not see: it
// never blocks, and a call the scheduler sees may have its thread's P taken
// by the scheduler's monitor, which then has to be woken when the call
// returns (a thread wake-up that, on a VM, preempts the caller on its own
// CPU).
func Waiting(fd int) int {
	var n int32
	if _, _, e := syscall.RawSyscall(syscall.SYS_IOCTL, uintptr(fd), syscall.TIOCINQ, uintptr(unsafe.Pointer(&n))); e != 0 {
		return 0
	}
	return int(n)
}
