// Package feed is the feed command: it follows append-only stores and hands
// their entries, in batches, to a consumer process over the line protocol
// (SPEC §3), and persists each store's durable offset in a cursor file.
//
// Invariants:
//   - The park: nothing more is sent for a store while the consumer's taken
//     is short of the end of its last batch. Parked, feed blocks on channels
//     (a report, a signal, a clock deadline); it never polls in a loop.
//   - What was delivered is recorded before the bytes are written, so a report
//     that races the write is checked against the right bound.
//   - The report reader never blocks on the main loop (state under a mutex,
//     a non-blocking wake-up on a channel of capacity 1), so the consumer
//     writing reports cannot deadlock against feed writing a batch.
//   - A batch is contiguous entries written verbatim from the read buffer:
//     at most --batch-size entries and 8 MiB (one longer entry is a batch).
//   - The cursor only ever holds offsets from valid reports, never taken.
//   - end is sent only when a one-shot run reached a store's end; a signal,
//     --max or an error closes the consumer's stdin without it.
//   - idle is sent only at a store's live edge: following, everything
//     delivered and taken, and nothing new at the last poll.
package feed
