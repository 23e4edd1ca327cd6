// Package testkit holds what the packages' tests share: a buffer a
// process or goroutine writes while a test reads it, and the one way a test
// waits for a condition. Only tests import it.
//
// Invariants:
//   - Every wait has a deadline, generous (a minute) because the machine
//     may be loaded, and fails naming what it waited for; nothing here
//     sleeps a fixed time and then asserts an absence (on a loaded machine
//     the absence proves nothing): wait for the event that makes the
//     absence meaningful, then look.
//   - A SyncBuffer's reads and writes are safe from any goroutine.
package testkit

import (
	"bytes"
	"sync"
	"testing"
	"time"
)

// Deadline is how long Poll waits before it fails the test.
const Deadline = time.Minute

// Every is how often Poll asks.
const Every = time.Millisecond

// Poll asks cond every millisecond until it holds, and fails the test,
// naming what, when Deadline passed first.
func Poll(t testing.TB, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(Deadline); !cond(); time.Sleep(Every) {
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s", Deadline, what)
		}
	}
}

// SyncBuffer is a bytes.Buffer that one goroutine may write (a command's
// output) while the test reads it.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String is what was written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
