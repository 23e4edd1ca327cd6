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
	if len(r.olds) > 0 {
		// Inside an older generation (gzip, perhaps) there is no byte to
		// read back to: the read that drops the bytes before the position
		// checks the last of them instead.
		r.dropNL = true
		return true, nil
	}
	if r.f == nil {
		return false, fmt.Errorf("store: %s does not exist, yet the cursor has a position %d bytes into it", r.path, at)
	}
	var b [1]byte
	if _, err := r.f.ReadAt(b[:], at-1); err != nil {
		return false, fmt.Errorf("store: %w", err)
	}
	return b[0] == '\n', nil
}
