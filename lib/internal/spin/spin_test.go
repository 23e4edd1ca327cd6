package spin

import (
	"testing"
	"time"
)

func TestAWaitPollsOnlyWithinMaxOfItsStart(t *testing.T) {
	p := &Spinner{pause: restMin}
	if d, ok := p.budget(30 * time.Microsecond); !ok || d != Max-30*time.Microsecond {
		t.Fatalf("30 µs into a wait: budget %v, %v; want the %v left", d, ok, Max-30*time.Microsecond)
	}
	if _, ok := p.budget(Max); ok {
		t.Fatal("Max into a wait it still polls")
	}
}

func TestWithOneCPUAWaitNeverPolls(t *testing.T) {
	p := &Spinner{off: true, pause: restMin}
	if _, ok := p.budget(0); ok {
		t.Fatal("with one CPU a wait polls")
	}
}

// asleep counts the waits that sleep at once before the next that polls.
func asleep(p *Spinner) int {
	n := 0
	for ; ; n++ {
		if _, ok := p.budget(0); ok {
			return n
		}
	}
}

func TestPollingRestsAfterMissesInARowLongerEachTimeAndAHitResetsIt(t *testing.T) {
	p := &Spinner{pause: restMin}
	misses := func(n int) {
		for range n - 1 {
			p.missed()
			if got := asleep(p); got != 0 {
				t.Fatalf("after fewer than %d misses in a row: %d waits asleep, want polling on", missesMax, got)
			}
		}
		p.missed()
	}
	for _, want := range []int{restMin, 2 * restMin, 4 * restMin} {
		misses(missesMax)
		if got := asleep(p); got != want {
			t.Fatalf("after %d misses in a row: %d waits asleep, want %d", missesMax, got, want)
		}
	}
	for range 20 {
		misses(missesMax)
		asleep(p)
	}
	misses(missesMax)
	if got := asleep(p); got != restMax {
		t.Fatalf("after many runs of misses: %d waits asleep, want the cap %d", got, restMax)
	}
	p.hit()
	misses(missesMax)
	if got := asleep(p); got != restMin {
		t.Fatalf("after a hit and %d misses: %d waits asleep, want %d", missesMax, got, restMin)
	}
}

// A rest does not carry its misses over: one miss after a rest is not
// the next run of misses.
func TestOneMissAfterARestDoesNotRestAgain(t *testing.T) {
	p := &Spinner{pause: restMin}
	for range missesMax {
		p.missed()
	}
	asleep(p)
	p.missed()
	if got := asleep(p); got != 0 {
		t.Fatalf("one miss after a rest: %d waits asleep, want polling on", got)
	}
}

// Poll looks once at least, even when its budget is gone before it starts
// (a poller scheduled late on a loaded machine), and stops at a hit.
func TestPollLooksOnceAtLeastAndStopsAtAHit(t *testing.T) {
	looks := 0
	if poll(0, func() Look { looks++; return Again }) != Again || looks != 1 {
		t.Fatalf("with no budget: %d looks, want 1 and no hit", looks)
	}
	looks = 0
	if poll(time.Second, func() Look {
		if looks++; looks == 3 {
			return Found
		}
		return Again
	}) != Found || looks != 3 {
		t.Fatalf("a hit at the third look: %d looks", looks)
	}
}

// Await is Budget, Poll and the hit or miss in one: after missesMax waits
// that found nothing, the next ones sleep at once, without looking.
func TestAwaitRecordsItsMissesAndRests(t *testing.T) {
	p := &Spinner{pause: restMin}
	if !p.Await(0, func() Look { return Found }) {
		t.Fatal("a look that finds at once: Await says no")
	}
	for range missesMax {
		if p.Await(0, func() Look { return Again }) {
			t.Fatal("a look that never finds: Await says yes")
		}
	}
	looked := false
	if p.Await(0, func() Look { looked = true; return Found }) || looked {
		t.Fatalf("after %d misses in a row a wait looked (%v) instead of resting", missesMax, looked)
	}
}

// A look that ends the wait without what it waited for (a broken
// protocol, the peer's end) is neither a hit nor a miss: it does not bring
// a rest nearer, nor end one's doubling.
func TestAWaitEndedOverIsNeitherAHitNorAMiss(t *testing.T) {
	p := &Spinner{pause: restMin}
	for range missesMax - 1 {
		p.Await(0, func() Look { return Again })
	}
	if !p.Await(0, func() Look { return Over }) {
		t.Fatal("a look that says Over: Await says the wait did not end")
	}
	if p.misses != missesMax-1 || p.rest != 0 {
		t.Fatalf("after an Over: misses %d, rest %d; want %d and 0", p.misses, p.rest, missesMax-1)
	}
}

// A wait that began late polls only for what is left of Max.
func TestAwaitBegunMaxAgoSleepsWithoutLooking(t *testing.T) {
	p := &Spinner{pause: restMin}
	looked := false
	if p.Await(Max, func() Look { looked = true; return Found }) || looked {
		t.Fatal("a wait begun Max ago looked")
	}
}
