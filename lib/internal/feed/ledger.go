package feed

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"syscall"
	"time"

	"github.com/timbertally/timbertally/lib/protocol"
)

// maxReportLine bounds one report line; a longer one is garbage.
const maxReportLine = 64 << 10

// ledger is, per store, what was delivered and what the consumer last
// validly reported. It belongs to the main loop, which pumps the reports in
// whenever it looks, including while it waits to write a batch: a consumer
// writing reports can therefore never deadlock against feed writing to it.
type ledger struct {
	ids       map[string]int
	delivered []int64     // end of every byte sent (batches and skips): the bound of taken
	owed      []int64     // end of the last batch sent: the store is parked while taken < owed
	offset    []int64     // last valid report's durable offset
	taken     []int64     // last valid report's flow-control position
	reportAt  []time.Time // when the last valid report arrived
	window    []int64     // the window the last valid report asked for, at most the offer (consumer.go)
	err       error       // the first report that broke the protocol; the rest is discarded
	eof       bool        // the consumer's stdout is closed
	buf       []byte      // the start of a report line not yet whole
}

func newLedger(ids []string, start []int64) *ledger {
	n := len(ids)
	l := &ledger{ids: make(map[string]int, n), buf: make([]byte, 0, maxReportLine),
		delivered: make([]int64, n), owed: make([]int64, n), offset: make([]int64, n),
		taken: make([]int64, n), reportAt: make([]time.Time, n), window: make([]int64, n)}
	for i, id := range ids {
		l.ids[id] = i
		l.delivered[i], l.owed[i], l.offset[i], l.taken[i] = start[i], start[i], start[i], start[i]
	}
	return l
}

// add declares store id, joining mid-run at start, as the last index.
func (l *ledger) add(id string, start int64) {
	l.ids[id] = len(l.offset)
	for _, p := range []*[]int64{&l.delivered, &l.owed, &l.offset, &l.taken} {
		*p = append(*p, start)
	}
	l.reportAt = append(l.reportAt, time.Time{})
	l.window = append(l.window, 0) // none asked yet: the park
}

// deliver records, before the bytes are written, that store i is sent up to
// end; batch says whether they are entries the consumer must take.
func (l *ledger) deliver(i int, end int64, batch bool) {
	l.delivered[i] = end
	if batch {
		l.owed[i] = end
	}
}

// parked reports whether store i waits for the consumer to take its last batch.
func (l *ledger) parked(i int) bool { return l.taken[i] < l.owed[i] }

// full reports whether a batch of n more bytes of store i must wait: a
// batch is not taken yet, and the consumer's window (none: the park) has
// no room for n more bytes beyond taken. Everything taken, any batch goes.
func (l *ledger) full(i int, n int64) bool {
	return l.parked(i) && (l.window[i] == 0 || l.owed[i]-l.taken[i]+n > l.window[i])
}

// windowed reports whether the consumer asked for a window for store i in
// its last report.
func (l *ledger) windowed(i int) bool { return l.window[i] > 0 }

// heard reports whether the consumer has sent a valid report yet.
func (l *ledger) heard() bool {
	return slices.ContainsFunc(l.reportAt, func(t time.Time) bool { return !t.IsZero() })
}

// since returns when store i last got a valid report.
func (l *ledger) since(i int) time.Time { return l.reportAt[i] }

// status returns the first protocol error and whether stdout is closed.
func (l *ledger) status() (error, bool) { return l.err, l.eof }

// offsets copies the last valid durable offsets into dst.
func (l *ledger) offsets(dst []int64) []int64 { return append(dst[:0], l.offset...) }

// pump reads the reports the consumer has written so far from fd (a
// non-blocking pipe) without waiting for more, and accepts each whole line.
// After the first bad line it reads the rest and discards it, so that the
// consumer never blocks on its stdout.
func (l *ledger) pump(fd int) {
	for !l.eof {
		if len(l.buf) == cap(l.buf) {
			l.fail(fmt.Errorf("feed: the consumer wrote a report line of more than %d bytes (%q); it must end each report in \\n", maxReportLine, trim(l.buf)))
		}
		n, err := syscall.Read(fd, l.buf[len(l.buf):cap(l.buf)])
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			return
		case err != nil || n == 0:
			if len(l.buf) > 0 {
				l.fail(fmt.Errorf("feed: the consumer wrote a report line without its newline (%q, %d bytes); it must end each report in \\n", trim(l.buf), len(l.buf)))
			}
			l.eof = true
			return
		}
		l.buf = l.buf[:len(l.buf)+n]
		l.lines()
	}
}

// lines accepts the whole lines in buf and keeps the rest.
func (l *ledger) lines() {
	rest := l.buf
	for l.err == nil {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			break
		}
		if err := l.accept(rest[:i]); err != nil {
			l.fail(err)
		}
		rest = rest[i+1:]
	}
	if l.err != nil {
		rest = nil
	}
	l.buf = l.buf[:copy(l.buf, rest)]
}

// fail records the first protocol error; what follows it is discarded.
func (l *ledger) fail(err error) {
	if l.err == nil {
		l.err = err
	}
	l.buf = l.buf[:0]
}

// accept validates one report against what was delivered and records it.
func (l *ledger) accept(line []byte) error {
	rep, err := protocol.ParseReport(line)
	if err != nil {
		return fmt.Errorf("feed: the consumer broke the protocol: %w", err)
	}
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
	l.window[i] = min(rep.Window, window)
	return nil
}

// errStdoutClosed is a consumer that closed its stdout while feed still sends.
var errStdoutClosed = errors.New("feed: the consumer closed its stdout before its input ended")

// trim shortens a bad line for a message.
func trim(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	if len(b) > 80 {
		return b[:80]
	}
	return b
}
