package feed

import (
	"os"
	"syscall"
	"unsafe"
)

// writer writes a batch's header and entries to a pipe in one writev, so
// that the consumer wakes once per batch, not once for the header and again
// for the entries, and the entries go out from the read buffer uncopied.
type writer struct {
	f   *os.File
	rc  syscall.RawConn
	iov [2]syscall.Iovec
}

func newWriter(f *os.File) (*writer, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	return &writer{f: f, rc: rc}, nil
}

// write2 writes a then b, whole, unless an error (EPIPE, a deadline) stops it.
func (w *writer) write2(a, b []byte) error {
	for len(a) > 0 && len(b) > 0 {
		n, err := w.writev(a, b)
		if err != nil {
			return err
		}
		if n < len(a) {
			a = a[n:]
			continue
		}
		a, b = nil, b[n-len(a):]
	}
	rest := a
	if len(rest) == 0 {
		rest = b
	}
	_, err := w.f.Write(rest)
	return err
}

// writev does one writev(2) of a and b, waiting on the poller while the pipe
// is full.
func (w *writer) writev(a, b []byte) (int, error) {
	w.iov[0] = syscall.Iovec{Base: &a[0]}
	w.iov[0].SetLen(len(a))
	w.iov[1] = syscall.Iovec{Base: &b[0]}
	w.iov[1].SetLen(len(b))
	var n uintptr
	var errno syscall.Errno
	err := w.rc.Write(func(fd uintptr) bool {
		n, _, errno = syscall.Syscall(syscall.SYS_WRITEV, fd, uintptr(unsafe.Pointer(&w.iov[0])), 2)
		return errno != syscall.EAGAIN
	})
	if err == nil && errno != 0 {
		err = &os.PathError{Op: "writev", Path: w.f.Name(), Err: errno}
	}
	return int(n), err
}
