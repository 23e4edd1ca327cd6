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
// without its seal (series and !cap lines after the last seal or marker,
// with the later kinds' lines among and after them: groupStart), which a
// failed append (a full disk) or a crash can leave. Neither was
// ever a whole record group, and the entries they spoke for are replayed
// from the cursor, so the replay writes the group again, whole.
func OpenWriter(path string) (*Writer, []byte, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, nil, err
	}
	torn, size, err := tornTail(f, true)
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

// Torn returns what OpenWriter would cut from the tape at path, and the
// size it would leave, without changing the file: a caller can decide
// whether to go on before anything is written. A missing tape is empty.
func Torn(path string) (torn []byte, size int64, err error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	if torn, size, err = tornTail(f, false); err != nil {
		return nil, 0, fmt.Errorf("tape %s: %w", path, err)
	}
	return torn, size, nil
}

// tornTail finds f's torn tail (bytes after its last '\n', then a group
// without its seal), cuts it when cut, and returns it and the size left.
func tornTail(f *os.File, cut bool) ([]byte, int64, error) {
	torn, size, err := repair(f, cut)
	if err == nil {
		var group []byte
		group, size, err = cutOpenGroup(f, size, cut)
		torn = append(group, torn...)
	}
	return torn, size, err
}

// repair truncates f after its last '\n' (when cut) and returns what it cut.
func repair(f *os.File, cut bool) ([]byte, int64, error) {
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
			at := start + int64(i) + 1
			if at == size {
				return nil, size, nil
			}
			torn = make([]byte, size-at)
			if _, err := f.ReadAt(torn, at); err != nil {
				return nil, 0, err
			}
			return torn, at, truncate(f, at, cut)
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
	return torn, 0, truncate(f, 0, cut)
}

// cutOpenGroup truncates f (size bytes of whole lines) where its trailing
// group without a seal starts (when cut; groupStart), and returns what it cut.
func cutOpenGroup(f *os.File, size int64, cut bool) ([]byte, int64, error) {
	keep, err := groupStart(f, size, false)
	if err != nil || keep == size {
		return nil, size, err
	}
	group := make([]byte, size-keep)
	if _, err := f.ReadAt(group, keep); err != nil {
		return nil, 0, err
	}
	return group, keep, truncate(f, keep, cut)
}

// OrphanGroup returns where the tape r (size bytes of whole lines) ends
// once a bucket's group left without its seal before its last end
// records (a seal deleted by hand) is cut, with those end records: the
// size of what is left, size itself when there is no such group. Only a
// caller that replays every store the tape counted from 0 may cut it: the
// replay seals that bucket again, whole, and writes a new end record.
func OrphanGroup(r io.ReaderAt, size int64) (int64, error) {
	return groupStart(r, size, true)
}

// groupStart returns where the unsealed group at the end of the tape r
// (size bytes of whole lines) starts, after end records when ends: its
// first series or !cap line after the tape's last other record, or size
// when there is none. A later kind's line (ParseOrLater) is no record
// this version can place: one among the group's lines or after them was
// written with the group (a later version writes a group in one append
// too) and is cut with it, so that no series line of a torn group stays
// behind to be a fragment of the group the replay writes again; one
// before the group's first line stays where it is.
func groupStart(r io.ReaderAt, size int64, ends bool) (int64, error) {
	keep := size
	next := false // the line after the one scanned is a series or !cap line
	group, stopped := false, false
	err := ScanBack(r, size, func(rec *Record, end int64) bool {
		if next {
			keep = end
		}
		switch {
		case rec.Kind == Series || rec.Kind == Cap:
			next, group = true, true
			return true
		case rec.Kind == Later, ends && !group && rec.Kind == End:
			next = false
			return true
		}
		stopped = true
		return false
	})
	if err != nil {
		return size, err
	}
	if next && !stopped {
		keep = 0 // the group is the tape's first line on
	}
	return keep, nil
}

// CutTo cuts the tape to size bytes (what OrphanGroup leaves), durably,
// before anything is appended.
func (w *Writer) CutTo(size int64) error {
	if err := truncate(w.f, size, true); err != nil {
		return err
	}
	w.size = size
	_, err := w.f.Seek(size, io.SeekStart)
	return err
}

func truncate(f *os.File, size int64, cut bool) error {
	if !cut {
		return nil
	}
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
