// Package slotfile keeps a one-line record durable on disk, saved again
// and again in place: a checkpoint written after every unit of work, where
// replacing a file (write a temporary, fsync it, rename it, fsync the
// directory) costs two flushes and a journal commit each time.
//
// The file holds two slots of equal size, each one line: the record, its
// sequence number and a CRC-32C of both, padded with spaces to the slot's
// size. A save overwrites the older slot and flushes the file's data
// (fdatasync: its size never changes, so no metadata is due). Invariants:
//
//   - Once Save returns, Read returns that record, after a crash or a
//     power cut too.
//   - A save cut off at any byte (a crash, a torn sector) leaves the
//     other slot whole: Read returns the record saved before it, and
//     never a mix of the two. A slot whose sum does not match is never
//     read.
//   - A Writer's first save, one whose record outgrows the slots, and one
//     after the file was removed or replaced replace the whole file
//     atomically (package atomicfile); every other save writes in place.
//   - A file not in slots (one line written whole, as before this
//     package) is read as it is: the caller parses what it always did.
//
// One writer at a time per path: the caller holds a lock.
package slotfile

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"slices"
	"strconv"

	"github.com/timbertally/timbertally/lib/internal/atomicfile"
)

// sector is the slots' size unit: a slot starts on a disk sector's
// boundary, so a torn write spoils one slot, not both.
const sector = 512

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// A Writer saves records at one path.
type Writer struct {
	path string
	f    *os.File // the file saved in place; nil before the first save
	size int      // a slot's size
	seq  uint64   // the last save's sequence number
	slot []byte   // the slot being written, kept for the next save
}

// NewWriter saves at path. Its first save replaces the file whole, both
// slots alike, so its sequence numbers need follow no earlier writer's.
func NewWriter(path string) *Writer { return &Writer{path: path} }

// Path is the file the Writer saves.
func (w *Writer) Path() string { return w.path }

// Save makes rec (one line; a trailing newline is dropped) the file's
// record, durably.
func (w *Writer) Save(rec []byte) error {
	rec = bytes.TrimSuffix(rec, []byte("\n"))
	if bytes.IndexByte(rec, '\n') >= 0 {
		return errors.New("slotfile: a record is one line")
	}
	w.seq++
	line := frame(rec, w.seq)
	if w.f == nil || len(line) > w.size || !w.inPlace() {
		return w.replace(line)
	}
	w.slot = slices.Grow(w.slot[:0], w.size)[:w.size]
	pad(w.slot, line)
	if _, err := w.f.WriteAt(w.slot, int64(w.seq%2)*int64(w.size)); err != nil {
		return err
	}
	return datasync(w.f)
}

// inPlace reports whether the open file is still the one at the path (not
// removed or replaced since).
func (w *Writer) inPlace() bool {
	open, err := w.f.Stat()
	if err != nil {
		return false
	}
	named, err := os.Stat(w.path)
	return err == nil && os.SameFile(open, named)
}

// replace writes the whole file, both slots holding line, and opens it
// for the saves in place that follow.
func (w *Writer) replace(line []byte) error {
	w.Close()
	w.size = (len(line) + sector - 1) / sector * sector
	data := make([]byte, 2*w.size)
	pad(data[:w.size], line)
	pad(data[w.size:], line)
	if err := atomicfile.WriteFile(w.path, data); err != nil {
		return err
	}
	f, err := os.OpenFile(w.path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	w.f = f
	return nil
}

// Close closes the file; the next Save replaces it whole.
func (w *Writer) Close() error {
	if w.f == nil {
		return nil
	}
	err := w.f.Close()
	w.f = nil
	return err
}

// frame is a slot's line before its padding: rec seq=N sum=HEX.
func frame(rec []byte, seq uint64) []byte {
	b := append(append([]byte(nil), rec...), " seq="...)
	b = strconv.AppendUint(b, seq, 10)
	return fmt.Appendf(b, " sum=%08x", crc32.Checksum(b, castagnoli))
}

// pad fills slot with line, spaces, and the newline that ends it.
func pad(slot, line []byte) {
	n := copy(slot, line)
	for i := n; i < len(slot)-1; i++ {
		slot[i] = ' '
	}
	slot[len(slot)-1] = '\n'
}

// TornError is a file in slots neither of which is whole.
type TornError struct{}

func (TornError) Error() string {
	return "neither of its two slots is whole (each saved record's sum does not match)"
}

// Read returns the newest whole record of the file's content data, with
// its newline, and its sequence number. Content not in slots is returned
// as it is, with seq 0.
func Read(data []byte) (rec []byte, seq uint64, err error) {
	half := len(data) / 2
	if len(data) < 2*sector || half%sector != 0 {
		return data, 0, nil // not sized as slots
	}
	var found bool
	for _, slot := range [][]byte{data[:half], data[half:]} {
		r, n, ok := unframe(slot)
		if ok && (!found || n > seq) {
			rec, seq, found = r, n, true
		}
	}
	switch {
	case !found && bytes.IndexByte(data, '\n') == len(data)-1:
		return data, 0, nil // one line: not in slots
	case !found:
		return nil, 0, TornError{}
	}
	return append(rec, '\n'), seq, nil
}

// unframe reads one slot: its record and sequence number, ok when its sum
// matches.
func unframe(slot []byte) (rec []byte, seq uint64, ok bool) {
	line := bytes.TrimRight(slot, " \n")
	body, sum, found := cutLast(line, " sum=")
	if !found || len(sum) != 8 {
		return nil, 0, false
	}
	want, err := strconv.ParseUint(string(sum), 16, 32)
	if err != nil || uint32(want) != crc32.Checksum(body, castagnoli) {
		return nil, 0, false
	}
	rec, n, found := cutLast(body, " seq=")
	if seq, err = strconv.ParseUint(string(n), 10, 64); !found || err != nil {
		return nil, 0, false
	}
	return append([]byte(nil), rec...), seq, true
}

func cutLast(b []byte, sep string) (before, after []byte, found bool) {
	i := bytes.LastIndex(b, []byte(sep))
	if i < 0 {
		return b, nil, false
	}
	return b[:i], b[i+len(sep):], true
}
