// Package bucket places extracted entries into time buckets by their own
// time, seals each bucket once when the combined event time passes its end
// plus grace, and accounts for every other entry with a marker (docs/design.md §5).
//
// A Roller is fed the entries of one or more stores, each store's entries
// in position order, and produces tape bytes. Its invariants:
//
//   - Every entry given to it ends in exactly one place: a bucket (possibly
//     in a !cap marker of that bucket), a !late marker, a !drop marker, or,
//     on a replay after a restart, nowhere because the tape already accounts
//     for it (Known).
//   - A bucket [s, s+width) is written once, whole (series, !cap markers,
//     seal), when the combined event time reaches s+width+grace, or at
//     Complete. Sealing is decided after each entry, so the tape does not
//     depend on how entries were cut into batches.
//   - The combined event time never goes backwards: it is the minimum of
//     the newest entry times of the stores that have neither ended nor gone
//     idle (the minimum over the idle ones, raised by their quiet time, when
//     every live store is idle; the maximum when all have ended).
//   - A marker covers one run of consecutive entries of one store of one
//     kind (and bucket, reason or metric): its offset..end range holds
//     exactly its count entries, so a replay can tell what it accounts for.
//   - A histogram is one series for the cap: a label set's NAME_bucket,
//     NAME_sum and NAME_count lines are on the tape together or, over the
//     cap, left off together with their entries in one !cap marker of NAME.
//     Its bucket counts are cumulative, le last among its labels, +Inf last.
//   - Safe(store) is the first position of that store that a restart must
//     replay: the first entry in a still-open bucket or a still-open marker
//     run, else everything processed. Under an envelope, a split line's
//     parts are one entry at its first part's offset, and until its last
//     part is read neither Safe nor a seal's at= passes its first part.
//   - Per-entry cost does not grow with the number of series or buckets:
//     series live in maps keyed by their label bytes, buckets in a map by
//     start, and the common case (the newest bucket) is cached.
package bucket
