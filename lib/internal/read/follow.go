package read

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/timbertally/timbertally/lib/internal/tallystore"

	"github.com/timbertally/timbertally/lib/internal/tape"
)

// followPoll is how often a followed tape is looked at for growth (a
// variable for tests).
var followPoll = 250 * time.Millisecond

// followIdle is called each time a follower has read the tape to its end
// and waits for more: what the tests wait for before they assert that
// something appended before it was not printed.
var followIdle = func() {}

// followTape prints the tape of the tally store (or tape file) name as tally
// appends to it, a sealed group at a time, until ctx is done. It reads the
// tape from its start, a group boundary, so that no group is printed
// half; --from/--to select what is printed.
func (s *settings) followTape(ctx context.Context, w *bufio.Writer, name string, stderr io.Writer) error {
	path := name
	src := &source{name: name, tape: name}
	if fi, err := os.Stat(name); err == nil && fi.IsDir() {
		path = tallystore.At(name).Tape()
		if err := src.readDocument(tallystore.At(name).Document()); err != nil {
			return err
		}
		s.opt.Metrics = withHistogramSeries(s.opt.Metrics, src.kinds)
	}
	// As for a whole tape: the document's metrics and kinds (--metric is
	// checked, --quantile finds the histograms).
	if err := s.knownMetrics([]*source{src}); err != nil {
		return err
	}
	kinds, err := mergeKinds([]*source{src}, s.kindArgs)
	if err != nil {
		return err
	}
	s.view.kinds = kinds
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) && path != name {
		return fmt.Errorf("tgread: %s holds no tape; is it a tally store? (tally --provision makes one)", name)
	}
	if err != nil {
		return fmt.Errorf("tgread: cannot read the tape: %v; name a tally store or a tape file", err)
	}
	defer f.Close()
	fr := &followReader{ctx: ctx, f: f, path: path, poll: s.poll}
	err = s.stream(w, fr, path, true, stderr)
	if fr.err != nil {
		return fr.err
	}
	return err
}

// followReader reads a file as it grows, as tail -F does: at its end it
// waits for more (never returning io.EOF while the file may grow), until
// ctx is done (io.EOF then) or the path names another file (the tape was
// replaced: an error).
type followReader struct {
	ctx  context.Context
	f    *os.File
	path string
	poll time.Duration
	err  error // why it stopped, when not ctx
}

func (r *followReader) Read(p []byte) (int, error) {
	for {
		n, err := r.f.Read(p)
		if n > 0 || err != nil && err != io.EOF {
			return n, err
		}
		moved, err := tape.Moved(r.f, r.path)
		if err != nil {
			return 0, err
		}
		if moved {
			r.err = fmt.Errorf("tgread: %s was replaced (tally --provision --replace keeps the old one as tape.replaced.*); everything it sealed was printed; run tgread --follow again to follow the new tape", r.path)
			return 0, io.EOF
		}
		followIdle()
		select {
		case <-r.ctx.Done():
			return 0, io.EOF
		case <-time.After(r.poll):
		}
	}
}
