package serve

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/timbertally/timbertally/lib/internal/tallystore"

	"github.com/timbertally/timbertally/lib/internal/cumulative"
	"github.com/timbertally/timbertally/lib/internal/doc"
	"github.com/timbertally/timbertally/lib/internal/label"
	"github.com/timbertally/timbertally/lib/internal/tape"
)

// store is one tally store served: its tape followed into running totals.
type store struct {
	dir    string
	name   string // the tally_store label's value: the directory's name
	path   string // its tape
	kinds  map[string]doc.MetricKind
	labels []string // the label names its document's metrics have (by=)
	f      *os.File
	later  tape.LaterKinds
	notes  io.Writer

	mu     sync.Mutex // guards totals and off (written by the follower only)
	totals *cumulative.Totals
	off    int64 // the end of the last whole line read
}

// openStore reads a tally store's document and opens its tape, at its
// start.
func openStore(dir string, notes io.Writer) (*store, error) {
	// The name is a label value: shown as UTF-8 text, as a tape's are.
	s := &store{dir: dir, name: label.Shown(filepath.Base(filepath.Clean(dir))), path: tallystore.At(dir).Tape(), notes: notes}
	text, err := os.ReadFile(tallystore.At(dir).Document())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("tgserve: %s is not a tally store (it has no document); name the directory tally --provision made, or make one: tally --provision --doc DOC %s", dir, dir)
	}
	if err != nil {
		return nil, fmt.Errorf("tgserve: cannot read the document of %s: %v", dir, err)
	}
	d, err := doc.Parse(tallystore.At(dir).Document(), text)
	if err != nil {
		return nil, fmt.Errorf("tgserve: %v; the tally store's document is damaged", err)
	}
	s.kinds = cumulative.KindsOf(d)
	for _, m := range d.Metrics {
		for _, b := range m.By {
			if !slices.Contains(s.labels, b) {
				s.labels = append(s.labels, b)
			}
		}
	}
	if s.f, err = os.Open(s.path); err != nil {
		return nil, fmt.Errorf("tgserve: cannot read the tape of %s: %v; is it a tally store? (tally --provision makes one)", dir, err)
	}
	s.totals = cumulative.New(s.kinds)
	return s, nil
}

// catchUp reads every whole line appended to the tape since the last
// call into the totals, a record at a time: a scrape in between sees the
// totals of whole sealed groups only (Totals folds at a seal). A torn
// last line (a line being written) waits for the next call.
func (s *store) catchUp() error {
	moved, err := tape.Moved(s.f, s.path)
	if err != nil {
		return fmt.Errorf("tgserve: %s: %v", s.path, err)
	}
	if moved {
		return fmt.Errorf("tgserve: %s was replaced (tally --provision --replace keeps the old one as tape.replaced.*); run tgserve again to serve the new tape: its counters start again from it, which Prometheus takes as one counter reset", s.path)
	}
	fi, err := s.f.Stat()
	if err != nil {
		return fmt.Errorf("tgserve: %s: %v", s.path, err)
	}
	if fi.Size() < s.off {
		return fmt.Errorf("tgserve: %s is shorter than what was read of it (%d bytes, was %d): it was cut, which tally never does; run tgserve again once the tape is whole", s.path, fi.Size(), s.off)
	}
	if fi.Size() == s.off {
		return nil
	}
	r := tape.NewReader(io.NewSectionReader(s.f, s.off, fi.Size()-s.off))
	for {
		line, err := r.ReadLine()
		if err == io.EOF || errors.Is(err, tape.ErrTorn) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("tgserve: reading %s: %v", s.path, err)
		}
		if err := s.add(line, s.off); err != nil {
			return err
		}
	}
}

// add takes one whole line, at byte at of the tape, and moves the offset
// past it.
func (s *store) add(line []byte, at int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.off = at + int64(len(line)) + 1
	rec, err := tape.ParseOrLater(line)
	if err != nil {
		return fmt.Errorf("tgserve: %s, the line at byte %d: %v; it is not a record, so the tape was damaged or not written by tally: tgread and tgcheck refuse it too (tgcheck --scan %s names it); the counters stay at the buckets before it; re-make the tape from its logs, %s, then run tgserve again",
			s.path, at, err, s.dir, tallystore.RemakeOf(s.dir))
	}
	if rec.Kind == tape.Later {
		if k, ok := s.later.Name(tape.LaterWord(line), int(at)); ok {
			fmt.Fprintf(s.notes, "tgserve: note: %s at byte %d has a %q record, a kind a later version writes; passed over, it carries no count%s\n", s.path, at, k.Word, k.Beyond())
		}
		return nil
	}
	if err := s.totals.Add(&rec); err != nil {
		return fmt.Errorf("tgserve: %s, the line at byte %d: %v", s.path, at, err)
	}
	return nil
}
