package feed

import (
	"os"
	"sync"
	"syscall"
)

// feed's main loop waits in ppoll(2) on raw non-blocking pipes instead of
// Go's poller and a goroutine per pipe: at --batch-size 512 batches go out
// in quick succession, and each hand-off between goroutines cost thread
// wake-ups, several context switches a batch (bench/README.md, "The figures behind the code's comments"). Waiting
// in the kernel on the one thread that also writes, a report wakes exactly
// the thread that sends the next batch, or no thread at all when it arrived
// while feed was reading the store.

// pollFd is struct pollfd of poll(2).
type pollFd struct {
	fd      int32
	events  int16
	revents int16
}

// The poll(2) event bits, which the syscall package does not name.
const (
	pollIn  = 0x1
	pollOut = 0x4
	pollErr = 0x8
)

// pipe makes a pipe whose end for feed is a raw non-blocking descriptor and
// whose end for the consumer is a blocking *os.File, as a child's stdin or
// stdout must be. feedReads says which end is feed's.
func pipe(feedReads bool) (int, *os.File, error) {
	var p [2]int
	if err := pipe2(p[:], syscall.O_CLOEXEC); err != nil {
		return -1, nil, err
	}
	ours, theirs := p[1], p[0]
	if feedReads {
		ours, theirs = p[0], p[1]
	}
	if err := syscall.SetNonblock(ours, true); err != nil {
		syscall.Close(p[0])
		syscall.Close(p[1])
		return -1, nil, err
	}
	return ours, os.NewFile(uintptr(theirs), "|consumer"), nil
}

// waker wakes the main loop out of ppoll from another goroutine (a signal,
// the consumer's exit): a self-pipe whose read end is in every wait. A wake
// after close does nothing (mu keeps it off a descriptor number reused since).
type waker struct {
	r, w   int
	mu     sync.Mutex
	closed bool
}

func newWaker() (*waker, error) {
	var p [2]int
	if err := pipe2(p[:], syscall.O_CLOEXEC|syscall.O_NONBLOCK); err != nil {
		return nil, err
	}
	return &waker{r: p[0], w: p[1]}, nil
}

// wake never blocks: a full pipe already wakes the loop.
func (k *waker) wake() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if !k.closed {
		syscall.Write(k.w, []byte{0})
	}
}

// clear empties the pipe once the loop is awake.
func (k *waker) clear() {
	var b [64]byte
	for {
		if n, _ := syscall.Read(k.r, b[:]); n <= 0 {
			return
		}
	}
}

func (k *waker) close() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.closed = true
	syscall.Close(k.r)
	syscall.Close(k.w)
}
