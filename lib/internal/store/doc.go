// Package store reads the entries of an append-only store file (docs/design.md §2) with
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
//   - A store is followed across rotations on one axis: a generation is one
//     file placed at Base, where the previous one ended. Rename-and-create
//     is taken only once the old file is read to its end and, with
//     Options.Drain, has been quiet that long (its writer may still hold
//     it); the next generation is then the file found at the path when
//     that wait began, and the old file is kept open so that bytes a
//     later writer appends to it are reported (TakeLate), never silently
//     left at no position; a truncation in
//     place (copytruncate: shorter than what was read, or its first bytes
//     changed) starts the same file again at Base = the end of what was read.
//     A line left unterminated by a rotation is one Skip, never an entry.
//   - On resume, the generation's file is recognised by device, inode and a
//     CRC-32 of its first (up to 256) bytes, and the position by the CRC-32
//     of the bytes before it (its seam, CheckSeam); found renamed in the same
//     directory it is read first, otherwise the store was replaced and is
//     refused, as is a file shorter than the resume position: never silently
//     re-read from 0 or skipped.
//   - A store named with its history (Spec.History, oldest first) reads each
//     older generation once, from its start, decompressed when its first
//     bytes are gzip's, each placed where the one before ended, then Path:
//     positions are those of the files concatenated. A cursor records them
//     (Recorded: base and a CRC-32 of the first SigSpan bytes, decompressed,
//     so content and not the file), and the next list must match the record
//     in order (leading ones may go, newer ones come after it); a missing
//     middle generation or other first bytes are a *ListError naming it.
//   - With Options.Wait a file that does not exist yet is no error: the
//     Reader hands out nothing until it appears, then reads it from its
//     start at the position where waiting began.
//   - Reads are large (readSize bytes at a time) and chunk data is a slice of
//     the read buffer, so the hot path makes no per-line syscall and no copy.
//     Source tells when the file still holds a chunk's bytes, so that they
//     can be sent from the page cache (splice) instead of from Data.
package store
