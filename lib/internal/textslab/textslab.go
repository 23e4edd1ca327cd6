// Package textslab makes strings of bytes without an allocation each: the
// bytes are copied into a slab, and the string is the slab's bytes.
//
// Invariants:
//   - A slab's bytes are only ever appended to: once a string holds them
//     they never change, so the string is as immutable as any.
//   - A full slab is never reused: it is left to the strings that hold it
//     (the collector frees it with the last), and a new one is started.
//     A string therefore keeps its whole slab alive: a holder that keeps
//     a few strings for long (a series' labels) should clone them.
//   - Slabs start at minSize bytes and double up to maxSize, so that a few
//     short strings stay small; a string longer than a slab gets a slab its
//     size.
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
