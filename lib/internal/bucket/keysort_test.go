package bucket

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestSortKeyedOrdersKeysAsStringsCompareDoes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"", "\x00", "a", "b", "/api/v1/orders/item-", "?q=", "\xff", "é"}
	for round := range 200 {
		seen := map[string]bool{}
		var keys []keyed
		for n := rng.IntN(300); len(keys) < n; {
			var b strings.Builder
			for range rng.IntN(6) {
				b.WriteString(alphabet[rng.IntN(len(alphabet))])
			}
			if k := b.String(); !seen[k] {
				seen[k] = true
				keys = append(keys, keyed{key: k, i: int32(len(keys))})
			}
		}
		got := slices.Clone(keys)
		sortKeyed(got)
		want := slices.Clone(keys)
		slices.SortFunc(want, func(a, b keyed) int { return strings.Compare(a.key, b.key) })
		if !slices.EqualFunc(got, want, func(a, b keyed) bool { return a.key == b.key && a.i == b.i }) {
			t.Fatalf("round %d: sortKeyed gave another order than strings.Compare for %d keys", round, len(keys))
		}
	}
}

func FuzzSortKeyed(f *testing.F) {
	f.Add("b\na\nab\n\x00\n")
	f.Fuzz(func(t *testing.T, s string) {
		seen := map[string]bool{}
		var keys []keyed
		for _, k := range strings.Split(s, "\n") {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, keyed{key: k, i: int32(len(keys))})
			}
		}
		sortKeyed(keys)
		if !slices.IsSortedFunc(keys, func(a, b keyed) int { return strings.Compare(a.key, b.key) }) {
			t.Fatalf("not sorted: %+v", keys)
		}
	})
}
