package push

import (
	"fmt"
	"io"
	"time"
)

// progress is the line a terminal shows: buckets pushed and their rate,
// samples pushed, and how much of the tape is still to read.
type progress struct {
	w       io.Writer
	start   time.Time
	last    time.Time
	buckets int
	samples int
	shown   bool
}

func newProgress(w io.Writer) *progress { return &progress{w: w, start: time.Now()} }

func (p *progress) pushed(buckets, samples int, behind int64) {
	p.buckets += buckets
	p.samples += samples
	p.show(behind)
}

// show redraws the line, at most once a second.
func (p *progress) show(behind int64) {
	now := time.Now()
	if now.Sub(p.last) < time.Second {
		return
	}
	p.last = now
	rate := float64(p.buckets) / max(now.Sub(p.start).Seconds(), 1e-3)
	fmt.Fprintf(p.w, "\rtgpush: %d buckets pushed (%.1f/s), %d samples; %d bytes of tape behind\x1b[K", p.buckets, rate, p.samples, behind)
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

func (p *progress) done() {
	if p.shown {
		fmt.Fprintln(p.w)
	}
}
