package read

import (
	"os"
	"syscall"
	"unsafe"
)

// terminalWidth asks the terminal on stdout, or else on stderr, for its
// width in columns. A shell sets COLUMNS for itself but seldom exports it,
// so tgread --plot would otherwise draw 80 columns in a wider terminal.
// A variable, so that tests can stand in for a terminal.
var terminalWidth = func() (int, bool) {
	for _, f := range []*os.File{os.Stdout, os.Stderr} {
		var ws struct{ row, col, x, y uint16 }
		_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), syscall.TIOCGWINSZ, uintptr(unsafe.Pointer(&ws)))
		if errno == 0 && ws.col > 0 {
			return int(ws.col), true
		}
	}
	return 0, false
}
