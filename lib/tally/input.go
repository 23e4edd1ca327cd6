package tally

import (
	"bufio"
	"fmt"
	"io"

	"github.com/timbertally/timbertally/lib/protocol"
)

// inputSize is tally's input buffer. Batches are bucketed straight out of
// it, piece by piece as they arrive: the kernel's copy from the pipe is the
// only copy. A pipe read returns at most the 1 MiB feed enlarges the pipe
// to, so 2 MiB holds a read and what is left of the last piece. It is kept
// small because it is live heap: Go's collector lets garbage grow to the
// live heap's size before it runs, and a 9 MiB buffer let tally's RSS grow
// 1.30x from 500 000 to 5 000 000 entries (1.6 MiB of uncollected garbage).
const inputSize = 2 << 20

// pieceSize is how much of a batch is bucketed at a time: small enough that
// the entries are still in the core's L2 cache from the read that brought
// them, and that bucketing a big batch overlaps with feed writing the rest.
const pieceSize = 256 << 10

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

// batch buckets the entries of the batch m announces for store st as they
// arrive, a piece at a time, and reports the batch taken as soon as its last
// byte is read, before its last piece is bucketed, so that feed's next batch
// travels meanwhile (at --batch-size 512 a batch is one piece).
//
// Whether the batch is exactly entries= whole lines is known only at its
// end. Nothing of it reaches the tape before that (flush runs after), so a
// bad batch stops tally with nothing of it written.
func (c *consumer) batch(st int, m *message) error {
	left := m.h.End - m.h.Offset // > 0: the protocol refuses an empty batch
	pos, lines, want := m.h.Offset, 0, pieceSize
	for {
		n := min(left, int64(want))
		if n > int64(c.in.Size()) {
			return c.rest(st, m, pos, left, lines)
		}
		b, err := c.in.Peek(int(n))
		if err != nil {
			return cut(m, err)
		}
		if n == left {
			err := c.lastPiece(st, m, pos, b, lines)
			c.in.Discard(len(b))
			return err
		}
		k, tail := c.roller.Lines(st, pos, b)
		used := len(b) - len(tail)
		if used == 0 {
			want *= 2 // a line longer than a piece
			continue
		}
		lines, pos, left, want = lines+k, pos+int64(used), left-int64(used), pieceSize
		c.in.Discard(used)
	}
}

// rest reads the last left bytes of a batch whole, because one of its lines
// does not fit the input buffer, and handles them as its last piece; lines
// is what the pieces before held.
func (c *consumer) rest(st int, m *message, pos, left int64, lines int) error {
	if left > maxRestBytes {
		return fmt.Errorf("%q: a line of over %d bytes in a batch of %d bytes over tally's limit of %d", m.line, c.in.Size(), m.h.End-m.h.Offset, maxRestBytes)
	}
	b := make([]byte, left)
	if _, err := io.ReadFull(c.in, b); err != nil {
		return cut(m, err)
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
	return fmt.Errorf("%q: input ended inside the batch (%w)", m.line, err)
}

// unended is a batch whose bytes do not end with a newline: its last
// entry is cut.
func unended(m *message) error {
	return fmt.Errorf("%q: its %d bytes do not end with a newline: a batch is whole lines", m.line, m.h.End-m.h.Offset)
}

func miscount(m *message, lines int) error {
	return fmt.Errorf("%q: its %d bytes hold %d whole lines, not entries=%d", m.line, m.h.End-m.h.Offset, lines, m.h.Entries)
}

// newInput buffers feed's input.
func newInput(r io.Reader) *bufio.Reader { return bufio.NewReaderSize(r, inputSize) }
