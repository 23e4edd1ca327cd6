package feed

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// pipeSize is what the consumer's stdin pipe is enlarged to (F_SETPIPE_SZ),
// so that a typical batch (512 entries of ~200 bytes = 100 KiB) is written
// whole without feed blocking in the middle of it.
const pipeSize = 1 << 20

// fSetPipeSz is Linux's F_SETPIPE_SZ, which the syscall package does not name.
const fSetPipeSz = 1031

// window is what feed offers a consumer to keep in flight per store (its
// hello's window=): three quarters of pipeSize, so that the batches in
// flight, their headers and their partly filled pages fit the pipe and
// feed's writes do not wait for room. It is a constant, so that the hello
// is the same line on every machine; where the pipe stays smaller (a lower
// /proc/sys/fs/pipe-max-size) writes wait for room, which costs only speed.
const window = pipeSize / 4 * 3

// exitGrace is how long a consumer may take to exit once its stdin is closed
// before it is killed.
const exitGrace = 10 * time.Second

// consumer is the process feed hands batches to. feed's ends of its pipes
// are raw non-blocking descriptors that the main loop waits on in ppoll.
type consumer struct {
	cmd    *exec.Cmd
	in     int // its stdin's write end; -1 once closed
	rep    int // its stdout's read end, where its reports arrive
	exited chan struct{}
	err    error // from Wait, once exited is closed
	awaits bool  // awaitExit has started
}

// startConsumer starts argv directly (no shell), its stderr passed through.
func startConsumer(argv []string) (*consumer, error) {
	in, inR, err := pipe(false)
	if err != nil {
		return nil, fmt.Errorf("feed: cannot make the consumer's pipes: %w", err)
	}
	rep, repW, err := pipe(true)
	if err != nil {
		syscall.Close(in)
		inR.Close()
		return nil, fmt.Errorf("feed: cannot make the consumer's pipes: %w", err)
	}
	// Failure (an old kernel, a lower /proc/sys/fs/pipe-max-size) only costs
	// speed, so it is ignored.
	syscall.Syscall(syscall.SYS_FCNTL, uintptr(in), fSetPipeSz, pipeSize)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, repW, os.Stderr
	err = cmd.Start()
	inR.Close()
	repW.Close()
	if err != nil {
		syscall.Close(in)
		syscall.Close(rep)
		return nil, fmt.Errorf("feed: cannot start the consumer %s: %w", argv[0], err)
	}
	return &consumer{cmd: cmd, in: in, rep: rep, exited: make(chan struct{})}, nil
}

// awaitExit waits for the consumer's exit in the background, then wakes wk;
// a second call does nothing. It runs only once the input is closed, by feed
// or by the consumer's end (no reader is left): a goroutine blocked in
// wait(2) for the whole run would hold one of Go's two Ps in a system call,
// and Go's monitor thread would then take the other P from the main loop
// each time it waits in ppoll (>20 µs), waking threads every ~20 µs for nothing.
func (c *consumer) awaitExit(wk *waker) {
	if c.awaits {
		return
	}
	c.awaits = true
	go func() {
		c.err = c.cmd.Wait()
		close(c.exited)
		wk.wake()
	}()
}

// abandon kills a consumer that was sent nothing and waits for it: feed
// cannot run (its cursor cannot be written), and a consumer told nothing
// would only report that its input was empty.
func (c *consumer) abandon() {
	c.cmd.Process.Kill()
	c.cmd.Wait()
	c.closeInput()
}

// closeInput closes the consumer's stdin: EOF, after the end lines or not.
func (c *consumer) closeInput() {
	if c.in >= 0 {
		syscall.Close(c.in)
		c.in = -1
	}
}

// stoppedBy reports whether the consumer was ended by sig.
func (c *consumer) stoppedBy(sig syscall.Signal) bool {
	var ee *exec.ExitError
	if !errors.As(c.err, &ee) {
		return false
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == sig
}

// hasExited reports whether the consumer's process is gone.
func (c *consumer) hasExited() bool {
	select {
	case <-c.exited:
		return true
	default:
		return false
	}
}

// exitErr returns a message naming a non-zero exit status or a death by
// signal, or nil when the consumer exited 0. SIGINT and SIGTERM stop a
// consumer, which is not a crash.
func (c *consumer) exitErr() error {
	var ee *exec.ExitError
	if errors.As(c.err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			if sig := ws.Signal(); sig == syscall.SIGINT || sig == syscall.SIGTERM {
				return fmt.Errorf("feed: the consumer %s was stopped by %s", c.cmd.Args[0], signalName(sig))
			}
			return fmt.Errorf("feed: the consumer %s died of signal %v", c.cmd.Args[0], ws.Signal())
		}
		return fmt.Errorf("feed: the consumer %s exited with status %d", c.cmd.Args[0], ee.ExitCode())
	}
	if c.err != nil {
		return fmt.Errorf("feed: waiting for the consumer: %w", c.err)
	}
	return nil
}
