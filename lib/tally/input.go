package tally

import (
	"bytes"
	"fmt"
	"io"

	"github.com/timbertally/timbertally/lib/protocol"
)

// readAhead is how many batches the reader may hold beyond the one being
// processed: one is enough to keep the pipe drained and feed's next batch
// in flight while tally works (two cores: one reads, one buckets).
const readAhead = 2

// message is one line of feed's input after the store lines, with a
// batch's entries.
type message struct {
	h    protocol.Header
	line string // the line, quoted by errors
	body []byte // a batch's entries, each with its '\n' (a pooled buffer)
	err  error  // the input cannot be read past this point
}

// reader reads feed's input ahead of the processing, in its own goroutine:
// each batch is read into memory and reported taken at once, so that feed
// sends the next one and the pipe is drained while the previous batch is
// bucketed. Messages keep the input's order.
type reader struct {
	c    *consumer
	out  chan message
	free chan []byte
	done chan struct{}
}

func (c *consumer) startReader(first []byte) *reader {
	r := &reader{c: c, out: make(chan message, readAhead), free: make(chan []byte, readAhead+1), done: make(chan struct{})}
	for range readAhead + 1 {
		r.free <- nil
	}
	go r.loop(first)
	return r
}

// stop ends the reader early (the processing failed).
func (r *reader) stop() { close(r.done) }

// recycle returns a batch buffer to the pool.
func (r *reader) recycle(b []byte) {
	if b != nil {
		r.free <- b[:0]
	}
}

func (r *reader) loop(line []byte) {
	defer close(r.out)
	for line != nil {
		m := r.read(line)
		select {
		case r.out <- m:
		case <-r.done:
			return
		}
		if m.err != nil {
			return
		}
		var err error
		line, err = r.c.line()
		if err == io.EOF {
			return
		}
		if err != nil {
			line = nil
			select {
			case r.out <- message{err: err}:
			case <-r.done:
			}
		}
	}
}

// read completes the message that starts with line: for a batch, its
// entries, checked to be exactly entries= whole lines, then reported taken.
func (r *reader) read(line []byte) message {
	h, err := protocol.ParseHeader(line)
	m := message{h: h, line: string(line), err: err}
	if err != nil || h.Kind != protocol.KindBatch {
		return m
	}
	n := h.End - h.Offset
	if n > maxBatchBytes {
		m.err = fmt.Errorf("%q: a batch of %d bytes is over tally's limit of %d", m.line, n, maxBatchBytes)
		return m
	}
	var buf []byte
	select {
	case buf = <-r.free:
	case <-r.done:
		m.err = io.ErrClosedPipe
		return m
	}
	if int64(cap(buf)) < n {
		buf = make([]byte, n)
	}
	m.body = buf[:n]
	if _, err := io.ReadFull(r.c.in, m.body); err != nil {
		m.err = fmt.Errorf("%q: input ended inside the batch (%w)", m.line, err)
		return m
	}
	if got := bytes.Count(m.body, []byte{'\n'}); got != h.Entries || m.body[n-1] != '\n' {
		m.err = fmt.Errorf("%q: its %d bytes hold %d whole lines, not entries=%d", m.line, n, got, h.Entries)
		return m
	}
	if st, ok := r.c.ids[h.ID]; ok {
		m.err = r.c.rep.took(st, h.End)
	}
	return m
}
