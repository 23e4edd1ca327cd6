package bucket

import "strings"

// keyed is a series number with its label key, sorted side by side so that
// a comparison reads the key from the element, not through keys[i]. chunk
// holds the key's bytes at the position being sorted on (see chunkAt).
type keyed struct {
	key   string
	i     int32
	chunk uint64
}

// sortKeyed sorts a by key bytes, as strings.Compare orders them, with a
// multikey quicksort (Bentley and Sedgewick) on chunkBytes bytes at a time:
// it partitions on the keys' chunk at one position, so the long prefixes
// label values share (paths such as /api/v1/orders/item-…) are read once
// per partition level instead of once per comparison, and the chunk is
// kept in the element, so a level reads each key's bytes once, not once
// per comparison. A seal sorts its bucket's series with it: by=path spent
// much of its time comparing keys with a comparison sort, and still a
// good part with a multikey quicksort on one byte at a time (a cache miss
// per key per byte of a shared prefix) (figures: bench/README.md, "The figures behind the code's comments"). Keys are distinct.
func sortKeyed(a []keyed) {
	loadChunks(a, 0)
	sortChunks(a, 0)
}

// chunkBytes is how many key bytes a chunk holds; the chunk's low byte
// holds how many of them the key has.
const chunkBytes = 7

// chunkAt returns the chunkBytes bytes of s from d, big-endian and padded
// with zeros, above how many there are (0 to chunkBytes). Chunks compare as
// the keys' bytes from d do: when the bytes agree, padding included, the
// key with fewer is a prefix of the other, and sorts first.
func chunkAt(s string, d int) uint64 {
	rest := s[min(d, len(s)):]
	var c uint64
	n := min(len(rest), chunkBytes)
	for i := range chunkBytes {
		c <<= 8
		if i < n {
			c |= uint64(rest[i])
		}
	}
	return c<<8 | uint64(n)
}

func loadChunks(a []keyed, d int) {
	for i := range a {
		a[i].chunk = chunkAt(a[i].key, d)
	}
}

// sortChunks sorts a whose chunks are loaded at d, where its keys agree
// before d.
func sortChunks(a []keyed, d int) {
	for len(a) > insertionMax {
		p := a[len(a)/2].chunk
		lt, i, gt := 0, 0, len(a)
		for i < gt {
			switch c := a[i].chunk; {
			case c < p:
				a[lt], a[i] = a[i], a[lt]
				lt++
				i++
			case c > p:
				gt--
				a[i], a[gt] = a[gt], a[i]
			default:
				i++
			}
		}
		sortChunks(a[:lt], d)
		sortChunks(a[gt:], d)
		if p&0xff < chunkBytes {
			return // the equal part's keys end within the chunk: one key at most
		}
		a, d = a[lt:gt], d+chunkBytes
		loadChunks(a, d)
	}
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && less(&a[j], &a[j-1], d); j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

// less orders two keys that agree before d and whose chunks are at d.
func less(x, y *keyed, d int) bool {
	if x.chunk != y.chunk {
		return x.chunk < y.chunk
	}
	return strings.Compare(x.key[min(d, len(x.key)):], y.key[min(d, len(y.key)):]) < 0
}

// insertionMax is the size below which sortKeyed sorts by insertion.
const insertionMax = 12
