package testkit

import (
	"sync"
	"sync/atomic"
	"testing"
)

// A SyncBuffer written by several goroutines holds every write whole
// (go test -race checks the locking).
func TestASyncBufferHoldsEveryConcurrentWrite(t *testing.T) {
	var b SyncBuffer
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				b.Write([]byte("ab"))
				_ = b.String()
			}
		})
	}
	wg.Wait()
	if n := len(b.String()); n != 8*100*2 {
		t.Errorf("%d bytes, want %d", n, 8*100*2)
	}
}

// Poll returns once its condition holds, having asked until then.
func TestPollReturnsWhenTheConditionHolds(t *testing.T) {
	var n atomic.Int32
	Poll(t, "the third ask", func() bool { return n.Add(1) >= 3 })
	if n.Load() != 3 {
		t.Errorf("asked %d times, want 3", n.Load())
	}
}
