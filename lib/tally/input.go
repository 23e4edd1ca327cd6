package tally

import (
	"bufio"
	"bytes"
	"fmt"
	"io"

	"github.com/timbertally/timbertally/lib/protocol"
)

// inputSize is tally's input buffer. feed sends at most 8 MiB a batch (one
// longer entry alone), so a batch fits it with its header and is bucketed
// straight out of it: the kernel's copy from the pipe is the only copy, and
// the entries are still in this core's cache when they are extracted. Pages
// of the buffer are touched only as far as batches reach (~100 KiB at
// --batch-size 512).
const inputSize = 9 << 20

// maxBatchBytes bounds a batch that does not fit inputSize (one entry over
// 8 MiB, under a raised --max-line), read into a buffer of its own.
const maxBatchBytes = 1 << 30

// message is one line of feed's input after the store lines, with a
// batch's entries.
type message struct {
	h    protocol.Header
	line string // the line, quoted by errors
	body []byte // a batch's entries, each with its '\n'; valid until the next read
}

// read completes the message that starts with line: for a batch, its
// entries, checked to be exactly entries= whole lines, then reported taken
// at once, before they are bucketed, so that feed's next batch travels
// while this one is processed (the pipe, enlarged by feed to 1 MiB, holds it).
func (c *consumer) read(line []byte) (message, error) {
	h, err := protocol.ParseHeader(line)
	m := message{h: h, line: string(line)}
	if err != nil || h.Kind != protocol.KindBatch {
		return m, err
	}
	n := h.End - h.Offset
	if m.body, err = c.body(n); err != nil {
		return m, fmt.Errorf("%q: %w", m.line, err)
	}
	if got := bytes.Count(m.body, []byte{'\n'}); got != h.Entries || m.body[n-1] != '\n' {
		return m, fmt.Errorf("%q: its %d bytes hold %d whole lines, not entries=%d", m.line, n, got, h.Entries)
	}
	if st, ok := c.ids[h.ID]; ok {
		return m, c.rep.took(st, h.End)
	}
	return m, nil
}

// body returns the next n bytes of input: in place in the input buffer
// when they fit it (consumed by the next call of done), else read into a
// buffer of their own.
func (c *consumer) body(n int64) ([]byte, error) {
	switch {
	case n > maxBatchBytes:
		return nil, fmt.Errorf("a batch of %d bytes is over tally's limit of %d", n, maxBatchBytes)
	case n <= int64(c.in.Size()):
		b, err := c.in.Peek(int(n))
		if err != nil {
			return nil, fmt.Errorf("input ended inside the batch (%w)", unexpected(err))
		}
		c.peeked = int(n)
		return b, nil
	}
	if int64(cap(c.big)) < n {
		c.big = make([]byte, n)
	}
	b := c.big[:n]
	if _, err := io.ReadFull(c.in, b); err != nil {
		return nil, fmt.Errorf("input ended inside the batch (%w)", unexpected(err))
	}
	return b, nil
}

// done consumes a body left in the input buffer once it is processed.
func (c *consumer) done() {
	c.in.Discard(c.peeked)
	c.peeked = 0
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
