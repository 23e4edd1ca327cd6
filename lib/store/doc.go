// Package store reads the entries of an append-only store file (SPEC §2) with
// their exact positions, in large reads.
//
// Invariants:
//   - A position is a byte offset on the store's one logical axis; a Reader
//     only moves forward, and every byte it passes is handed out exactly once,
//     either inside a chunk of whole entries or inside a Skip.
//   - An entry is a line ending in '\n' of at most maxLine bytes before it; a
//     final line without '\n' is held back (never delivered) until complete.
//   - A line over maxLine is streamed past, never held whole in memory, and
//     handed out as a Skip of exactly that one line.
//   - A file shorter than the position being read from was truncated or
//     replaced; it is refused, never silently re-read from 0 or skipped.
//   - Reads are large (readSize bytes at a time) and chunk data is a slice of
//     the read buffer, so the hot path makes no per-line syscall and no copy.
package store
