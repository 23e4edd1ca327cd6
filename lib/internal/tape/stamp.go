package tape

import "time"

// Where a bucket's numbers leave the toolkit with a time.
//
// The tape keeps a bucket's start. Everything that gives a bucket a single
// timestamp outside the tape (remote write, tgread's OpenMetrics, the
// counters of tgpush --counters and tgserve, tgcheck --receiver's reading
// back) stamps it at its last millisecond, start + width − 1 ms, through
// SampleMs: a range as wide as the bucket evaluated at any bucket boundary
// then holds exactly that bucket, on Prometheus 2's closed ranges and on
// Prometheus 3's and VictoriaMetrics' left-open ones alike, and a plain
// selector at a boundary reads the bucket that just ended. Intervals (OTLP)
// carry the bucket itself: start = start, time = start + width, by Interval.

// SampleMs is the timestamp, in Unix milliseconds, of the samples of the
// bucket [start, start+width), start in Unix nanoseconds.
func SampleMs(start int64, width time.Duration) int64 {
	return (start+int64(width))/int64(time.Millisecond) - 1
}

// Interval is the bucket [start, start+width) as Unix nanoseconds, the
// start and time of an OTLP delta data point.
func Interval(start int64, width time.Duration) (from, to int64) {
	return start, start + int64(width)
}

// MarkerMs is the timestamp, in Unix milliseconds, of the k-th (from 1)
// marker-only group after the seal of the bucket [start, start+width): a
// group an end record closes (a run that sealed nothing more), which has
// data-quality counts and no bucket of its own. It is k ms after the
// bucket's samples, so no two groups share a series' timestamp, and before
// the next bucket's (at least a width later) while HasMarkerRoom.
func MarkerMs(start int64, width time.Duration, k int) int64 {
	return SampleMs(start, width) + int64(k)
}

// HasMarkerRoom reports whether the k-th marker-only group after a bucket
// of width has a millisecond of its own before the next bucket's samples.
// One that has none waits for the next seal, and its counts are stamped
// with that bucket's.
func HasMarkerRoom(width time.Duration, k int) bool {
	return int64(k) < width.Milliseconds()
}

// The data-quality series that go with a bucket's samples outside the
// toolkit (tgpush, tgread's OpenMetrics): what its numbers rest on.
const (
	EntriesSeries = "timbertally_entries"         // the seal's entries=: entries placed in the bucket
	LateSeries    = "timbertally_late_entries"    // entries of the group's !late markers
	DroppedSeries = "timbertally_dropped_entries" // entries of the group's !drop markers, by reason
	CappedSeries  = "timbertally_capped_entries"  // entries of the group's !cap markers, by metric
)
