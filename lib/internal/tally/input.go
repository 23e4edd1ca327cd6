package tally

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/timbertally/timbertally/lib/protocol"
)

// pieceSize is how much of a batch is bucketed at a time. Between two
// pieces tally reads ahead what feed has written meanwhile and reports the
// batches it completes taken, so a piece is small enough that a batch of
// 512 ~200-byte entries is two, and feed hears of the next batch's taking
// while this one is still bucketed.
const pieceSize = 64 << 10

// maxRestBytes bounds the rest of a batch read whole because one of its
// lines does not fit inputSize (an entry over 2 MiB, under a raised
// --max-line).
const maxRestBytes = 1 << 30

// message is one line of feed's input after the store lines.
type message struct {
	h    protocol.Header
	line []byte // the line, quoted by errors; valid until the next line
}

// header parses line, keeping a copy of it for messages in a buffer reused
// line after line (the input buffer's bytes move once the batch is read).
func (c *consumer) header(line []byte) (message, error) {
	c.last = append(c.last[:0], line...)
	h, err := protocol.ParseHeader(line)
	return message{h: h, line: c.last}, err
}

// batch buckets the entries of the batch m announces for store st a piece
// at a time. Before each piece it reads ahead what feed has written and
// reports taken every batch then wholly in memory, this one included, so
// that feed's next batches travel while this one is bucketed.
//
// Whether the batch is exactly entries= whole lines is known only at its
// end. Nothing of it reaches the tape before that (flush runs after), so a
// bad batch stops tally with nothing of it written.
func (c *consumer) batch(st int, m *message) error {
	left := m.h.End - m.h.Offset // > 0: the protocol refuses an empty batch
	// The input position after the batch, kept from overflowing: a
	// header's end= may be any int64.
	end := c.in.pos() + min(left, math.MaxInt64-c.in.pos())
	pos, lines, want := m.h.Offset, 0, pieceSize
	for {
		if err := c.ahead(st, m.h.End, end); err != nil {
			return err
		}
		n := min(left, int64(want))
		if n > int64(c.in.size()) {
			return c.rest(st, m, pos, left, lines)
		}
		b, err := c.in.peek(int(n))
		if err != nil {
			return cut(m, err)
		}
		if n == left {
			err := c.lastPiece(st, m, pos, b, lines)
			c.in.discard(len(b))
			return err
		}
		k, tail := c.roller.Lines(st, pos, b)
		used := len(b) - len(tail)
		if used == 0 {
			want *= 2 // a line longer than a piece
			continue
		}
		lines, pos, left, want = lines+k, pos+int64(used), left-int64(used), pieceSize
		c.in.discard(used)
	}
}

// ahead reads what feed has written, without waiting for more, and reports
// taken the batch being bucketed (store st, up to taken, ending at input
// position end) once it is all in memory, then every whole batch after it.
// The look stops at a line that is not a well-formed whole batch or a line
// without bytes of its own (skip, idle, end); the main loop meets that line
// in its turn and says what is wrong with it. c.seen is where the look
// stopped last, so no line is looked at twice.
func (c *consumer) ahead(st int, taken, end int64) error {
	c.in.pull(end)
	b, at := c.in.buffered()
	held := at + int64(len(b))
	if held < end || c.seen >= held {
		return nil
	}
	if c.seen < end {
		if b[end-at-1] != '\n' {
			return nil // lastPiece says the batch is cut
		}
		if err := c.rep.took(st, taken); err != nil {
			return err
		}
		c.seen = end
	}
	for c.seen < held {
		rest := b[c.seen-at:]
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			return nil
		}
		h, err := protocol.ParseHeader(rest[:i])
		if err != nil {
			return nil
		}
		next := c.seen + int64(i) + 1
		switch h.Kind {
		case protocol.KindBatch:
			s, ok := c.ids[h.ID]
			n := h.End - h.Offset
			if !ok || n <= 0 || n > held-next || b[next+n-1-at] != '\n' {
				return nil
			}
			if err := c.rep.took(s, h.End); err != nil {
				return err
			}
			next += n
		case protocol.KindSkip, protocol.KindIdle, protocol.KindEnd:
		default:
			return nil
		}
		c.seen = next
	}
	return nil
}

// rest reads the last left bytes of a batch whole, because one of its lines
// does not fit the input buffer, and handles them as its last piece; lines
// is what the pieces before held.
func (c *consumer) rest(st int, m *message, pos, left int64, lines int) error {
	if left > maxRestBytes {
		return fmt.Errorf("%q: a line of over %d bytes in a batch of %d bytes over tally's limit of %d", m.line, c.in.size(), m.h.End-m.h.Offset, maxRestBytes)
	}
	// The buffer grows with what arrives, doubling: a header announcing a
	// gigabyte that never comes costs what came, not a gigabyte.
	b := make([]byte, 0, min(left, 2*int64(c.in.size())))
	for int64(len(b)) < left {
		if len(b) == cap(b) {
			b = slices.Grow(b, int(min(left-int64(len(b)), int64(len(b)))))
		}
		k := int(min(int64(cap(b)), left))
		if err := c.in.readFull(b[len(b):k]); err != nil {
			return cut(m, err)
		}
		b = b[:k]
	}
	return c.lastPiece(st, m, pos, b, lines)
}

// lastPiece handles a batch's last piece b, the first of its bytes at pos:
// they must end with a newline, the batch is reported taken, then b is
// bucketed and the batch's lines counted against its entries=.
func (c *consumer) lastPiece(st int, m *message, pos int64, b []byte, lines int) error {
	if b[len(b)-1] != '\n' {
		return unended(m)
	}
	if err := c.rep.took(st, m.h.End); err != nil {
		return err
	}
	if k, _ := c.roller.Lines(st, pos, b); lines+k != m.h.Entries {
		return miscount(m, lines+k)
	}
	return nil
}

// cut is input that ended inside a batch.
func cut(m *message, err error) error {
	if err == io.EOF {
		err = io.ErrUnexpectedEOF // as io.ReadFull says it
	}
	return fmt.Errorf("%q: input ended inside the batch (%w): nothing of it is on the tape; if feed was stopped, run it again to resume from its cursor", m.line, err)
}

// unended is a batch whose bytes do not end with a newline: its last
// entry is cut.
func unended(m *message) error {
	return fmt.Errorf("%q: its %d bytes do not end with a newline: a batch is whole lines", m.line, m.h.End-m.h.Offset)
}

func miscount(m *message, lines int) error {
	return fmt.Errorf("%q: its %d bytes hold %d whole lines, not entries=%d", m.line, m.h.End-m.h.Offset, lines, m.h.Entries)
}
