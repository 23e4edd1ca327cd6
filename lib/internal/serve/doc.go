// Package serve is tgserve: it serves the tapes of tally stores on
// /metrics for scrape, as running totals (lib/internal/cumulative): counters
// NAME_total, cumulative classic histograms, min and max gauges of the
// newest sealed bucket and the data-quality counters, in the Prometheus
// text format or OpenMetrics by the scraper's Accept header
// (docs/tgserve.md).
//
// Invariants:
//   - A value is a sum over the tape's whole sealed groups and nothing
//     else: no state outlives the process, so a restart serves the same
//     totals, and no scrape is answered before every tape was read to its
//     end (a scrape of a half-read tape would see a counter go down, which
//     Prometheus takes as a reset).
//   - A scrape sees whole sealed groups only; a group being written waits
//     for its seal.
//   - Several stores are told apart by tally_store (the store directory's
//     name) on every series; --label adds the same labels to every series
//     and may not name one a store's series have, and two stores may not
//     give one family two types: each is refused at start, so that no
//     series is ever two stores' values.
//   - A bound (le) leaves in Prometheus's canonical float form, in both
//     formats (tape.CanonicalBound).
//   - Memory is one entry per distinct series and store, never the tape.
package serve
