package tape

import (
	"testing"
	"time"
)

func TestABucketIsStampedAtItsLastMillisecond(t *testing.T) {
	start := time.Date(2026, 10, 10, 13, 55, 30, 0, time.UTC).UnixNano()
	got := SampleMs(start, 10*time.Second)
	want := time.Date(2026, 10, 10, 13, 55, 39, 999e6, time.UTC).UnixMilli()
	if got != want {
		t.Fatalf("SampleMs = %d, want %d (start + 10 s − 1 ms)", got, want)
	}
	if from, to := Interval(start, 10*time.Second); from != start || to != start+10e9 {
		t.Fatalf("Interval = %d, %d", from, to)
	}
}
