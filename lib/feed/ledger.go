package feed

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/timbertally/timbertally/lib/protocol"
)

// maxReportLine bounds one report line; a longer one is garbage.
const maxReportLine = 64 << 10

// ledger is what the main loop and the report reader share: per store, what
// was delivered and what the consumer last validly reported. The report
// reader never blocks on the main loop: it records under mu and wakes the
// loop with a non-blocking send on wake (capacity 1), so a consumer writing
// reports can never deadlock against feed writing a batch.
type ledger struct {
	mu        sync.Mutex
	ids       map[string]int
	delivered []int64     // end of every byte sent (batches and skips): the bound of taken
	owed      []int64     // end of the last batch sent: the store is parked while taken < owed
	offset    []int64     // last valid report's durable offset
	taken     []int64     // last valid report's flow-control position
	reportAt  []time.Time // when the last valid report arrived
	err       error       // the first report that broke the protocol
	eof       bool        // the consumer's stdout is closed
	wake      chan struct{}
	done      chan struct{} // closed when read returns
}

func newLedger(ids []string, start []int64) *ledger {
	n := len(ids)
	l := &ledger{ids: make(map[string]int, n), wake: make(chan struct{}, 1), done: make(chan struct{}),
		delivered: make([]int64, n), owed: make([]int64, n), offset: make([]int64, n),
		taken: make([]int64, n), reportAt: make([]time.Time, n)}
	for i, id := range ids {
		l.ids[id] = i
		l.delivered[i], l.owed[i], l.offset[i], l.taken[i] = start[i], start[i], start[i], start[i]
	}
	return l
}

// notify wakes the main loop without ever blocking.
func (l *ledger) notify() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// deliver records, before the bytes are written, that store i is sent up to
// end; batch says whether they are entries the consumer must take.
func (l *ledger) deliver(i int, end int64, batch bool) {
	l.mu.Lock()
	l.delivered[i] = end
	if batch {
		l.owed[i] = end
	}
	l.mu.Unlock()
}

// parked reports whether store i waits for the consumer to take its last batch.
func (l *ledger) parked(i int) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.taken[i] < l.owed[i]
}

// since returns when store i last got a valid report.
func (l *ledger) since(i int) time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.reportAt[i]
}

// status returns the first protocol error and whether stdout is closed.
func (l *ledger) status() (error, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err, l.eof
}

// offsets copies the last valid durable offsets into dst.
func (l *ledger) offsets(dst []int64) []int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append(dst[:0], l.offset...)
}

// read consumes the consumer's reports until EOF or the first bad one; after
// a bad one it drains the rest unread, so the consumer never blocks on it.
func (l *ledger) read(r io.Reader) {
	defer close(l.done)
	br := bufio.NewReaderSize(r, maxReportLine)
	for {
		line, err := br.ReadSlice('\n')
		if err == nil {
			err = l.accept(line[:len(line)-1])
		} else if len(line) > 0 || errors.Is(err, bufio.ErrBufferFull) {
			err = fmt.Errorf("feed: the consumer wrote a report line without its newline (%q, %d bytes); it must end each report in \\n", trim(line), len(line))
		}
		if err != nil {
			l.mu.Lock()
			if !errors.Is(err, io.EOF) && l.err == nil {
				l.err = err
			}
			l.eof = true
			l.mu.Unlock()
			l.notify()
			io.Copy(io.Discard, br)
			return
		}
	}
}

// accept validates one report against what was delivered and records it.
func (l *ledger) accept(line []byte) error {
	rep, err := protocol.ParseReport(line)
	if err != nil {
		return fmt.Errorf("feed: the consumer broke the protocol: %w", err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	i, ok := l.ids[rep.ID]
	switch {
	case !ok:
		return fmt.Errorf("feed: the consumer reported on store %s, which feed does not send, in %q", rep.ID, line)
	case rep.Offset < l.offset[i]:
		return fmt.Errorf("feed: the consumer's offset for store %s went backwards (%d < %d) in %q", rep.ID, rep.Offset, l.offset[i], line)
	case rep.Taken < l.taken[i]:
		return fmt.Errorf("feed: the consumer's taken for store %s went backwards (%d < %d) in %q", rep.ID, rep.Taken, l.taken[i], line)
	case rep.Taken > l.delivered[i]:
		return fmt.Errorf("feed: the consumer reported taken=%d for store %s beyond the %d delivered, in %q", rep.Taken, rep.ID, l.delivered[i], line)
	}
	l.offset[i], l.taken[i], l.reportAt[i] = rep.Offset, rep.Taken, time.Now()
	l.notify()
	return nil
}

// trim shortens a bad line for a message.
func trim(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	if len(b) > 80 {
		return b[:80]
	}
	return b
}
