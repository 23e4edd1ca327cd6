package feed

import (
	"fmt"
	"io"
	"time"
)

// drawEvery limits the progress line to 4 refreshes a second.
const drawEvery = 250 * time.Millisecond

// progress is the one-line display on a terminal; off, every method is a
// no-op, so nothing of it reaches a stderr that is not a terminal.
type progress struct {
	w       io.Writer
	on      bool
	shown   bool
	drawnAt time.Time
	entries int64 // sent since drawnAt
}

func newProgress(w io.Writer, on bool) *progress {
	return &progress{w: w, on: on, drawnAt: time.Now()}
}

// count adds n entries sent.
func (p *progress) count(n int) { p.entries += int64(n) }

// due says when the line is next redrawn.
func (p *progress) due() (time.Time, bool) { return p.drawnAt.Add(drawEvery), p.on }

// draw redraws the line when due, with the rate since the last draw.
func (p *progress) draw(now time.Time, status func() string) {
	if !p.on || now.Sub(p.drawnAt) < drawEvery {
		return
	}
	rate := float64(p.entries) / now.Sub(p.drawnAt).Seconds()
	fmt.Fprintf(p.w, "\r\033[Kfeed: %.0f entries/s%s", rate, status())
	p.shown, p.drawnAt, p.entries = true, now, 0
}

// clear erases the line, before a message and at exit.
func (p *progress) clear() {
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
		p.shown = false
	}
}

// bytesText renders a byte count for humans: 1536 → "1.5 KiB".
func bytesText(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
