// Package feed is the feed command: it follows append-only stores and hands
// their entries, in batches, to a consumer process over the line protocol
// (docs/design.md §3), and persists each store's durable offset in a cursor file.
//
// The main loop (engine.go) sends, parks and reads reports; what it
// persists is the checkpoint's (checkpoint.go: the cursor, the offsets last
// saved, the background saver), what falls due by time the clock's
// (clock.go: polls at a store's end, idle lines, stall warnings), and how a
// run is stopped from outside the shutdown's (shutdown.go: signals, the
// consumer's stop). Each can be changed without reading the others.
//
// Invariants:
//   - The park: nothing more is sent for a store while the consumer's taken
//     is short of the end of its last batch, unless the consumer asked for
//     a window (window= on its last report, at most the one feed offered in
//     its hello): then batches go while what is sent beyond taken fits it,
//     and any batch goes once everything is taken. Parked, feed sleeps in
//     ppoll on the report pipe, a self-pipe (a signal, the consumer's exit)
//     and the next clock deadline. Only right after a batch of a store
//     without a window may it poll for the report without sleeping, for at
//     most spin.Max (200 µs), backing off when that does not pay, and never
//     with one CPU (package spin).
//   - What was delivered is recorded before the bytes are written, so a report
//     that races the write is checked against the right bound.
//   - The main loop reads the reports whenever it looks, also while a write
//     waits for room in the pipe, so the consumer writing reports cannot
//     deadlock against feed writing a batch.
//   - An interrupt starts no new batch and lets the one being written finish
//     while the consumer reads it; the consumer then has 10 s to exit after
//     its stdin closes. A second signal kills it at once.
//   - A batch is contiguous entries sent verbatim, exactly the bytes they
//     were cut from: spliced from the store file while it still holds them
//     (store.Reader.Source, asked before every splice), else written from
//     the read buffer; at most --batch-size entries and 8 MiB (one longer
//     entry is a batch). A store cut to a length other than 0 (not a
//     rotation: outside docs/design.md §2) can change a batch still in the pipe.
//   - The cursor only ever holds offsets from valid reports, never taken.
//   - One feed per cursor: the cursor's lock (FILE.lock) is held for the
//     whole run, and a second feed is refused naming the holder.
//   - A run its consumer refuses changes no file: a --reset cursor is
//     written only once the consumer has reported.
//   - Each store line says the generation holding the resume position
//     (its base and first bytes' CRC-32) and where the position came from,
//     so the consumer can refuse content or a position that does not fit
//     what it holds.
//   - end is sent only when a one-shot run reached a store's end, or, for a
//     --glob store under --follow, once its file has been gone for two
//     scans and all it held is delivered; a signal, --max or an error
//     closes the consumer's stdin without it.
//   - A store joins mid-run only from a --glob scan under --follow (once an
//     idle tick): its store line goes out before its first batch, the
//     ledger and the checkpoint grow by it, and its id is new to the run
//     (a file that would take a store's id, or is a store's file under
//     another name, is named once and not read).
//   - A glob store new to the cursor starts with its newest rotated
//     sibling no store has read as its older generation (birth.go: a file
//     born and rotated before feed read it), which the cursor records and
//     a later run names again; a symbolic link a glob matches beside its
//     target is that file's store, never a second one (links.go).
//   - idle is sent only at a store's live edge: following, everything
//     delivered and taken (window or not), and nothing new at the last poll;
//     never while the store drains a renamed generation (--rotate-wait),
//     whose successor's lines wait: an idle would seal their buckets.
package feed
