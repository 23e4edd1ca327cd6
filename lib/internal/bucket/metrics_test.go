package bucket

import (
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/timbertally/timbertally/lib/internal/textslab"
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

// A series' key is copied into a slab shared with the keys before it: each
// key must stay as it was created across many slabs (one key longer than a
// slab included), the key bytes passed to create may be reused at once, and
// a new series costs far less than one allocation.
func TestSeriesKeysKeptInSlabsStayIntactAndCostFewAllocations(t *testing.T) {
	s := seriesSet{index: map[string]int32{}}
	var want []string
	buf := make([]byte, 0, 2*textslab.MaxSize)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	func() {
		for i := range 20000 {
			n := 40 + i%30
			if i == 7777 {
				n = textslab.MaxSize + 1
			}
			buf = buf[:0]
			for j := range n {
				buf = append(buf, byte('a'+(i+j)%26))
			}
			buf = strconv.AppendInt(buf, int64(i), 10)
			want = append(want, string(buf))
			s.create(buf, 1)
			clear(buf[:cap(buf)]) // the caller's bytes change; the key must not
		}
	}()
	runtime.ReadMemStats(&after)
	allocs := float64(after.Mallocs - before.Mallocs)
	for i, k := range want {
		if s.keys[i] != k || s.find([]byte(k)) != int32(i) {
			t.Fatalf("key %d: kept %.20q..., find %d; want %.20q...", i, s.keys[i], s.find([]byte(k)), k)
		}
	}
	// 20 000 keys of ~60 bytes in slabs of up to 64 KiB: ~20 slabs, plus the
	// want strings and the index's and slices' growth.
	if perSeries := (allocs - float64(len(want))) / float64(len(want)); perSeries > 0.05 {
		t.Errorf("%.3f allocations per new series beyond the test's own, want under 0.05", perSeries)
	}
}

func TestASealPrintsEachMetricsSeriesInLabelOrderWithTheirLabelsEscaped(t *testing.T) {
	// Two groups, visited c (a,b), m (b), s (a,b): the label sets escaped
	// for a group are printed again for its next metric, not another's.
	r := rollerFor(t, `format regex ^(?P<t>\S+) (?P<a>\S+) (?P<b>\S+) (?P<n>\S+)$
time t layout=unix
window 10s grace=0s
metric c count by=a,b
metric m max=n by=b
metric s sum=n by=a,b
`, nil)
	st := r.AddStore("w", 0)
	feedLines(r, st, 0, `101 x"y p 5`, `102 x"y q 7`, `103 z\ p 1`, `104 x"y p 2`, "105 \xff p 4")
	r.Complete()
	// Series sort by their key bytes: each value after its length, so the
	// 1-byte \xff and the 2-byte z\ come before the 3-byte x"y.
	want := `1970-01-01T00:01:40Z c{a="\xff",b="p"} 1
1970-01-01T00:01:40Z c{a="z\\",b="p"} 1
1970-01-01T00:01:40Z c{a="x\"y",b="p"} 2
1970-01-01T00:01:40Z c{a="x\"y",b="q"} 1
1970-01-01T00:01:40Z m{b="p"} 5
1970-01-01T00:01:40Z m{b="q"} 7
1970-01-01T00:01:40Z s{a="\xff",b="p"} 4
1970-01-01T00:01:40Z s{a="z\\",b="p"} 1
1970-01-01T00:01:40Z s{a="x\"y",b="p"} 7
1970-01-01T00:01:40Z s{a="x\"y",b="q"} 7
seal 1970-01-01T00:01:40Z`
	if out := string(r.Take()); !strings.HasPrefix(out, want) {
		t.Fatalf("want the group to start\n%s\ngot\n%s", want, out)
	}
}
