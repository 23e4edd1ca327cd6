package bucket

import (
	"fmt"
	"slices"
	"strings"

	"github.com/timbertally/timbertally/lib/internal/extract"

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
	why           string // the format's own word on the sample's drop (Extractor.Why), or ""
	allNoted      bool   // the all-dropped note is written (or cannot be: an entry parsed)
	shareNoted    bool
	due           []string
}

// entry counts one entry; reason is its drop reason, "" when extracted.
// It reports whether the line became the notes' sample (the first
// dropped), for which the caller sets why.
func (w *formatWatch) entry(line []byte, reason string) bool {
	w.seen++
	if reason == "" {
		return false
	}
	if w.dropped++; w.sample != nil {
		return false
	}
	w.sample, w.reason = append([]byte{}, line[:min(len(line), 200)]...), reason
	return true
}

// check queues the notes now due for store id; ended says the store has
// delivered everything it will in this run.
func (w *formatWatch) check(id, format string, ended bool) {
	if !w.allNoted && w.dropped > 0 && w.dropped == w.seen && (w.seen >= FirstEntries || ended) {
		w.allNoted, w.shareNoted = true, true
		because := "they do not have the document's format, " + format
		if w.why != "" {
			because = w.why
		}
		w.due = append(w.due, fmt.Sprintf("store %s: its first %d entries were all dropped (!drop reason=%s): %s. The first: %s. See what the format cuts from them with tally --try --fields --doc DOC FILE, and tally --docs for the shipped formats", id, w.seen, w.reason, because, quoteSample(w.sample)))
	}
	if w.seen > w.dropped && w.seen >= FirstEntries {
		w.allNoted = true // an entry parsed: the all-dropped note can no longer be due
	}
	if (ended || w.seen >= ShareEntries) && !w.shareNoted && w.dropped > 0 && float64(w.dropped) >= DropShare*float64(w.seen) {
		w.shareNoted = true
		w.due = append(w.due, fmt.Sprintf("store %s: %d of its %d entries in this run were dropped (%.0f%% or more: a second format in the file, or lines the document's format does not read), the first with reason=%s for the document's format, %s: %s. See what the format cuts with tally --try --fields --doc DOC FILE", id, w.dropped, w.seen, DropShare*100, w.reason, format, quoteSample(w.sample)))
	}
}

// A JSON or logfmt document reads its fields by key paths, and a path no
// line has (a typo: request.methd) reads as empty in every entry: a label
// of "", a histogram of nothing, silently, where an Apache or nginx
// format refuses an unknown field at --provision. keyWatch notes such a
// path by name, with the key paths the lines do have, when none of a
// store's first FirstEntries extracted entries (all it has, if it ends
// sooner) had a value there and the first of them does not have the path
// at all: a key present but empty or null (the upstream time of a request
// that had no upstream) is the log's own, not a typo.
type keyWatch struct {
	entries int64
	had     []bool // per keyed field: a value seen
	first   []byte // the first extracted entry
	checked bool
}

// entry counts one extracted entry.
func (w *keyWatch) entry(keyed []extract.Keyed, e *extract.Entry, line []byte) {
	if w.checked || w.entries >= FirstEntries {
		return
	}
	if w.entries++; w.first == nil {
		w.first, w.had = append([]byte{}, line...), make([]bool, len(keyed))
	}
	for i, k := range keyed {
		w.had[i] = w.had[i] || len(e.Fields[k.Field]) > 0
	}
}

// check returns the notes now due for store id: once, when the first
// entries are seen or the store ended.
func (w *keyWatch) check(id string, keyed []extract.Keyed, x *extract.Extractor, ended bool) []string {
	if w.checked || w.entries == 0 || (w.entries < FirstEntries && !ended) {
		return nil
	}
	w.checked = true
	if !slices.Contains(w.had, false) {
		return nil // every path had a value: no line needs listing
	}
	has := x.KeyPaths(w.first)
	var notes []string
	for i, k := range keyed {
		if w.had[i] || slices.ContainsFunc(has, func(kv extract.KeyValue) bool { return kv.Path == k.Path }) {
			continue
		}
		notes = append(notes, fmt.Sprintf("store %s: %s the key path %s (the document's field %s), so the field is empty. The first entry's key paths: %s. Name the one meant on the format line (%s=PATH), and see each line's key paths with tally --try --fields --doc DOC FILE", id, noneOf(w.entries, ended), k.Path, k.Name, listPaths(has), k.Name))
	}
	return notes
}

// noneOf says which of a store's entries lack a key path.
func noneOf(n int64, ended bool) string {
	switch {
	case n == 1:
		return "its one entry does not have"
	case ended && n < FirstEntries:
		return fmt.Sprintf("none of its %d entries has", n)
	}
	return fmt.Sprintf("none of its first %d entries has", n)
}

// listPaths lists key paths for a note, the first maxListed of them.
func listPaths(kv []extract.KeyValue) string {
	const maxListed = 40
	if len(kv) == 0 {
		return "none (the line is not one of the format's)"
	}
	var b strings.Builder
	for i, p := range kv[:min(len(kv), maxListed)] {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(p.Path)
	}
	if len(kv) > maxListed {
		fmt.Fprintf(&b, " and %d more", len(kv)-maxListed)
	}
	return b.String()
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
		notes = append(notes, s.keys.check(s.id, r.keyed, r.x, s.ended)...)
		s.watch.due = nil
	}
	return notes
}
