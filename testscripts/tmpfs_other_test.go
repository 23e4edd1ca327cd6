//go:build !linux

package testscripts

import "testing"

// mountTmpfs skips: the disk-full tests fill a tmpfs of a given size,
// which only Linux's mount(2) makes.
func mountTmpfs(t *testing.T, size int) string {
	t.Helper()
	t.Skip("the disk-full tests mount a tmpfs of a given size, which is Linux's")
	return ""
}

// grow is never reached: mountTmpfs skipped.
func grow(t *testing.T, dir string, size int) { t.Helper(); t.Fatal("no tmpfs to grow") }
