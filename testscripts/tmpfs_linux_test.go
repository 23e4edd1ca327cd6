package testscripts

import (
	"fmt"
	"syscall"
	"testing"
)

// mountTmpfs mounts a tmpfs of size bytes at a new directory, or skips the
// test where mounting is not allowed (not root, a container without it).
func mountTmpfs(t *testing.T, size int) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, fmt.Sprintf("size=%d", size)); err != nil {
		t.Skipf("cannot mount a tmpfs to fill (%v): disk-full test needs root", err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, 0) })
	return dir
}

// grow gives the tmpfs at dir size bytes.
func grow(t *testing.T, dir string, size int) {
	t.Helper()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_REMOUNT, fmt.Sprintf("size=%d", size)); err != nil {
		t.Fatal(err)
	}
}
