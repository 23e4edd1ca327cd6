package bucket

import (
	"math/rand/v2"
	"testing"
)

func TestASeriesSetFindsEveryKeyItCreatedWhateverItsShortTableHolds(t *testing.T) {
	// 2 000 keys of 0 to 12 bytes over 64 slots: slots are shared, keys of
	// the same bytes but another length differ ("1" and "1\x00"), and a
	// reset forgets them all.
	s := seriesSet{index: map[string]int32{}}
	want := map[string]int32{}
	rng := rand.New(rand.NewPCG(1, 2))
	key := func() []byte {
		k := make([]byte, rng.IntN(13))
		for j := range k {
			k[j] = "01\x00ab"[rng.IntN(5)]
		}
		return k
	}
	for round := range 2 {
		for range 2000 {
			k := key()
			i, ok := want[string(k)]
			if got := s.find(k); got != map[bool]int32{true: i, false: -1}[ok] {
				t.Fatalf("round %d: find(%q) = %d, want %d (known: %v)", round, k, got, i, ok)
			}
			if !ok {
				want[string(k)] = s.create(k, 1)
			}
		}
		s.reset()
		clear(want)
		for range 100 {
			if k := key(); s.find(k) != -1 {
				t.Fatalf("after reset, find(%q) = %d, want -1", k, s.find(k))
			}
		}
	}
}
