package bucket

import (
	"fmt"
	"strings"

	"github.com/timbertally/timbertally/lib/internal/tape"
)

// A store fed to a document of the wrong format drops every entry, which
// the tape records faithfully and silently. These bounds make it loud:
// a note when a store's first FirstEntries entries are all dropped (or all
// it has, when it ends sooner), and one when DropShare or more of a
// store's entries in this run were dropped: by the time it ends, or, for a
// run that follows and never ends, once it has seen ShareEntries.
//
// DropShare is a tenth: lines a document's format cannot read are rare in
// a server's own log (a damaged line, a probe: well under 1% in the real
// logs this project checks against), while a second format written into
// the same file (a vhost with another LogFormat, a JSON logger beside an
// access log) drops its share of the lines, whatever it is; a note only
// above half missed exactly half. ShareEntries makes the share one of a
// sustained stretch, not of a first few lines.
const (
	FirstEntries = 1000
	DropShare    = 0.1
	ShareEntries = 10 * FirstEntries
)

// formatWatch counts one store's extracted and dropped entries in this
// run, and keeps the first dropped line as the notes' sample.
type formatWatch struct {
	seen, dropped int64
	sample        []byte
	reason        string
	allNoted      bool // the all-dropped note is written (or cannot be: an entry parsed)
	shareNoted    bool
	due           []string
}

// entry counts one entry; reason is its drop reason, "" when extracted.
func (w *formatWatch) entry(line []byte, reason string) {
	w.seen++
	if reason == "" {
		return
	}
	if w.dropped++; w.sample == nil {
		w.sample, w.reason = append([]byte{}, line[:min(len(line), 200)]...), reason
	}
}

// check queues the notes now due for store id; ended says the store has
// delivered everything it will in this run.
func (w *formatWatch) check(id, format string, ended bool) {
	if !w.allNoted && w.dropped > 0 && w.dropped == w.seen && (w.seen >= FirstEntries || ended) {
		w.allNoted, w.shareNoted = true, true
		w.due = append(w.due, fmt.Sprintf("store %s: its first %d entries were all dropped (!drop reason=%s): they do not have the document's format, %s. The first: %s. See what the format cuts from them with tally --try --fields --doc DOC FILE, and tally --docs for the shipped formats", id, w.seen, w.reason, format, quoteSample(w.sample)))
	}
	if w.seen > w.dropped && w.seen >= FirstEntries {
		w.allNoted = true // an entry parsed: the all-dropped note can no longer be due
	}
	if (ended || w.seen >= ShareEntries) && !w.shareNoted && w.dropped > 0 && float64(w.dropped) >= DropShare*float64(w.seen) {
		w.shareNoted = true
		w.due = append(w.due, fmt.Sprintf("store %s: %d of its %d entries in this run were dropped (%.0f%% or more: a second format in the file, or lines the document's format does not read), the first with reason=%s for the document's format, %s: %s. See what the format cuts with tally --try --fields --doc DOC FILE", id, w.dropped, w.seen, DropShare*100, w.reason, format, quoteSample(w.sample)))
	}
}

// quoteSample shows a line as a tape label value would hold it.
func quoteSample(b []byte) string {
	return `"` + strings.TrimSpace(string(tape.AppendEscaped(nil, b))) + `"`
}

// FormatNotes returns the wrong-format notes due since the last call, each
// once per run.
func (r *Roller) FormatNotes() []string {
	var notes []string
	for _, s := range r.stores {
		s.watch.check(s.id, r.format, s.ended)
		notes = append(notes, s.watch.due...)
		s.watch.due = nil
	}
	return notes
}
