package tape

import (
	"bytes"
	"fmt"
	"io"
)

// ByteError is an error about the tape line that starts at byte At:
// ScanBack reads from the end, so it knows a line by its offset, not its
// number.
type ByteError struct {
	At  int64
	Err error
}

func (e *ByteError) Error() string { return fmt.Sprintf("the line at byte %d: %v", e.At, e.Err) }

func (e *ByteError) Unwrap() error { return e.Err }

// ScanBack parses the records of the tape in r (size bytes, every line
// whole) from the last to the first, calling fn for each, with the offset
// just past its line's '\n', until fn returns false. Lines are classified
// by ParseOrLater, as a forward reader classifies them: a well-formed line
// of a later kind is handed to fn as a record of Kind Later, and a damaged
// line stops the scan with a *ByteError naming it. It reads backwards in
// large chunks, so a caller that needs only the recent tail of a tape of
// millions of lines reads only that tail.
func ScanBack(r io.ReaderAt, size int64, fn func(rec *Record, end int64) bool) error {
	const chunk = 256 << 10
	var carry []byte // the start of a line cut by the chunk boundary, with the rest of it
	for end := size; end > 0; {
		// A read as long as the carry: a line of many chunks is read in
		// reads that double, so each of its bytes is copied a few times.
		start := max(0, end-max(chunk, int64(len(carry))))
		buf := make([]byte, end-start, end-start+int64(len(carry)))
		if _, err := r.ReadAt(buf, start); err != nil && err != io.EOF {
			return err
		}
		buf = append(buf, carry...)
		carry = nil
		end = start
		for len(buf) > 0 {
			lineEnd := start + int64(len(buf))
			body := bytes.TrimSuffix(buf, []byte{'\n'})
			i := bytes.LastIndexByte(body, '\n')
			if i < 0 && start > 0 {
				carry = buf
				break
			}
			rec, err := ParseOrLater(body[i+1:])
			if err != nil {
				return &ByteError{start + int64(i+1), err}
			}
			if !fn(&rec, lineEnd) {
				return nil
			}
			buf = buf[:i+1]
		}
	}
	return nil
}
