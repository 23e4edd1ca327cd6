package store

import (
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// SigSpan is how many first bytes of a generation its signature covers: 256
// bytes hold a log line's timestamp, enough to tell two files apart when the
// file system reuses an inode number.
const SigSpan = 256

// Gen is one generation of a store: one file, from its first byte, placed on
// the store's logical axis at Base. A rotation starts a new generation whose
// Base is where the previous one ended, so positions only ever grow.
type Gen struct {
	Base     int64  // position of the file's first byte
	Dev, Ino uint64 // the file's identity while it exists
	Sig      uint32 // CRC-32 (IEEE) of the file's first SigLen bytes
	SigLen   int    // 0..SigSpan: how many first bytes Sig covers
	Cause    string // how it began: "open", "renamed", "truncated"; not persisted
	Skipped  string // renamed: a file that looks like a generation between it and the last, not read; not persisted
}

// Known says whether g identifies a file (a cursor written before
// generations were recorded does not).
func (g Gen) Known() bool { return g.Ino != 0 }

// id is what a cursor records of g: where it begins and its signature.
func (g Gen) id() GenID { return GenID{Base: g.Base, SigLen: g.SigLen, Sig: g.Sig} }

// identity returns the device and inode numbers of fi.
func identity(fi os.FileInfo) (dev, ino uint64) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0
	}
	return uint64(st.Dev), st.Ino
}

// sign returns the CRC-32 of f's first n bytes; fewer than n is an error
// (the file is not the one signed).
func sign(f *os.File, n int) (uint32, error) {
	var b [SigSpan]byte
	return signInto(f, n, &b)
}

// signInto is sign reading into b: a buffer the caller keeps costs no
// allocation, where a local one escapes (through crc32's and ReadAt's
// indirect calls), and Source signs once a batch.
func signInto(f *os.File, n int, b *[SigSpan]byte) (uint32, error) {
	got, err := f.ReadAt(b[:n], 0)
	if got == n {
		return crc32.ChecksumIEEE(b[:n]), nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return 0, err
}

// same says whether the open file f with info fi is generation g's file.
func same(f *os.File, fi os.FileInfo, g Gen) bool {
	dev, ino := identity(fi)
	if dev != g.Dev || ino != g.Ino {
		return false
	}
	sig, err := sign(f, g.SigLen)
	return err == nil && sig == g.Sig
}

// ReplacedError says the file at a store's path is not the generation the
// cursor was in, and that generation's file is not in the same directory
// under another name: the entries after the cursor cannot be reached.
type ReplacedError struct {
	Path     string
	Was      Gen
	Dev, Ino uint64 // the file at Path now
	Why      string
}

func (e *ReplacedError) Error() string { return e.Rederive(rederive) }

// Rederive is the message with fix, the re-derivation's commands.
func (e *ReplacedError) Rederive(fix string) string { return e.What() + "; " + fix }

// What says what happened, without the remedy.
func (e *ReplacedError) What() string {
	return fmt.Sprintf("store: %s was replaced since the cursor was written (%s; the cursor's file, device %d inode %d, is not in %s under another name), so the entries after the cursor cannot be read",
		e.Path, e.Why, e.Was.Dev, e.Was.Ino, filepath.Dir(e.Path))
}

// SameInode says whether the file at the path is the cursor's inode with
// other first bytes: truncated in place and rewritten (copytruncate), or
// a new file that reuses the inode, while feed was down.
func (e *ReplacedError) SameInode() bool { return e.Dev == e.Was.Dev && e.Ino == e.Was.Ino }

// Rederivable is an error whose complete fix is to count the store again
// from its start, both steps in order (a replay from 0 into the same
// tape would put the new content at positions the tape already holds).
// Rederive gives the message with fix, the re-derivation as commands, in
// its place, so that feed, which knows the tally store, its cursor and
// its stores, names them (tallystore.Remake): no reader cuts a fix out of
// a message's text. Error gives it with the fix in general words, for
// any other reader.
type Rederivable interface {
	error
	Rederive(fix string) string
}

// RederiveError is a Rederivable error that is nothing more: Text, then
// "; " and the fix.
type RederiveError struct{ Text string }

func (e *RederiveError) Error() string { return e.Rederive(rederive) }

// Rederive is the message with fix, the re-derivation's commands.
func (e *RederiveError) Rederive(fix string) string { return e.Text + "; " + fix }

// rederive is a Rederivable error's fix in general words.
const rederive = "re-derive, both steps in this order (a replay from 0 into the same tape would put the new content at positions the tape already holds): tally --provision --replace --doc DIR/document DIR on the tally store DIR (its old tape is kept beside it), then feed --reset --cursor FILE STORE... -- tally --run DIR"

// locate opens generation g's file: the file at path when it still is g,
// else the file of the same directory that is g (renamed by a rotation while
// feed was down; reading it to its end moves on to path).
func locate(path string, g Gen) (*os.File, error) {
	// Stat before opening: opening a FIFO would block until a writer
	// came, beyond the reach of a signal.
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is a %s, not a log file; name a regular file as PATH or ID=PATH", path, kindOf(fi.Mode()))
	}
	f, err := os.Open(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%s does not exist; name a log file as PATH or ID=PATH (%w)", path, err)
	case err != nil:
		return nil, fmt.Errorf("cannot open %s: %w", path, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !g.Known() || same(f, fi, g) {
		return f, nil
	}
	f.Close()
	dev, ino := identity(fi)
	why := fmt.Sprintf("device %d inode %d is now device %d inode %d", g.Dev, g.Ino, dev, ino)
	if dev == g.Dev && ino == g.Ino {
		why = fmt.Sprintf("same inode, but its first %d bytes differ", g.SigLen)
	} else if old := findRenamed(filepath.Dir(path), g); old != nil {
		ofi, err := old.Stat()
		if err != nil {
			old.Close()
			return nil, err
		}
		if mid := newerGeneration(path, ofi, fi); mid != "" {
			old.Close()
			return nil, &RederiveError{fmt.Sprintf("store: %s was rotated more than once while feed was down: the file the cursor was reading is now %s, and %s was written after it, so following on to %s would skip its entries",
				path, old.Name(), mid, path)}
		}
		return old, nil
	}
	return nil, &ReplacedError{Path: path, Was: g, Dev: dev, Ino: ino, Why: why}
}

// kindOf names a file mode that is not a regular file's.
func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "directory"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeDevice != 0:
		return "device"
	case m&fs.ModeSocket != 0:
		return "socket"
	}
	return "special file"
}

// rotatedSuffix matches what a rotation appends to a log file's name
// (access.log.1, access.log-20261129, access.log-2026-11-29.0, and with
// compression access.log.2.gz), and not what another file that merely
// begins with its name has (access.log.json, access.log.lock).
var rotatedSuffix = regexp.MustCompile(`^[.-][0-9][0-9._-]*(\.(gz|bz2|xz|zst|lz4|Z))?$`)

// newerGeneration returns the oldest regular file beside path, under a
// rotated name, written no earlier than old (an equal mtime is one tick of
// a coarse clock), and neither old nor the file at path now (at): a
// generation between the two, renamed away before feed reached it, which
// following on from old to at skips. "" when there is none. Generations
// before old are not compared by inode: a deleted one's inode is soon
// another file's, and they were all written before old anyway.
func newerGeneration(path string, old, at os.FileInfo) string {
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		return ""
	}
	base := filepath.Base(path)
	oldNum := -1 // old's number under its rotated name now (access.log.1: 1)
	for _, e := range entries {
		if suffix, ok := strings.CutPrefix(e.Name(), base); ok && rotatedSuffix.MatchString(suffix) {
			if fi, err := e.Info(); err == nil && os.SameFile(fi, old) {
				oldNum = rotatedNumber(suffix)
			}
		}
	}
	var mid string
	var midTime time.Time
	for _, e := range entries {
		suffix, ok := strings.CutPrefix(e.Name(), base)
		if !ok || !e.Type().IsRegular() || !rotatedSuffix.MatchString(suffix) {
			continue
		}
		fi, err := e.Info()
		if err != nil || os.SameFile(fi, at) || os.SameFile(fi, old) || fi.ModTime().Before(old.ModTime()) {
			continue
		}
		if n := rotatedNumber(suffix); oldNum >= 0 && n >= oldNum {
			// Numbered, a generation newer than old has a lower number:
			// one above it is older, written within a tick of old's last
			// write (two files written together), not skipped.
			continue
		}
		if mid == "" || fi.ModTime().Before(midTime) {
			mid, midTime = filepath.Join(filepath.Dir(path), e.Name()), fi.ModTime()
		}
	}
	return mid
}

// rotatedNumber returns N of a numbered rotated suffix (".N", ".N.gz"),
// -1 for another (a date).
func rotatedNumber(suffix string) int {
	num, _, _ := strings.Cut(strings.TrimPrefix(suffix, "."), ".")
	n, err := strconv.Atoi(num)
	if err != nil || suffix[0] != '.' {
		return -1
	}
	return n
}

// findRenamed returns the open file of dir that is generation g, or nil.
func findRenamed(dir string, g Gen) *os.File {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		f, err := os.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		if fi, err := f.Stat(); err == nil && same(f, fi, g) {
			return f
		}
		f.Close()
	}
	return nil
}

// IsGen says whether the file at path is generation g's file (the same
// device, inode and first bytes), as far as it can be read. The file is
// opened only once its device and inode match: feed asks this of a new
// store once per store of its cursor, and opening a FIFO (which no
// generation is) would block until a writer came.
func IsGen(path string, g Gen) bool {
	fi, err := os.Stat(path)
	if err != nil || !g.Known() {
		return false
	}
	if dev, ino := identity(fi); dev != g.Dev || ino != g.Ino {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	return same(f, fi, g)
}
