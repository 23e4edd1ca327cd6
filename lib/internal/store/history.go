package store

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// gzipMagic opens every gzip file (RFC 1952): a generation is told to be
// compressed by its content, not by its name.
var gzipMagic = []byte{0x1f, 0x8b}

// GenID is what a cursor records of one generation of a store named with
// its history: where it begins on the axis (Base; -1 while not yet reached)
// and a CRC-32 of its first SigLen bytes, decompressed. It is content
// alone: logrotate's compress gives a generation a new file (access.log.1
// becomes access.log.2.gz) but not new first bytes.
type GenID struct {
	Base   int64
	SigLen int
	Sig    uint32
}

// older is one older generation named on the command line: read once,
// from its start, decompressed when it is gzip.
type older struct {
	path string
	gz   bool
	head []byte // its first (up to SigSpan) bytes, decompressed
	size int64  // its file's size (compressed, for gzip)
	f    *os.File
	src  io.Reader // its bytes, decompressed; nil until it is read
}

// openOlder opens the older generation at path and reads its first bytes.
func openOlder(path string) (*older, error) {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("the older generation %s does not exist; name the generations there are, oldest first, as ID=GEN1,…,PATH", path)
	case err != nil:
		return nil, err
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("the older generation %s is a %s, not a log file; name regular files as ID=GEN1,…,PATH", path, kindOf(fi.Mode()))
	}
	o := &older{path: path, size: fi.Size()}
	if err := o.open(); err != nil {
		return nil, err
	}
	defer o.close()
	o.head = make([]byte, SigSpan)
	n, err := io.ReadFull(o.src, o.head)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, o.readErr(err)
	}
	o.head = o.head[:n:n]
	return o, nil
}

// open opens the file and, from its first two bytes, its decompressor.
func (o *older) open() error {
	f, err := os.Open(o.path)
	if err != nil {
		return fmt.Errorf("cannot open the older generation %s: %w", o.path, err)
	}
	br := bufio.NewReaderSize(f, 64<<10)
	magic, _ := br.Peek(len(gzipMagic))
	o.f, o.src, o.gz = f, br, bytes.Equal(magic, gzipMagic)
	if o.gz {
		zr, err := gzip.NewReader(br)
		if err != nil {
			f.Close()
			return o.readErr(err)
		}
		o.src = zr
	}
	return nil
}

func (o *older) close() {
	if o.f != nil {
		o.f.Close()
		o.f, o.src = nil, nil
	}
}

// readErr says what a failed read of the generation means.
func (o *older) readErr(err error) error {
	if o.gz {
		return fmt.Errorf("the older generation %s is gzip but does not decompress (%v): it is damaged or still being compressed; name it once its compression is done, or leave it out", o.path, err)
	}
	return fmt.Errorf("reading the older generation %s: %w", o.path, err)
}

// matches says whether the generation's first bytes are those of id.
func (o *older) matches(id GenID) bool {
	return id.SigLen <= len(o.head) && crc32.ChecksumIEEE(o.head[:id.SigLen]) == id.Sig
}

// id returns o's identity placed at base.
func (o *older) id(base int64) GenID {
	return GenID{Base: base, SigLen: len(o.head), Sig: crc32.ChecksumIEEE(o.head)}
}

// What describes, for a message, the generation id stands for.
func (id GenID) what() string {
	at := "not yet reached"
	if id.Base >= 0 {
		at = fmt.Sprintf("at position %d", id.Base)
	}
	return fmt.Sprintf("the generation %s whose first %d bytes have CRC-32 %08x", at, id.SigLen, id.Sig)
}

// ListError says the generations store ID is named with do not match the
// ones its cursor recorded: reading on would place entries at other
// positions than those already counted, or skip some. Its text leaves the
// id to the caller's prefix.
type ListError struct {
	ID, Why string
}

func (e *ListError) Error() string { return e.Rederive(rederive) }

// Rederive is the message with fix, the re-derivation's commands.
func (e *ListError) Rederive(fix string) string {
	return fmt.Sprintf("store: %s; name the generations as the cursor recorded them, oldest first (a generation may be left off the front once read, and a newer one added), or %s", e.Why, fix)
}

// align places the older generations olds on the axis the cursor
// recorded, gens: each must be the recorded generation after the one
// before it, from wherever the first is in the list, but for newer ones
// past the list's end. It returns, per older generation, its index in
// gens (-1: newer than the record).
func align(id string, olds []*older, gens []GenID) ([]int, error) {
	at := make([]int, len(olds))
	next := -1 // the index in gens the next older generation must be; -1 before the first
	for t, o := range olds {
		switch {
		case next >= len(gens):
			at[t] = -1
			continue
		case next >= 0 && o.matches(gens[next]):
			at[t] = next
		case next < 0:
			at[t] = indexMatch(o, gens, 0)
			if at[t] < 0 {
				return nil, &ListError{ID: id, Why: fmt.Sprintf("%s is none of the generations the cursor recorded (its first %d bytes differ from each)", o.path, len(o.head))}
			}
		default:
			if m := indexMatch(o, gens, next+1); m > 0 {
				return nil, &ListError{ID: id, Why: fmt.Sprintf("a middle generation is missing: the cursor recorded %s between %s and %s", gens[next].what(), olds[t-1].path, o.path)}
			}
			return nil, &ListError{ID: id, Why: fmt.Sprintf("%s is not the generation the cursor recorded after %s (its first %d bytes differ from those of %s)", o.path, olds[t-1].path, len(o.head), gens[next].what())}
		}
		next = at[t] + 1
	}
	return at, nil
}

// indexMatch returns the first index from i on of gens that o matches, or -1.
func indexMatch(o *older, gens []GenID, i int) int {
	for ; i < len(gens); i++ {
		if o.matches(gens[i]) {
			return i
		}
	}
	return -1
}

// fillOlder reads once from the older generation being read, into the
// free end of the buffer, the bytes before r.drop dropped. At its end the
// next generation begins where it ended: the next older one, or the file at
// the path.
func (r *Reader) fillOlder(next int64) (bool, error) {
	o := r.olds[0]
	free := r.buf[r.end:]
	if next < r.drop {
		free = free[:min(int64(len(free)), r.drop-next)]
	}
	n, err := o.src.Read(free)
	switch {
	case n > 0 && next < r.drop: // the buffer is empty: next is r.pos
		r.pos += int64(n)
		if r.pos == r.drop && r.dropNL && free[n-1] != '\n' {
			return false, &cursorLineError{r.drop, o.path}
		}
		return true, nil
	case n > 0:
		r.end += n
		return true, nil
	case err == nil:
		return true, nil
	case !errors.Is(err, io.EOF):
		return false, fmt.Errorf("store: %w", o.readErr(err))
	case next < r.drop && r.dropIn:
		return false, &ShorterError{Path: o.path, Size: next, Pos: r.drop}
	}
	o.close()
	r.olds = r.olds[1:]
	r.endGen(next)
	if len(r.olds) > 0 {
		return true, r.beginOlder(next)
	}
	return r.appear(next)
}

// beginOlder makes olds[0] the generation starting at position base.
func (r *Reader) beginOlder(base int64) error {
	o := r.olds[0]
	if err := o.open(); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	fi, err := o.f.Stat()
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	dev, ino := identity(fi)
	id := o.id(base)
	r.gens = append(r.gens, Gen{Base: base, Dev: dev, Ino: ino, Sig: id.Sig, SigLen: id.SigLen, Cause: "older"})
	return nil
}

// appear opens the file at the store's path as the generation starting at
// position next, once there is one: while it does not exist, with
// Options.Wait, got is false (look again at the next poll); without, it is
// an error.
func (r *Reader) appear(next int64) (got bool, err error) {
	fi, err := os.Stat(r.path)
	if errors.Is(err, fs.ErrNotExist) && r.wait {
		if n := len(r.gens); n == 0 || r.gens[n-1].Known() {
			r.gens = append(r.gens, Gen{Base: next, Cause: "waiting"})
		}
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("store: %w", pathErr(r.path, err))
	}
	if !fi.Mode().IsRegular() {
		return false, fmt.Errorf("store: %s is a %s, not a log file; name a regular file as PATH or ID=PATH", r.path, kindOf(fi.Mode()))
	}
	f, err := os.Open(r.path)
	if err != nil {
		return false, nil // gone again: look at the next poll
	}
	if fi, err = f.Stat(); err != nil {
		f.Close()
		return false, fmt.Errorf("store: %w", err)
	}
	if fi.Size() < r.drop-next {
		f.Close()
		return false, &ShorterError{Path: r.path, Size: next + fi.Size(), Pos: r.drop}
	}
	if err := compressed(f, r.path); err != nil {
		f.Close()
		return false, err
	}
	cause := "open"
	if n := len(r.gens); n > 0 && r.gens[n-1].Cause == "waiting" {
		cause = "created"
	}
	r.begin(f, fi, next, cause)
	r.pos = max(r.pos, r.drop) // resuming past the history: the file is read from there
	return true, nil
}

// HistoryEnd returns where the file at a store's path begins on its axis:
// the bytes of its older generations, decompressed (each read to its end).
func HistoryEnd(s Spec) (int64, error) {
	var n int64
	for _, p := range s.History {
		o, err := openOlder(p)
		if err == nil {
			err = o.open()
		}
		if err != nil {
			return 0, fmt.Errorf("store: %w", err)
		}
		k, err := io.Copy(io.Discard, o.src)
		o.close()
		if err != nil {
			return 0, fmt.Errorf("store: %w", o.readErr(err))
		}
		n += k
	}
	return n, nil
}

// FindHistory returns, oldest first, the files beside path under rotated
// names (access.log.1, access.log.2.gz) that are the older generations
// gens records (a cursor's Where.Gens, a store named with its history),
// told by their first bytes, decompressed, as when they were read; and
// how many of them it found no file for. The generations from the one the
// file at path is on are not looked for.
func FindHistory(path string, gens []GenID) (found []string, missing int) {
	dir, base := filepath.Split(path)
	entries, _ := os.ReadDir(filepath.Clean(dir + "."))
	var heads []*older
	for _, e := range entries {
		suffix, ok := strings.CutPrefix(e.Name(), base)
		if !ok || !e.Type().IsRegular() || !rotatedSuffix.MatchString(suffix) {
			continue
		}
		if o, err := openOlder(dir + e.Name()); err == nil {
			heads = append(heads, o)
		}
	}
	live, _ := openOlder(path)
	for _, id := range gens {
		if live != nil && live.starts(id) {
			break
		}
		i := slices.IndexFunc(heads, func(o *older) bool { return o.starts(id) })
		if i < 0 {
			missing++
			continue
		}
		found = append(found, heads[i].path)
	}
	return found, missing
}

// starts says whether o's first bytes are those generation id was signed with.
func (o *older) starts(id GenID) bool {
	return id.SigLen > 0 && o.matches(id)
}

// cursorLineError says the cursor's position is not where a line starts.
type cursorLineError struct {
	pos  int64
	path string
}

func (e *cursorLineError) Error() string { return e.Rederive(rederive) }

// Rederive is the message with fix, the re-derivation's commands.
func (e *cursorLineError) Rederive(fix string) string {
	return fmt.Sprintf("store: the cursor's position %d is not where a line starts in %s (the byte before it is not a newline): the cursor was edited, or it is another file's; fix the cursor, or %s", e.pos, e.path, fix)
}
