package feed

import (
	"fmt"
	"maps"
	"sync"

	"github.com/timbertally/timbertally/lib/internal/cursor"
)

// saver writes the cursor file off the main loop: a write is a temporary
// file, two fsyncs and a rename (milliseconds on a real disk), during which
// feed would otherwise send nothing and the pipeline would stall. Saves
// coalesce: the latest marks win, and a write never runs concurrently with
// another.
type saver struct {
	path  string
	mu    sync.Mutex
	marks cursor.Marks // the latest marks not yet written, nil when none
	err   error
	wake  chan struct{}
	done  chan struct{}
}

func newSaver(path string) *saver {
	s := &saver{path: path, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go s.loop()
	return s
}

// submit queues a copy of marks for writing and returns the error of an
// earlier write, if one failed.
func (s *saver) submit(marks cursor.Marks) error {
	s.mu.Lock()
	s.marks = maps.Clone(marks)
	err := s.err
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
	return err
}

// failed returns the error of a write that failed.
func (s *saver) failed() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

func (s *saver) loop() {
	defer close(s.done)
	for range s.wake {
		s.mu.Lock()
		m := s.marks
		s.marks = nil
		s.mu.Unlock()
		if m == nil {
			continue
		}
		if err := m.Save(s.path); err != nil {
			s.mu.Lock()
			s.err = fmt.Errorf("feed: %w", err)
			s.mu.Unlock()
			return
		}
	}
}

// stop waits for the write in progress, if any, and returns the first
// error. The caller then writes the final marks itself.
func (s *saver) stop() error {
	close(s.wake)
	<-s.done
	return s.failed()
}
