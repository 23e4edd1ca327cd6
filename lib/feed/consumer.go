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

// exitGrace is how long a consumer may take to exit once its stdin is closed
// before it is killed.
const exitGrace = 10 * time.Second

// consumer is the process feed hands batches to.
type consumer struct {
	cmd    *exec.Cmd
	in     *os.File // its stdin; feed writes here
	out    *os.File // its stdout; the ledger reads reports here
	exited chan struct{}
	err    error // from Wait, once exited is closed
}

// startConsumer starts argv directly (no shell), its stderr passed through.
func startConsumer(argv []string) (*consumer, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("feed: cannot make the consumer's pipes: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("feed: cannot make the consumer's pipes: %w", err)
	}
	growPipe(inW)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, os.Stderr
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("feed: cannot start the consumer %s: %w", argv[0], err)
	}
	c := &consumer{cmd: cmd, in: inW, out: outR, exited: make(chan struct{})}
	go func() {
		c.err = cmd.Wait()
		close(c.exited)
	}()
	return c, nil
}

// growPipe enlarges the pipe behind f; failure (an old kernel, a lower
// /proc/sys/fs/pipe-max-size) only costs speed, so it is ignored. It goes
// through SyscallConn because File.Fd would put the pipe in blocking mode
// and lose write deadlines.
func growPipe(f *os.File) {
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	rc.Control(func(fd uintptr) {
		syscall.Syscall(syscall.SYS_FCNTL, fd, fSetPipeSz, pipeSize)
	})
}

// stop closes the consumer's stdin and waits for it to exit, killing it
// after exitGrace. It returns a message naming a non-zero exit status or a
// death by signal, or nil when it exited 0.
func (c *consumer) stop() error {
	c.in.Close()
	select {
	case <-c.exited:
	case <-time.After(exitGrace):
		c.cmd.Process.Kill()
		<-c.exited
		return fmt.Errorf("feed: the consumer did not exit within %v of its input closing; it was killed", exitGrace)
	}
	var ee *exec.ExitError
	if errors.As(c.err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return fmt.Errorf("feed: the consumer %s died of signal %v", c.cmd.Args[0], ws.Signal())
		}
		return fmt.Errorf("feed: the consumer %s exited with status %d", c.cmd.Args[0], ee.ExitCode())
	}
	if c.err != nil {
		return fmt.Errorf("feed: waiting for the consumer: %w", c.err)
	}
	return nil
}
