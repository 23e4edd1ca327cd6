package feed

import "syscall"

// writer writes to the consumer's stdin, a non-blocking pipe. A batch goes
// out as its header, written, and then its entries, spliced from the store
// file's pages when the file still holds them (feeder.sendEntries asks
// store.Reader.Source before every splice): the pipe then holds references
// to the page cache, not a copy made by feed, and the consumer's read is
// its only copy. That made the pipeline and feed alone faster (figures: bench/README.md, "The figures behind the code's comments"): a write
// copied the entries once more, into pipe pages freshly allocated on
// feed's CPU and then read from tally's.
//
// The referenced pages are the file's: a copytruncate (to 0) drops them
// from the file and the pipe keeps their bytes, but a cut to any other
// length zeroes or reuses the pages from the cut on, bytes still unread in
// the pipe included. docs/decisions.md says why that is left.
//
// The header is a write of its own: a pipe wakes its reader when a write
// ends, so the consumer's wake-up (tens of µs on a VM whose vCPU went idle)
// overlaps the entries' transfer instead of following it.
type writer struct {
	fd      int
	written int64 // bytes written so far: whether the consumer is taking them
	// wait blocks until the pipe may have room again; it pumps reports
	// meanwhile, and its error (an interrupt) abandons the write.
	wait func() error
	// noSplice is set once splice failed for a reason other than a full
	// pipe (a file system without it): the entries are written instead.
	noSplice bool
}

// write writes p whole, unless an error (EPIPE, an interrupt) stops it.
func (w *writer) write(p []byte) error {
	for len(p) > 0 {
		n, err := syscall.Write(w.fd, p)
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
		p = p[n:]
	}
	return nil
}

// splice makes one splice of up to n bytes of file fd at off into the pipe
// and returns how many it moved. full says the pipe had no room: wait, then
// call again. Nothing moved and not full: the file has no bytes there now
// (cut since it was checked), or it cannot be spliced (splicing is then
// off for the run); the caller writes the rest from its own copy. An error
// (EPIPE) stops it as it stops write.
func (w *writer) splice(fd int, off int64, n int) (moved int, full bool, err error) {
	for !w.noSplice {
		m, err := spliceFile(fd, &off, w.fd, n)
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			return 0, true, nil
		case err == syscall.EPIPE:
			return 0, false, err
		case err != nil:
			w.noSplice = true
			return 0, false, nil
		}
		w.written += m
		return int(m), false, nil
	}
	return 0, false, nil
}
