package push

// slabChunk is how many messages (or pointers) a chunk holds: a group's
// few thousand series take a few dozen allocations, not tens of thousands.
const slabChunk = 256

// maxKeptChunks bounds the chunks a rewound slab keeps for its next use:
// a batch of a read's bound of tape takes a few hundred; one of a group
// read whole however large (the shapes that do not stream) is left to the
// collector.
const maxKeptChunks = 512

// chunks are a slab's chunks, handed out in turn and, once rewound, again:
// a batch's messages are garbage when its group was sent, and the next
// batch reusing them saves most of tgpush's allocation (bench/README.md,
// session 13). A chunk is never grown in place (that would move what the
// pointers into it point to): a new one follows.
type chunks[E any] struct {
	all  [][]E
	used int
}

// fresh returns a zeroed chunk.
func (c *chunks[E]) fresh() []E {
	if c.used == len(c.all) {
		c.all = append(c.all, make([]E, slabChunk))
	} else {
		clear(c.all[c.used])
	}
	c.used++
	return c.all[c.used-1]
}

// rewind makes every chunk fresh again: what was handed out before must
// be dead.
func (c *chunks[E]) rewind() {
	if len(c.all) > maxKeptChunks {
		c.all = nil
	}
	c.used = 0
}

// slab hands out pointers to zeroed Ts from chunks. It lives as long as
// its batch, or until the batch is reset for another group.
type slab[T any] struct {
	chunks[T]
	chunk []T // the rest of the chunk being handed out
}

func (s *slab[T]) next() *T {
	if len(s.chunk) == 0 {
		s.chunk = s.fresh()
	}
	p := &s.chunk[0]
	s.chunk = s.chunk[1:]
	return p
}

func (s *slab[T]) rewind() { s.chunks.rewind(); s.chunk = nil }

// ptrs hands out empty slices of *T with room for n, from shared chunks:
// each slice's capacity is exactly its n, so an append past it copies
// out instead of writing over the next slice's room.
type ptrs[T any] struct {
	chunks[*T]
	chunk []*T
}

func (p *ptrs[T]) take(n int) []*T {
	if n > slabChunk {
		return make([]*T, 0, n)
	}
	if len(p.chunk) < n {
		p.chunk = p.fresh()
	}
	s := p.chunk[:0:n]
	p.chunk = p.chunk[n:]
	return s
}

func (p *ptrs[T]) rewind() { p.chunks.rewind(); p.chunk = nil }
