package tape

import (
	"bytes"
	"fmt"
	"io"
)

// ScanBack parses the records of the tape in r (size bytes, every line
// whole) from the last to the first, calling fn for each until fn returns
// false. It reads backwards in large chunks, so a caller that needs only
// the recent tail of a tape of millions of lines reads only that tail.
func ScanBack(r io.ReaderAt, size int64, fn func(*Record) bool) error {
	const chunk = 256 << 10
	var carry []byte // the start of a line cut by the chunk boundary
	lineNo := 0      // counted from the end
	for end := size; end > 0 || len(carry) > 0; {
		start := max(0, end-chunk)
		buf := make([]byte, end-start, end-start+int64(len(carry)))
		if _, err := r.ReadAt(buf, start); err != nil && err != io.EOF {
			return err
		}
		buf = append(buf, carry...)
		end = start
		for {
			buf = bytes.TrimSuffix(buf, []byte{'\n'})
			i := bytes.LastIndexByte(buf, '\n')
			if i < 0 && start > 0 {
				carry = buf
				break
			}
			line := buf[i+1:]
			buf = buf[:max(i, 0)]
			lineNo++
			rec, err := Parse(line)
			if err != nil {
				return fmt.Errorf("line %d from the end: %w", lineNo, err)
			}
			if !fn(&rec) {
				return nil
			}
			if i < 0 {
				return nil
			}
		}
	}
	return nil
}
