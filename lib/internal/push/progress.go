package push

import (
	"fmt"
	"io"
	"time"
)

// progress is the line a terminal shows: buckets pushed and their rate,
// samples pushed, and about how many are still to push (the tape's bytes
// behind, at the bytes a sample has taken so far).
type progress struct {
	w       io.Writer
	start   time.Time
	last    time.Time
	buckets int
	samples int
	read    int64 // tape bytes the pushed buckets took
	behind  int64 // the tape bytes behind when last told
	shown   bool
}

func newProgress(w io.Writer) *progress { return &progress{w: w, start: time.Now()} }

// pushed counts buckets and samples pushed from bytes of tape, and shows
// the line with behind bytes of tape still to read.
func (p *progress) pushed(buckets, samples int, bytes, behind int64) {
	p.buckets += buckets
	p.samples += samples
	p.read += bytes
	p.show(behind)
}

// show redraws the line, at most once a second.
func (p *progress) show(behind int64) {
	now := time.Now()
	p.behind = behind
	if now.Sub(p.last) < time.Second {
		return
	}
	p.last = now
	rate := float64(p.buckets) / max(now.Sub(p.start).Seconds(), 1e-3)
	todo := fmt.Sprintf("%d bytes of tape behind", behind)
	if p.samples > 0 && p.read > 0 {
		todo = fmt.Sprintf("~%d samples behind", int64(float64(behind)*float64(p.samples)/float64(p.read)))
	}
	fmt.Fprintf(p.w, "\rtgpush: %d buckets pushed (%.1f/s), %d samples; %s\x1b[K", p.buckets, rate, p.samples, todo)
	p.shown = true
}

// clear takes the line away before a note.
func (p *progress) clear() {
	if p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.shown = false
		p.last = time.Time{}
	}
}

// done ends the line, redrawn with the final counts first (the last
// redraw may be up to a second old).
func (p *progress) done() {
	if p.shown {
		p.last = time.Time{}
		p.show(p.behind)
		fmt.Fprintln(p.w)
	}
}
