package feed

import (
	"testing"
	"time"
)

func TestFeedPollsOnlyWithinSpinMaxOfTheLastBatch(t *testing.T) {
	p := &spinner{pause: restMin}
	sent := time.Now()
	if d, ok := p.budget(sent.Add(30*time.Microsecond), sent); !ok || d != spinMax-30*time.Microsecond {
		t.Fatalf("30 µs after a batch: budget %v, %v; want the %v left", d, ok, spinMax-30*time.Microsecond)
	}
	if _, ok := p.budget(sent.Add(spinMax), sent); ok {
		t.Fatal("spinMax after a batch feed still polls")
	}
}

func TestPollingRestsAfterMissesInARowLongerEachTimeAndAHitResetsIt(t *testing.T) {
	p := &spinner{pause: restMin}
	sent := time.Now()
	asleep := func() int { // waits without polling until the next poll
		n := 0
		for ; ; n++ {
			if _, ok := p.budget(sent, sent); ok {
				return n
			}
		}
	}
	for range missesMax - 1 {
		p.missed()
		if got := asleep(); got != 0 {
			t.Fatalf("after fewer than %d misses in a row: %d waits asleep, want polling on", missesMax, got)
		}
	}
	for _, want := range []int{restMin, 2 * restMin, 4 * restMin} {
		p.missed()
		if got := asleep(); got != want {
			t.Fatalf("after a miss in a row of %d or more: %d waits asleep, want %d", missesMax, got, want)
		}
	}
	for range 20 {
		p.missed()
	}
	if got := asleep(); got != restMax {
		t.Fatalf("after many misses: %d waits asleep, want the cap %d", got, restMax)
	}
	p.hit()
	p.missed()
	if got := asleep(); got != 0 {
		t.Fatalf("after a hit and a miss: %d waits asleep, want polling on", got)
	}
	for range missesMax - 1 {
		p.missed()
	}
	if got := asleep(); got != restMin {
		t.Fatalf("after a hit and %d misses: %d waits asleep, want %d", missesMax, got, restMin)
	}
}

func TestWithOneCPUFeedNeverPolls(t *testing.T) {
	p := &spinner{off: true}
	if _, ok := p.budget(time.Now(), time.Now()); ok {
		t.Fatal("one CPU: polling would take the consumer's time")
	}
}
