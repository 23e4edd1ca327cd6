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
