package tally

import (
	"bytes"
	"errors"
	"io"
	"os"
	"syscall"
	"unsafe"

	"github.com/timbertally/timbertally/lib/internal/spin"
)

// inputSize is tally's input buffer. Batches are bucketed straight out of
// it, piece by piece as they arrive: the kernel's copy from the pipe is the
// only copy. It is kept small because it is live heap: Go's collector lets
// garbage grow to the live heap's size before it runs, and a 9 MiB buffer
// let tally's RSS grow with the entries, in uncollected garbage (figures: bench/README.md, "The figures behind the code's comments").
const inputSize = 2 << 20

// readSize bounds one read: the bytes it brings are bucketed while they
// are still in the core's 1 MiB L2 cache (larger reads cost tally --try
// measurably (figures: bench/README.md, "The figures behind the code's comments")).
const readSize = 256 << 10

// aheadSize is how much input pull keeps buffered ahead of the bucketing:
// two and a half batches of 512 ~200-byte entries, so feed always has a
// batch in the pipe while tally buckets the ones before it.
const aheadSize = 256 << 10

// slideAt is how far the unread bytes may move into the buffer before a
// read moves them back to its start (at most aheadSize and a piece, a
// cheap copy): the bytes tally touches then stay within ~1 MiB of the
// buffer, for the caches and for RSS, instead of cycling through all of it.
const slideAt = 512 << 10

// errLineTooLong is a protocol line that does not fit the input buffer.
var errLineTooLong = errors.New("line longer than the input buffer")

// input is tally's buffer of feed's input: one buffer that batches are
// bucketed out of, and a read-ahead that does not block.
//
// Invariants: the unread input is buf[r:w], the first of it at input
// position base+r; err, once set, is what ended the input after buf[r:w].
// Slices returned by line and peek are valid until the next call of line,
// peek, pull or readFull, which may move the unread bytes to buf[0].
type input struct {
	src  source
	buf  []byte
	r, w int
	base int64
	err  error
	spin *spin.Spinner // nil: the source cannot say what it holds, so tally only blocks
	// waits, when set, is called before a read that may block: what it
	// owes feed (unreported taken) must go out before tally sleeps.
	waits func()
	// procs has tally run on one P while its reads wait for a few lines
	// at a time: the store's live edge (spin.Procs).
	procs spin.Procs
}

// source is feed's input: a reader that can also say how many bytes a read
// would return at once, without blocking (0 when it cannot tell), and read
// them.
type source interface {
	io.Reader
	waiting() int
	readReady(p []byte) (int, error) // after waiting said so: does not block
	tells() bool                     // whether waiting can say
}

// newInput buffers r. A pipe or file says what it holds ready (FIONREAD);
// another reader is read only when tally must wait anyway.
func newInput(r io.Reader) *input {
	src, ok := r.(source)
	if !ok {
		src = newFileSource(r)
	}
	in := &input{src: src, buf: make([]byte, inputSize)}
	if src.tells() {
		in.spin = spin.New()
	}
	return in
}

// fileSource asks the kernel how many bytes a file descriptor holds ready.
type fileSource struct {
	io.Reader
	fd int // -1: not a descriptor
}

// newFileSource takes the descriptor of r, when it is an *os.File, once:
// through RawConn.Control each call would allocate its closure, a few a
// batch, and that garbage grew tally's heap over a long run (figures: bench/README.md, "The figures behind the code's comments"). The file
// is tally's stdin, open for the whole run.
func newFileSource(r io.Reader) fileSource {
	s := fileSource{Reader: r, fd: -1}
	if f, ok := r.(*os.File); ok {
		if rc, err := f.SyscallConn(); err == nil { // not f.Fd(), which would make f blocking
			rc.Control(func(fd uintptr) { s.fd = int(fd) })
		}
	}
	return s
}

// waiting and readReady make raw system calls, which Go's scheduler does
// not see (spin.Waiting says why that matters). tally makes these calls
// between pieces of every batch, and polls with waiting while it waits
// for feed.
func (s fileSource) waiting() int {
	if s.fd < 0 {
		return 0
	}
	return spin.Waiting(s.fd)
}

func (s fileSource) readReady(p []byte) (int, error) {
	if s.fd < 0 || len(p) == 0 {
		return s.Read(p)
	}
	n, _, e := syscall.RawSyscall(syscall.SYS_READ, uintptr(s.fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	switch {
	case e != 0:
		return 0, e
	case n == 0:
		return 0, io.EOF
	}
	return int(n), nil
}

func (s fileSource) tells() bool { return s.fd >= 0 }

// size is the longest line the buffer holds.
func (in *input) size() int { return len(in.buf) }

// pos is the input position of the next unread byte.
func (in *input) pos() int64 { return in.base + int64(in.r) }

// buffered returns the unread bytes held, and the input position of the first.
func (in *input) buffered() ([]byte, int64) { return in.buf[in.r:in.w], in.pos() }

func (in *input) discard(n int) { in.r += n }

// fill reads once, at most want bytes (readSize when 0 or more): bytes the
// source said it holds (ready), or else what comes, waiting for it.
func (in *input) fill(want int, ready bool) {
	waited := !ready // for input, polling for it or asleep
	if !ready && in.waits != nil {
		in.waits()
	}
	if !ready && in.spin != nil {
		if n := in.await(); n > 0 {
			want, ready = n, true
		}
	}
	if want <= 0 || want > readSize {
		want = readSize
	}
	if in.r > 0 && (len(in.buf)-in.w < want || in.r >= slideAt) {
		in.base += int64(in.r)
		in.w = copy(in.buf, in.buf[in.r:in.w])
		in.r = 0
	}
	p := in.buf[in.w:min(len(in.buf), in.w+want)]
	var n int
	var err error
	if ready {
		n, err = in.src.readReady(p)
	} else {
		n, err = in.src.Read(p)
	}
	in.w += n
	if waited && n < pieceSize {
		in.procs.Idle()
	} else {
		in.procs.Work(n)
	}
	if err != nil {
		in.err = err
	}
}

// await polls the source for feed's next bytes, for as long as the spinner
// allows (package spin), and returns how many it holds, or 0: the read then
// blocks. feed writes the next batch as soon as it hears this one taken, so
// it is usually on its way.
func (in *input) await() int {
	var n int
	if in.spin.Await(0, func() spin.Look { n = in.src.waiting(); return spin.FoundIf(n > 0) }) {
		return n
	}
	return 0
}

// pull reads what the source holds ready, without blocking, while less
// than aheadSize is buffered or the buffer does not reach input position
// until yet (the end of the batch being bucketed), so that a batch larger
// than aheadSize that fits the buffer is wholly in memory, and reported
// taken, as soon as it has arrived: feed then sends the next while this one
// is bucketed, even when the batch fills the window alone.
func (in *input) pull(until int64) {
	if in.err != nil || (in.w-in.r >= aheadSize && in.base+int64(in.w) >= until) || in.w-in.r >= len(in.buf)-readSize {
		return
	}
	if n := in.src.waiting(); n > 0 {
		in.fill(n, true)
	}
}

// line returns the next line with its '\n'. Input that ends inside a line
// returns what there is with the error; a line that does not fit the buffer
// returns its start with errLineTooLong.
func (in *input) line() ([]byte, error) {
	for seen := 0; ; {
		if i := bytes.IndexByte(in.buf[in.r+seen:in.w], '\n'); i >= 0 {
			l := in.buf[in.r : in.r+seen+i+1]
			in.r += len(l)
			return l, nil
		}
		seen = in.w - in.r
		switch {
		case in.err != nil:
			l := in.buf[in.r:in.w]
			in.r = in.w
			return l, in.err
		case seen == len(in.buf):
			return in.buf[in.r:in.w], errLineTooLong
		}
		in.fill(0, false)
	}
}

// peek returns the next n bytes (n <= size) without reading past them, or
// fewer with the error that ended the input.
func (in *input) peek(n int) ([]byte, error) {
	for in.w-in.r < n {
		if in.err != nil {
			return in.buf[in.r:in.w], in.err
		}
		in.fill(0, false)
	}
	return in.buf[in.r : in.r+n], nil
}

// readFull reads len(p) bytes into p: what is buffered, then the rest
// straight from the source.
func (in *input) readFull(p []byte) error {
	n := copy(p, in.buf[in.r:in.w])
	in.r += n
	if n == len(p) {
		return nil
	}
	if in.err != nil {
		return in.err
	}
	if in.waits != nil {
		in.waits()
	}
	k, err := io.ReadFull(in.src, p[n:])
	in.base += int64(k)
	if err != nil {
		in.err = err
	}
	return err
}
