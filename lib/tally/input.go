package tally

import (
	"bufio"
	"bytes"
	"fmt"
	"io"

	"github.com/timbertally/timbertally/lib/protocol"
)

// inputSize is tally's input buffer. feed sends at most 8 MiB a batch (one
// longer entry alone), so a batch fits it and is bucketed straight out of
// it, piece by piece as it arrives: the kernel's copy from the pipe is the
// only copy. Pages of the buffer are touched only as far as reads reach
// (~100 KiB at --batch-size 512; a pipe read returns at most the 1 MiB feed
// enlarges the pipe to).
const inputSize = 9 << 20

// pieceSize is how much of a batch is bucketed at a time: small enough that
// the entries are still in the core's L2 cache from the read that brought
// them, and that bucketing a big batch overlaps with feed writing the rest.
const pieceSize = 256 << 10

// maxBatchBytes bounds a batch that does not fit inputSize (one entry over
// 8 MiB, under a raised --max-line), read whole into a buffer of its own.
const maxBatchBytes = 1 << 30

// message is one line of feed's input after the store lines.
type message struct {
	h    protocol.Header
	line string // the line, quoted by errors
}

func (c *consumer) header(line []byte) (message, error) {
	h, err := protocol.ParseHeader(line)
	return message{h: h, line: string(line)}, err
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
	h := &m.h
	left := h.End - h.Offset
	if left > int64(c.in.Size()) {
		return c.bigBatch(st, m)
	}
	pos, lines, want := h.Offset, 0, pieceSize
	for left > 0 {
		b, err := c.in.Peek(int(min(left, int64(want))))
		if err != nil {
			return fmt.Errorf("%q: input ended inside the batch (%w)", m.line, unexpected(err))
		}
		if int64(len(b)) < left {
			i := bytes.LastIndexByte(b, '\n')
			if i < 0 {
				want *= 2 // a line longer than a piece (left fits the buffer)
				continue
			}
			b, want = b[:i+1], pieceSize
		} else {
			if b[len(b)-1] != '\n' {
				return miscount(m, lines+bytes.Count(b, []byte{'\n'}))
			}
			if err := c.rep.took(st, h.End); err != nil {
				return err
			}
		}
		lines += c.entries(st, pos, b)
		pos += int64(len(b))
		left -= int64(len(b))
		c.in.Discard(len(b))
	}
	if lines != h.Entries {
		return miscount(m, lines)
	}
	return nil
}

// bigBatch reads a batch too large for the input buffer whole, checks it,
// reports it taken and buckets it.
func (c *consumer) bigBatch(st int, m *message) error {
	n := m.h.End - m.h.Offset
	if n > maxBatchBytes {
		return fmt.Errorf("%q: a batch of %d bytes is over tally's limit of %d", m.line, n, maxBatchBytes)
	}
	if int64(cap(c.big)) < n {
		c.big = make([]byte, n)
	}
	b := c.big[:n]
	if _, err := io.ReadFull(c.in, b); err != nil {
		return fmt.Errorf("%q: input ended inside the batch (%w)", m.line, unexpected(err))
	}
	if got := bytes.Count(b, []byte{'\n'}); got != m.h.Entries || b[n-1] != '\n' {
		return miscount(m, got)
	}
	if err := c.rep.took(st, m.h.End); err != nil {
		return err
	}
	c.entries(st, m.h.Offset, b)
	return nil
}

func miscount(m *message, lines int) error {
	return fmt.Errorf("%q: its %d bytes hold %d whole lines, not entries=%d", m.line, m.h.End-m.h.Offset, lines, m.h.Entries)
}

// entries buckets whole lines, the first at pos, and returns how many.
func (c *consumer) entries(st int, pos int64, b []byte) int {
	n := 0
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		c.roller.Entry(st, pos, b[:i])
		pos += int64(i) + 1
		b = b[i+1:]
		n++
	}
	return n
}

// unexpected says EOF inside a batch the way io.ReadFull does.
func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// newInput buffers feed's input.
func newInput(r io.Reader) *bufio.Reader { return bufio.NewReaderSize(r, inputSize) }
