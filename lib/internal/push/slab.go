package push

// slabChunk is how many messages (or pointers) a chunk holds: a group's
// few thousand series take a few dozen allocations, not tens of thousands.
const slabChunk = 256

// slab hands out pointers to zeroed Ts from chunks allocated slabChunk at
// a time. A chunk is never grown in place (that would move what the
// pointers point to): a new one follows. It lives as long as its batch.
type slab[T any] struct{ chunk []T }

func (s *slab[T]) next() *T {
	if len(s.chunk) == 0 {
		s.chunk = make([]T, slabChunk)
	}
	p := &s.chunk[0]
	s.chunk = s.chunk[1:]
	return p
}

// ptrs hands out empty slices of *T with room for n, from shared chunks:
// each slice's capacity is exactly its n, so an append past it copies
// out instead of writing over the next slice's room.
type ptrs[T any] struct{ chunk []*T }

func (p *ptrs[T]) take(n int) []*T {
	if n > slabChunk {
		return make([]*T, 0, n)
	}
	if len(p.chunk) < n {
		p.chunk = make([]*T, slabChunk)
	}
	s := p.chunk[:0:n]
	p.chunk = p.chunk[n:]
	return s
}
