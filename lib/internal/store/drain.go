package store

import (
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// drainer is a Reader's state around a rename rotation: the old
// generation is read on, after the path names a new file, until it has
// been quiet for drain; and, once the Reader moved on, the old file is
// kept open to see a writer later than that (Late).
//
// Why by quiet and not by a signal: nothing tells feed when a server has
// reopened its log (nginx on USR1, Apache's old children as their requests
// end); the old generation's end is known only once its writer is done,
// and the next generation starts there. A live run that waits for it
// gives every byte the position a re-derivation from the history gives it.
type drainer struct {
	drain     time.Duration // Options.Drain; 0: no drain
	draining  bool          // at the renamed generation's end, the new file waiting
	drainGone bool          // the renamed generation has no name left (compressed, removed)
	grewAt    time.Time     // when the draining generation last gave bytes
	successor *os.File      // the file at the path when the drain began: the next generation
	prev      *os.File      // the generation before the one being read, renamed away
	prevGen   Gen           // its generation
	prevEnd   int64         // its size when the Reader moved past it (plus what Late reported)
	lateAt    time.Time     // when prev was last looked at
	late      []Late        // what Late has not handed out yet
}

// Late is a writer later than the drain: bytes appended to a generation
// after the Reader moved past it. They lie at no position of the store's
// axis (the next generation begins where this one was when it was left)
// and are counted only by a re-derivation that names the generation.
type Late struct {
	Path  string // the generation's name now ("" when it has none: compressed or removed)
	Gen   Gen    // the generation
	From  int64  // where the late bytes begin in the file
	Bytes int64  // how many
}

// lateEvery is how often at most the generation left behind is looked at.
const lateEvery = time.Second

// drainOn says whether the renamed generation, whose info is fi, is still
// to be read on: it has not yet been quiet for the drain.
func (d *drainer) drainOn(fi os.FileInfo) bool {
	if d.drain <= 0 {
		return false
	}
	since := fi.ModTime()
	if d.grewAt.After(since) {
		since = d.grewAt
	}
	d.draining = time.Since(since) < d.drain
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		d.drainGone = st.Nlink == 0
	}
	return d.draining
}

// Draining says whether the Reader is at the end of a generation renamed
// away, reading on until it has been quiet for Options.Drain before it
// takes the file at the path. Gone says the generation has no name left
// (logrotate's compress without delaycompress): it is read through the
// file held open, each byte once.
func (r *Reader) Draining() (draining, gone bool) { return r.draining, r.drainGone }

// DrainingName returns the draining generation's name now ("" when it has
// none).
func (r *Reader) DrainingName() string {
	if r.f == nil {
		return ""
	}
	return nameOf(filepath.Dir(r.path), r.f)
}

// keepPrev keeps f, generation g left at position end, open to see a
// writer later than the drain.
func (r *Reader) keepPrev(f *os.File, g Gen, end int64) {
	r.dropPrev()
	r.prev, r.prevGen, r.prevEnd, r.lateAt = f, g, end-g.Base, time.Now()
	r.draining, r.drainGone, r.grewAt = false, false, time.Time{}
}

// dropPrev closes the generation left behind, and the next one while
// it is waited for (Close).
func (r *Reader) dropPrev() {
	if r.successor != nil {
		r.successor.Close()
		r.successor = nil
	}
	if r.prev != nil {
		r.prev.Close()
		r.prev = nil
	}
}

// lookLate looks at the generation left behind, once a lateEvery at
// most, and records what was appended to it since.
func (r *Reader) lookLate() {
	if r.prev == nil || time.Since(r.lateAt) < lateEvery {
		return
	}
	r.lateAt = time.Now()
	var st syscall.Stat_t
	if syscall.Fstat(int(r.prev.Fd()), &st) != nil || st.Size <= r.prevEnd {
		return
	}
	r.late = append(r.late, Late{Path: nameOf(filepath.Dir(r.path), r.prev), Gen: r.prevGen, From: r.prevEnd, Bytes: st.Size - r.prevEnd})
	r.prevEnd = st.Size
}

// TakeLate hands out what a writer later than the drain appended to the
// generation left behind since the last call, once each.
func (r *Reader) TakeLate() []Late {
	l := r.late
	r.late = nil
	return l
}

// nameOf returns the path in dir of open file f ("" when it has none there).
func nameOf(dir string, f *os.File) string {
	fi, err := f.Stat()
	if err != nil {
		return ""
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Nlink == 0 {
		return ""
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		if efi, err := e.Info(); err == nil && os.SameFile(efi, fi) {
			return filepath.Join(dir, e.Name())
		}
	}
	return ""
}
