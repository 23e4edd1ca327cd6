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
	f     *os.File
	rc    syscall.RawConn
	iov   [2]syscall.Iovec
	call  func(fd uintptr) bool // w.try, made once so a write allocates nothing
	n     uintptr               // try's results
	errno syscall.Errno
}

func newWriter(f *os.File) (*writer, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	w := &writer{f: f, rc: rc}
	w.call = w.try
	return w, nil
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
	err := w.rc.Write(w.call)
	if err == nil && w.errno != 0 {
		err = &os.PathError{Op: "writev", Path: w.f.Name(), Err: w.errno}
	}
	return int(w.n), err
}

// try is one writev attempt; false asks the poller to wait for room.
func (w *writer) try(fd uintptr) bool {
	w.n, _, w.errno = syscall.Syscall(syscall.SYS_WRITEV, fd, uintptr(unsafe.Pointer(&w.iov[0])), 2)
	return w.errno != syscall.EAGAIN
}
