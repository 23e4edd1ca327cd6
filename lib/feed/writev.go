package feed

import (
	"syscall"
	"unsafe"
)

// writer writes to the consumer's stdin, a non-blocking pipe: a batch's
// header and entries in one writev, so that the consumer wakes once per
// batch, not once for the header and again for the entries, and the entries
// go out from the read buffer uncopied.
type writer struct {
	fd      int
	iov     [2]syscall.Iovec
	written int64 // bytes written so far: whether the consumer is taking them
	// wait blocks until the pipe may have room again; it pumps reports
	// meanwhile, and its error (an interrupt) abandons the write.
	wait func() error
}

// write2 writes a then b, whole, unless an error (EPIPE, an interrupt) stops it.
func (w *writer) write2(a, b []byte) error {
	for len(a)+len(b) > 0 {
		n, err := w.writev(a, b)
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			if err := w.wait(); err != nil {
				return err
			}
			continue
		case err != nil:
			return err
		}
		w.written += int64(n)
		if n < len(a) {
			a = a[n:]
			continue
		}
		a, b = nil, b[n-len(a):]
	}
	return nil
}

// writev does one writev(2) of the non-empty ones of a and b.
func (w *writer) writev(a, b []byte) (int, error) {
	iov := w.iov[:0]
	for _, p := range [2][]byte{a, b} {
		if len(p) > 0 {
			v := syscall.Iovec{Base: &p[0]}
			v.SetLen(len(p))
			iov = append(iov, v)
		}
	}
	n, _, e := syscall.Syscall(syscall.SYS_WRITEV, uintptr(w.fd), uintptr(unsafe.Pointer(&iov[0])), uintptr(len(iov)))
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}
