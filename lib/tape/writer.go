package tape

import (
	"bytes"
	"fmt"
	"io"
	"os"
)

// Writer appends to a tape file. Appends go straight to the file (one
// write per call, so a record group is never split by another writer's
// bytes); Sync makes them durable.
type Writer struct {
	f    *os.File
	size int64
}

// OpenWriter opens the tape at path for appending, creating it (mode 0644
// before umask) when missing. A torn tail is cut off and returned, so that
// the caller can say so: bytes after the last '\n', and a bucket's group
// without its seal (series and !cap lines after the last seal or marker),
// which a failed append (a full disk) or a crash can leave. Neither was
// ever a whole record group, and the entries they spoke for are replayed
// from the cursor, so the replay writes the group again, whole.
func OpenWriter(path string) (*Writer, []byte, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, nil, err
	}
	torn, size, err := repair(f)
	if err == nil {
		var group []byte
		group, size, err = cutOpenGroup(f, size)
		torn = append(group, torn...)
	}
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("tape %s: %w", path, err)
	}
	if _, err := f.Seek(size, io.SeekStart); err != nil {
		f.Close()
		return nil, nil, err
	}
	return &Writer{f: f, size: size}, torn, nil
}

// repair truncates f after its last '\n' and returns what it cut.
func repair(f *os.File) ([]byte, int64, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	size := fi.Size()
	var torn []byte
	buf := make([]byte, 64<<10)
	for end := size; end > 0; {
		start := max(0, end-int64(len(buf)))
		chunk := buf[:end-start]
		if _, err := f.ReadAt(chunk, start); err != nil {
			return nil, 0, err
		}
		if i := bytes.LastIndexByte(chunk, '\n'); i >= 0 {
			cut := start + int64(i) + 1
			if cut == size {
				return nil, size, nil
			}
			torn = make([]byte, size-cut)
			if _, err := f.ReadAt(torn, cut); err != nil {
				return nil, 0, err
			}
			return torn, cut, truncate(f, cut)
		}
		end = start
	}
	if size == 0 {
		return nil, 0, nil
	}
	torn = make([]byte, size)
	if _, err := f.ReadAt(torn, 0); err != nil {
		return nil, 0, err
	}
	return torn, 0, truncate(f, 0)
}

// cutOpenGroup truncates f (size bytes of whole lines) after its last
// record that is not a series or !cap line, and returns what it cut.
func cutOpenGroup(f *os.File, size int64) ([]byte, int64, error) {
	keep := int64(0)
	err := ScanBack(f, size, func(r *Record, end int64) bool {
		if r.Kind == Series || r.Kind == Cap {
			return true
		}
		keep = end
		return false
	})
	if err != nil || keep == size {
		return nil, size, err
	}
	cut := make([]byte, size-keep)
	if _, err := f.ReadAt(cut, keep); err != nil {
		return nil, 0, err
	}
	return cut, keep, truncate(f, keep)
}

func truncate(f *os.File, size int64) error {
	if err := f.Truncate(size); err != nil {
		return err
	}
	return f.Sync()
}

// File returns the underlying file, for reading the tape's tail.
func (w *Writer) File() *os.File { return w.f }

// Size returns the tape's size after the last append.
func (w *Writer) Size() int64 { return w.size }

// Write appends b in one write.
func (w *Writer) Write(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	n, err := w.f.Write(b)
	w.size += int64(n)
	if err != nil {
		return fmt.Errorf("tape %s: append failed after %d of %d bytes: %w", w.f.Name(), n, len(b), err)
	}
	return nil
}

// Sync makes every append so far durable.
func (w *Writer) Sync() error {
	if err := w.f.Sync(); err != nil {
		return fmt.Errorf("tape %s: fsync failed: %w", w.f.Name(), err)
	}
	return nil
}

// Close closes the file.
func (w *Writer) Close() error { return w.f.Close() }
