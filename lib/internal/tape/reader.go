package tape

import (
	"bufio"
	"errors"
	"fmt"
	"io"
)

// readSize is the Reader's buffer: reads of 256 KiB keep syscalls far
// rarer than lines (a tape line is ~50 bytes), and a longer line is
// assembled rather than refused.
const readSize = 256 << 10

// ErrTorn is the error (wrapped in a *LineError) for a last line without its
// '\n': a tape being written ends so until its writer finishes the line, and
// a writer that died mid-line leaves one for tally --run to repair.
var ErrTorn = errors.New("tape: the last line is torn (no newline)")

// LineError is an error about one line of a tape; Line counts from 1.
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string {
	if errors.Is(e.Err, ErrTorn) {
		return fmt.Sprintf("tape: line %d is torn (no newline); a tape still being written ends so, else the next run of its tally store DIR repairs it, as it is run under feed (feed --cursor FILE STORE... -- tally --run DIR, its cursor and stores as before): it cuts the line and feed replays what it held", e.Line)
	}
	return fmt.Sprintf("tape: line %d: %v", e.Line, e.Err)
}

func (e *LineError) Unwrap() error { return e.Err }

// Reader streams the lines and records of a tape. Lines have no length
// limit; errors are *LineError naming the line.
type Reader struct {
	br   *bufio.Reader
	line int
	long []byte // a line longer than the buffer, assembled here
}

// NewReader returns a Reader of the tape in r.
func NewReader(r io.Reader) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, readSize)}
}

// Line returns the number of the line last returned (0 before the first).
func (r *Reader) Line() int { return r.line }

// ReadLine returns the next line without its '\n'. The bytes are valid until
// the next call. At the end of the tape it returns io.EOF; a last line
// without '\n' is returned with a *LineError wrapping ErrTorn, so that a
// caller following a live tape may tolerate it.
func (r *Reader) ReadLine() ([]byte, error) {
	b, err := r.br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		r.long = append(r.long[:0], b...)
		for errors.Is(err, bufio.ErrBufferFull) {
			b, err = r.br.ReadSlice('\n')
			r.long = append(r.long, b...)
		}
		b = r.long
	}
	switch {
	case err == nil:
		r.line++
		return b[:len(b)-1], nil
	case err == io.EOF && len(b) == 0:
		return nil, io.EOF
	case err == io.EOF:
		r.line++
		return b, &LineError{r.line, ErrTorn}
	}
	return nil, fmt.Errorf("tape: reading after line %d: %w", r.line, err)
}

// Next returns the next record, classified by ParseOrLater as every
// reader classifies it: a later kind's line is a record of Kind Later. Its
// errors are those of ReadLine, and a *LineError for a line that is no
// record (damage).
func (r *Reader) Next() (Record, error) {
	line, err := r.ReadLine()
	if err != nil {
		return Record{}, err
	}
	rec, err := ParseOrLater(line)
	if err != nil {
		return Record{}, &LineError{r.line, err}
	}
	return rec, nil
}

// Damaged reports whether err is about a line of a tape that is no record
// (a *LineError that is not a torn last line), the error tallystore.Remake fixes.
func Damaged(err error) bool {
	var le *LineError
	return errors.As(err, &le) && !errors.Is(err, ErrTorn)
}
