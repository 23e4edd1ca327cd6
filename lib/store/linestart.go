package store

import "fmt"

// AtLineStart reports whether the reader's position is where a line
// starts: its generation's first byte, or just after a '\n'. A position
// in the middle of a line (a cursor edited by hand, or another file's)
// would hand out the rest of that line as an entry.
func (r *Reader) AtLineStart() (bool, error) {
	at := r.Pos() - r.gen().Base
	if at == 0 {
		return true, nil
	}
	var b [1]byte
	if _, err := r.f.ReadAt(b[:], at-1); err != nil {
		return false, fmt.Errorf("store: %w", err)
	}
	return b[0] == '\n', nil
}
