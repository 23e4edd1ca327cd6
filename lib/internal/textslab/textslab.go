// Package textslab makes strings of bytes without an allocation each: the
// bytes are copied into a slab, and the string is the slab's bytes.
//
// Invariants of a Slab:
//   - A slab's bytes are only ever appended to: once a string holds them
//     they never change, so the string is as immutable as any.
//   - A full slab is never reused: it is left to the strings that hold it
//     (the collector frees it with the last), and a new one is started.
//     A string therefore keeps its whole slab alive: a holder that keeps
//     a few strings for long (a series' labels) should clone them.
//   - Slabs start at minSize bytes and double up to maxSize, so that a few
//     short strings stay small; a string longer than a slab gets a slab its
//     size.
//
// An Arena is a Slab whose slabs are used again after Rewind, for strings
// that all die together: its strings are immutable only until then, and
// the caller alone keeps that promise (see Arena).
package textslab

import "unsafe"

// Slab is the slab being filled; its zero value is ready to use.
type Slab struct{ b []byte }

// The slabs' sizes.
const (
	minSize = 1 << 10
	MaxSize = 64 << 10 // a string longer than this has a slab of its own
)

// String returns a string of b's bytes, copied into the slab.
func (s *Slab) String(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if cap(s.b)-len(s.b) < len(b) {
		s.b = make([]byte, 0, max(min(2*cap(s.b), MaxSize), minSize, len(b)))
	}
	n := len(s.b)
	s.b = append(s.b, b...)
	return unsafe.String(&s.b[n], len(b))
}

// An Arena makes strings as a Slab does, but its slabs are used again
// after Rewind: for a reader whose strings all die together (a read's
// records, dead when the next read starts), which would otherwise leave
// the collector a slab of garbage per 64 KiB read. The caller's promise,
// which nothing checks: no string the Arena made before a Rewind is used
// after it (its bytes are written over). Slabs are MaxSize each; a string
// longer than one gets a slab of its own, never kept.
type Arena struct {
	slabs [][]byte
	used  int // the slabs filled or being filled: slabs[used-1] is the current
}

// maxKeptSlabs bounds what an Arena keeps across a Rewind (32 MiB): a
// read of a few MiB takes a few dozen slabs.
const maxKeptSlabs = 512

// String returns a string of b's bytes, copied into the arena.
func (a *Arena) String(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > MaxSize {
		return string(b)
	}
	if a.used == 0 || cap(a.slabs[a.used-1])-len(a.slabs[a.used-1]) < len(b) {
		if a.used == len(a.slabs) {
			a.slabs = append(a.slabs, make([]byte, 0, MaxSize))
		}
		a.slabs[a.used] = a.slabs[a.used][:0]
		a.used++
	}
	s := &a.slabs[a.used-1]
	n := len(*s)
	*s = append(*s, b...)
	return unsafe.String(&(*s)[n], len(b))
}

// Rewind makes every slab free again: the strings made before are dead.
func (a *Arena) Rewind() {
	if len(a.slabs) > maxKeptSlabs {
		a.slabs = nil
	}
	a.used = 0
}
