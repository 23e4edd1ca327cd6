package store

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// readSize is the size of one read: 1 MiB amortises the syscall over
// thousands of typical (~200-byte) entries.
const readSize = 1 << 20

// SkipTooLong is the Skip reason of a line over maxLine.
const SkipTooLong = "too-long"

// Reader reads entries of an append-only file from a position, in large reads.
//
// buf[start:end] holds the bytes read but not yet handed out; pos is the
// position of buf[start] and pos+(end-start) the position of the next read.
// The buffer holds readSize+maxLine+1 bytes, so that after moving a partial
// line (at most maxLine bytes, else it is being skipped) to the front there is
// always room for one full read.
type Reader struct {
	f        *os.File
	path     string
	maxLine  int
	buf      []byte
	start    int
	end      int
	pos      int64
	skipFrom int64 // >= 0 while streaming past a line over maxLine: where it began
}

// Chunk is what Next hands out: whole entries, or one skipped line.
type Chunk struct {
	Offset, End int64  // [Offset, End) on the store's position axis
	Entries     int    // > 0: Data holds exactly this many entries, each with its '\n'
	Data        []byte // the entries' bytes; valid until the next call of Next
	Skip        string // non-empty: one line over maxLine, delivered as no entry, with this reason; Entries == 0
}

// Open opens the store file at path for reading from pos. A file shorter than
// pos is refused: it was truncated or replaced since pos was recorded.
func Open(path string, pos int64, maxLine int) (*Reader, error) {
	if maxLine < 1 {
		return nil, fmt.Errorf("store: the longest line must be at least 1 byte, not %d", maxLine)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	r := &Reader{f: f, path: path, maxLine: maxLine, pos: pos, skipFrom: -1,
		buf: make([]byte, readSize+maxLine+1)}
	if err := r.checkLength(pos); err != nil {
		f.Close()
		return nil, err
	}
	return r, nil
}

// Pos returns the position after the last chunk returned.
func (r *Reader) Pos() int64 {
	if r.skipFrom >= 0 {
		return r.skipFrom
	}
	return r.pos
}

// Size returns the store file's current length in bytes.
func (r *Reader) Size() (int64, error) {
	fi, err := r.f.Stat()
	if err != nil {
		return 0, fmt.Errorf("store: %w", err)
	}
	return fi.Size(), nil
}

// Close closes the store file.
func (r *Reader) Close() error { return r.f.Close() }

// Next returns the next chunk: at most maxEntries entries and about maxBytes
// bytes (always at least one whole entry), or a skip; ok is false when no
// complete line is available now (at the end, or only a partial line without
// '\n').
func (r *Reader) Next(maxEntries, maxBytes int) (c Chunk, ok bool, err error) {
	if maxEntries < 1 {
		return Chunk{}, false, fmt.Errorf("store: a chunk holds at least 1 entry, not %d", maxEntries)
	}
	for {
		if r.skipFrom >= 0 {
			c, ok = r.skipPast()
		} else {
			c, ok = r.cut(maxEntries, maxBytes)
		}
		if ok {
			return c, true, nil
		}
		if r.skipFrom < 0 && r.end-r.start > r.maxLine {
			r.startSkip()
		}
		got, err := r.fill()
		if !got || err != nil {
			return Chunk{}, false, err
		}
	}
}

// cut hands out the whole entries at the front of the buffer, or a Skip when
// the first complete line there is over maxLine.
func (r *Reader) cut(maxEntries, maxBytes int) (Chunk, bool) {
	i, n := r.start, 0
	for n < maxEntries {
		j := bytes.IndexByte(r.buf[i:r.end], '\n')
		if j < 0 || j > r.maxLine || (n > 0 && i+j+1-r.start > maxBytes) {
			if j > r.maxLine && n == 0 {
				return r.take(r.start+j+1, 0), true
			}
			break
		}
		i += j + 1
		n++
	}
	if n == 0 {
		return Chunk{}, false
	}
	return r.take(i, n), true
}

// take hands out buf[start:i] holding n entries (n == 0: one line over maxLine).
func (r *Reader) take(i, n int) Chunk {
	c := Chunk{Offset: r.pos, End: r.pos + int64(i-r.start), Entries: n}
	if n > 0 {
		c.Data = r.buf[r.start:i]
	} else {
		c.Skip = SkipTooLong
	}
	r.pos, r.start = c.End, i
	return c
}

// startSkip begins streaming past the partial line at the front of the
// buffer, which is already over maxLine: its bytes are dropped, not kept.
func (r *Reader) startSkip() {
	r.skipFrom = r.pos
	r.pos += int64(r.end - r.start)
	r.start, r.end = 0, 0
}

// skipPast looks for the '\n' ending the line being skipped, dropping the
// bytes before it, and hands out the whole line as one Skip once found.
func (r *Reader) skipPast() (Chunk, bool) {
	j := bytes.IndexByte(r.buf[r.start:r.end], '\n')
	if j < 0 {
		r.pos += int64(r.end - r.start)
		r.start, r.end = 0, 0
		return Chunk{}, false
	}
	r.pos += int64(j + 1)
	r.start += j + 1
	c := Chunk{Offset: r.skipFrom, End: r.pos, Skip: SkipTooLong}
	r.skipFrom = -1
	return c, true
}

// fill reads once into the free end of the buffer. got is false at the end of
// the file, where it also checks that the file did not shrink.
func (r *Reader) fill() (got bool, err error) {
	if r.start == r.end {
		r.start, r.end = 0, 0
	} else if len(r.buf)-r.end < readSize {
		r.end = copy(r.buf, r.buf[r.start:r.end])
		r.start = 0
	}
	next := r.pos + int64(r.end-r.start)
	n, err := r.f.ReadAt(r.buf[r.end:], next)
	r.end += n
	if n > 0 {
		return true, nil
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return false, fmt.Errorf("store: %w", err)
	}
	return false, r.checkLength(next)
}

// checkLength refuses a file shorter than pos.
func (r *Reader) checkLength(pos int64) error {
	size, err := r.Size()
	if err != nil {
		return err
	}
	if size < pos {
		return &ShorterError{Path: r.path, Size: size, Pos: pos}
	}
	return nil
}

// ShorterError says a store file is shorter than the position to read from:
// it was truncated or replaced, and reading on would lose or repeat entries.
type ShorterError struct {
	Path      string
	Size, Pos int64
}

func (e *ShorterError) Error() string {
	return fmt.Sprintf("store: %s is shorter than the position to read from (%d < %d bytes): it was truncated or replaced; run feed with --reset to re-derive from 0",
		e.Path, e.Size, e.Pos)
}

// tailStep is how far EndOfLastLine reads back at a time.
const tailStep = 64 << 10

// EndOfLastLine returns the position after the file's last '\n' (0 when it
// has none): where to start reading so that only entries appended later are
// delivered, never the tail of a line already being written.
func EndOfLastLine(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("store: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("store: %w", err)
	}
	buf := make([]byte, tailStep)
	for end := fi.Size(); end > 0; {
		from := max(end-tailStep, 0)
		n, err := f.ReadAt(buf[:end-from], from)
		if err != nil && !errors.Is(err, io.EOF) {
			return 0, fmt.Errorf("store: %w", err)
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			return from + int64(i) + 1, nil
		}
		end = from
	}
	return 0, nil
}
