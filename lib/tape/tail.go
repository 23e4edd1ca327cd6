package tape

import (
	"bytes"
	"fmt"
	"io"
)

// ScanBack parses the records of the tape in r (size bytes, every line
// whole) from the last to the first, calling fn for each, with the offset
// just past its line's '\n', until fn returns false. It reads backwards in large chunks,
// so a caller that needs only the recent tail of a tape of millions of
// lines reads only that tail.
func ScanBack(r io.ReaderAt, size int64, fn func(rec *Record, end int64) bool) error {
	const chunk = 256 << 10
	var carry []byte // the start of a line cut by the chunk boundary, with the rest of it
	lineNo := 0      // counted from the end
	for end := size; end > 0; {
		start := max(0, end-chunk)
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
			lineNo++
			rec, err := Parse(body[i+1:])
			if err != nil {
				return fmt.Errorf("line %d from the end: %w", lineNo, err)
			}
			if !fn(&rec, lineEnd) {
				return nil
			}
			buf = buf[:i+1]
		}
	}
	return nil
}
