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
	bytes   int64 // sent since drawnAt
}

func newProgress(w io.Writer, on bool) *progress {
	return &progress{w: w, on: on, drawnAt: time.Now()}
}

// count adds n entries of size bytes sent.
func (p *progress) count(n int, size int64) {
	p.entries += int64(n)
	p.bytes += size
}

// due says when the line is next redrawn.
func (p *progress) due() (time.Time, bool) { return p.drawnAt.Add(drawEvery), p.on }

// draw redraws the line when due: the rate since the last draw, the time to
// the live edge at that rate, then status's per-store text; status also
// gives the bytes behind in all.
func (p *progress) draw(now time.Time, status func() (string, int64)) {
	if !p.on || now.Sub(p.drawnAt) < drawEvery {
		return
	}
	secs := now.Sub(p.drawnAt).Seconds()
	text, behind := status()
	fmt.Fprintf(p.w, "\r\033[Kfeed: %.0f entries/s, %s%s", float64(p.entries)/secs, eta(behind, float64(p.bytes)/secs), text)
	p.shown, p.drawnAt, p.entries, p.bytes = true, now, 0, 0
}

// eta says how far the live edge is at rate bytes a second.
func eta(behind int64, rate float64) string {
	switch {
	case behind == 0:
		return "at the live edge"
	case rate == 0:
		return "live edge: no progress"
	}
	return "live edge in " + time.Duration(float64(behind)/rate*float64(time.Second)).Round(time.Second).String()
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
