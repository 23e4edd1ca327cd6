// Package cursor reads and writes feed's cursor file: each store's durable
// resume position (the last valid progress offset its consumer reported), by
// store id.
//
// The file is text, one line per store in the protocol's syntax
// ("store id=web1 offset=186350 gen=0 dev=2049 ino=131077 sig=30d022ed
// siglen=256"), sorted by id. gen= is the base position of the generation
// (the file) holding the offset, dev=, ino= and the CRC-32 sig= of its first
// siglen= bytes recognise that file again; seam= is the CRC-32 of the
// seamlen= bytes that end at the offset (absent at a generation's start). A line without them (an older
// cursor) is read as the file at the store's path from position 0; a reader
// ignores keys it does not know. A store named with its older generations
// also has hist= ("hist=0:256:1a2b3c4d,81920:256:0badf00d,-:120:5eed0001"):
// every generation of its axis, oldest first, as BASE:SIGLEN:SIG, BASE "-"
// for one not yet reached (store.GenID), which the next run's list of
// generations must match.
//
// Invariants:
//   - A missing file is a first run: no store has a position yet.
//   - A file that cannot be read or does not parse is an error, never a silent
//     restart from 0 (that would re-derive, or double-count, a whole store).
//   - Save replaces the file atomically (temp file in the same directory,
//     fsync, rename, fsync of the directory): after a crash the file is the
//     old one or the new one, whole. Its mode is 0644 less the umask.
//   - Save does not rate-limit itself; its caller decides how often to save.
package cursor
