// Package push is tgpush: it follows a tally store's tape and sends every
// sealed bucket's series to a receiver by Prometheus remote write 1.0
// (snappy-compressed protobuf), the protocol Prometheus, Mimir, Thanos
// Receive, Cortex and VictoriaMetrics accept, or by OTLP/HTTP.
//
// What a group becomes on the wire is its shape (shape.go): a sample per
// series line (the default, described below), the running totals of
// --counters (counters.go: lib/internal/cumulative's, a zero before each
// series' first), or OTLP delta points (otlp.go: lib/internal/otlp's).
// The grouping, stamps, held groups, cursor, retries and refusals below
// are every shape's.
//
// A group is a tape's records after one seal up to and including the next:
// a bucket's series, its !cap markers and its seal, and the !late and !drop
// markers written since the previous seal. Each group becomes samples at its
// bucket's last millisecond (tape.SampleMs): one per series line, named and
// labelled as on the tape plus the --label labels (a histogram's le in
// Prometheus's canonical form, tape.CanonicalBound), and the data-quality series
// timbertally_entries, timbertally_late_entries,
// timbertally_dropped_entries{reason} and timbertally_capped_entries{metric}
// (docs/tgpush.md). A marker-only group (an end record's: a run that sealed
// nothing more) is stamped at tape.MarkerMs, k ms after the last bucket's
// samples for the k-th since that seal.
//
// Invariants:
//   - Only whole groups are sent: records after the tape's last seal (a
//     group being written, or a torn last line) wait for their seal, and a
//     line that is no record (tape.Parse refuses it, as tgread and tgcheck
//     do) stops tgpush before the group it is in. Only a well-formed record
//     of a kind added later (tape.ParseOrLater's Kind Later) is passed over.
//     --from end reads backwards to the last seal (tape.ScanBack), which
//     classifies lines as the forward read does: it passes over the same
//     lines and stops at the same damage.
//   - A first run's --from TIME is kept in the cursor (from=): no later
//     run pushes a bucket starting before it.
//   - No two groups stamp a series at one millisecond: a sealed group's
//     samples are at SampleMs, the k-th marker-only group after it at
//     SampleMs + k ms (k < the width in ms, kept in the cursor's after=;
//     one with no millisecond left waits and goes with the next seal), so
//     a receiver never refuses tgpush's own earlier samples.
//   - No --label is ever silently dropped or overridden: a name the
//     series have already is refused before anything is sent (the
//     document's by= fields, le, reason, metric), and again per group for
//     a tape another document wrote. The cursor keeps the --label set
//     (labels=); a run with another set is refused before it sends.
//   - The cursor (the tape's byte offset just past a seal, with the tape's
//     identity) is advanced only after the receiver answered 2xx for every
//     sample before it, and is saved durably in place in one of two
//     checksummed slots (package slotfile), so that a save cut off by a
//     kill or a power cut leaves the save before it: the next run re-sends
//     at most the samples of the group in flight or whose save was cut, the
//     same values at the same timestamps, which receivers take as
//     duplicates. The receiver therefore holds exactly the tape's values.
//   - Nothing is dropped on a fault: a receiver down, a timeout, a 5xx, a
//     429 or 408, and an answer of any status whose body is cut or slower
//     than --timeout (the sender's outcome says whether it was read whole;
//     no error text is parsed to tell) is retried with capped exponential backoff for as long as it
//     lasts, with one note per change of state; any other answer (a 3xx,
//     which is not followed, another 4xx, a 501 or 505, a TLS failure, an
//     https:// URL answered in plain http) stops tgpush non-zero, naming
//     the bucket refused and the fix.
//   - The cursor keeps the shape (sends=): a run of another is refused
//     before it sends. --counters' totals are recomputed from the tape
//     before the cursor at start, never kept, so a restart goes on from
//     them; a group's zeros are taken, and recorded (zeroed=1), before its
//     totals are sent, so a re-send after a kill sends only the totals,
//     the newest of their series (a zero sent again would be older, and
//     refused as out of order).
//   - One tgpush per cursor at a time (a lock beside the cursor); a tape
//     replaced under it (tally --provision --replace) stops it.
//   - A secret is read only from a file and never printed, never written to
//     the cursor or a note: a --header whose name says it carries one is
//     refused (--header-file takes it), and a URL's query and userinfo are
//     left out of every message.
//   - Memory is bounded by one read of the tape (readBytes), not by the
//     tape nor by a group: a group larger than a read is found whole (its
//     seal read, its series passed over) and then sent in parts of about
//     a read each (follow.go), the cursor moved past it only with its
//     last part. A kill between parts re-sends the group from its start:
//     each of its series' newest sample, the same value again. (The
//     shapes --counters and OTLP build a group's request from the whole
//     group: they read it whole.)
//   - Memory is reused, never shared: a read's records (follower.recs)
//     only once every group of the read was built into a batch, a batch
//     (pusher.spare) only once its group was taken; what the shapes keep
//     across groups (the running totals' series) are copies.
//   - The buckets' series are written as wire bytes as a group is built
//     (batch.direct), the very bytes of the same batch built as prompb's
//     messages and encoded (TestADirectBatchSendsTheBytesOfTheSameBatchAsMessages
//     and its fuzzer); tgcheck --receiver's expectation (Sent) is built as
//     messages.
package push
