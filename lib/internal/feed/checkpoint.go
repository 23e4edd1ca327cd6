package feed

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/timbertally/timbertally/lib/internal/cursor"
	"github.com/timbertally/timbertally/lib/internal/lockfile"
)

// saveEvery rate-limits cursor writes to 4 a second.
const saveEvery = 250 * time.Millisecond

// checkpoint is the cursor file's side of a run: its lock, the marks it
// was loaded with and is saved from, the offsets last saved, and the saver
// that writes them off the main loop. It only ever saves offsets of valid
// reports (the ledger's), never taken.
//
// A run that its consumer refuses changes no file: under --reset the
// cursor is first written once the consumer has reported (it accepted
// the store lines), not at the start, where a refused --reset rewrote a
// live cursor to offset 0.
type checkpoint struct {
	path    string       // "": nothing is read or persisted
	lock    *os.File     // held for the whole run: one feed per cursor
	held    bool         // the start marks wait for the consumer's first report
	cur     cursor.Marks // per store: the offset and the generation holding it
	start   []int64      // offsets the run began at
	saved   []int64      // offsets in the cursor file
	offs    []int64      // scratch
	savedAt time.Time
	saver   *saver
	streams []*stream
	led     *ledger
}

// load reads the cursor file. With reset a cursor that does not parse is
// replaced, not an error (it must not stand in the way of re-deriving):
// replaced says why.
func (c *checkpoint) load(reset bool) (replaced, err error) {
	c.cur = cursor.Marks{}
	if c.path == "" {
		return nil, nil
	}
	c.held = reset
	c.path = resolve(c.path)
	if c.lock, err = lockfile.Take(c.path+".lock", "feed"); err != nil {
		var h *lockfile.HeldError
		if errors.As(err, &h) {
			return nil, fmt.Errorf("feed: the cursor %s is in use by %s (its lock %s): one feed per cursor, or the two overwrite each other's positions; stop that one first, or give this feed a cursor of its own (--cursor NEWFILE)", c.path, h.Holder, h.Path)
		}
		return nil, fmt.Errorf("feed: cursor: cannot save %s: its lock: %w", c.path, err)
	}
	m, err := cursor.LoadMarks(c.path)
	switch {
	case err != nil && reset:
		return err, nil
	case err != nil:
		return nil, fmt.Errorf("feed: %w", err)
	}
	c.cur = m
	return nil, nil
}

// resolve returns the file a cursor path names through its symbolic
// links (the link's target when it dangles: a first run), so that a
// link to a cursor takes the cursor's one lock, and a save replaces the
// cursor, not the link.
func resolve(path string) string {
	if p, err := filepath.EvalSymlinks(path); err == nil {
		return p
	}
	t, err := os.Readlink(path)
	if err != nil {
		return path
	}
	if !filepath.IsAbs(t) {
		t = filepath.Join(filepath.Dir(path), t)
	}
	return t
}

// release lets another feed take the cursor.
func (c *checkpoint) release() {
	if c.lock != nil {
		c.lock.Close()
	}
}

// bind ties the checkpoint to the run's streams and ledger, every store
// saved at start, and starts the saver.
func (c *checkpoint) bind(streams []*stream, led *ledger, start []int64) {
	c.streams, c.led = streams, led
	c.saver = newSaver(c.path)
	c.saved = append([]int64(nil), start...)
	c.start = append([]int64(nil), start...)
}

// moved reports whether any durable offset moved past where the run began.
func (c *checkpoint) moved() bool {
	return !slices.Equal(c.led.offsets(nil), c.start)
}

// join takes the run's streams, one more joined mid-run, and has its mark
// saved at the next save, so that a restart resumes it too.
func (c *checkpoint) join(streams []*stream) {
	c.streams = streams
	c.saved = append(c.saved, -1)
}

// unsaved reports whether a report moved an offset past the cursor file,
// or the signature of the generation holding an offset grew past the one
// in the cursor file (its first bytes were read since): a cursor whose
// signature covers fewer bytes than were read cannot tell the content
// feed read from what a copytruncate later writes into the same file.
func (c *checkpoint) unsaved() bool {
	if c.path == "" {
		return false
	}
	if c.held {
		// Written once the consumer has accepted the run by a report.
		return c.led.heard()
	}
	c.offs = c.led.offsets(c.offs)
	for i, o := range c.offs {
		if o != c.saved[i] {
			return true
		}
		s := c.streams[i]
		if g, m := s.r.GenAt(o), c.cur[s.ID].Gen; g.SigLen != m.SigLen || g.Sig != m.Sig {
			return true
		}
	}
	return false
}

// save persists the last valid offsets when they moved.
func (c *checkpoint) save(now time.Time) error {
	if !c.unsaved() {
		return nil
	}
	c.offs = c.led.offsets(c.offs)
	c.mark()
	c.held = false
	if err := c.saver.submit(c.cur); err != nil {
		return err
	}
	copy(c.saved, c.offs)
	c.savedAt = now
	return nil
}

// due is when the next save is due, if one is.
func (c *checkpoint) due() (time.Time, bool) {
	return c.savedAt.Add(saveEvery), c.unsaved()
}

// failed returns the error of a background write that failed.
func (c *checkpoint) failed() error { return c.saver.failed() }

// saveNow writes the cursor at the end of the run, once the background
// saver has stopped, so that nothing can overwrite it.
func (c *checkpoint) saveNow() error {
	err := c.saver.stop()
	if !c.unsaved() {
		return err
	}
	c.offs = c.led.offsets(c.offs)
	c.mark()
	if serr := c.cur.Save(c.path); serr != nil && err == nil {
		err = fmt.Errorf("feed: %w", serr)
	}
	return err
}

// saveStart writes the cursor before anything is sent, so that it names
// every store's file from the first moment: a rotation before the first
// durable offset is then still recognised on a restart, and the old file
// read to its end (without it, a restart would start at the new file's 0).
func (c *checkpoint) saveStart() error {
	if c.path == "" || c.held {
		return nil
	}
	c.offs = c.led.offsets(c.offs)
	c.mark()
	if err := c.cur.Save(c.path); err != nil {
		return fmt.Errorf("feed: %w", err)
	}
	return nil
}

// mark sets every store's cursor mark to its last reported offset, with
// the seam of the bytes before it: one pread of 256 bytes for each store
// whose offset moved since the last save (at most 4 saves a second), none
// per batch, none for a store at rest.
func (c *checkpoint) mark() {
	for i, s := range c.streams {
		off, g := c.offs[i], s.r.GenAt(c.offs[i])
		old, ok := c.cur[s.ID]
		sm := old.Seam
		if !ok || old.Offset != off || old.Gen != g || sm.Len == 0 {
			sm, _ = s.r.SeamAt(off)
		}
		c.cur[s.ID] = cursor.Mark{Offset: off, Gen: g, Seam: sm, Gens: s.r.Recorded()}
	}
}
