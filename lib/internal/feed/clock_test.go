package feed

import (
	"testing"
	"time"
)

func TestAnIdleFallsDueAtThePollAtOrAfterItsMoment(t *testing.T) {
	t0 := time.Unix(1000, 0)
	c := clock{polledAt: t0}
	for at, want := range map[time.Duration]time.Duration{
		10 * time.Millisecond:  pollEvery,
		pollEvery:              pollEvery,
		300 * time.Millisecond: 2 * pollEvery,
		-time.Second:           pollEvery,
	} {
		if got := c.atPoll(t0.Add(at)); !got.Equal(t0.Add(want)) {
			t.Errorf("atPoll(+%v) = +%v, want +%v", at, got.Sub(t0), want)
		}
	}
}
