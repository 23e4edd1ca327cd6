// Package check proves that a tally store's tape adds up to the entries it
// was fed (docs/design.md §6): conservation of counts, a bucket-by-bucket comparison
// with buckets re-derived from the stores, and a scan for the old defect's
// signatures (fragments, repeated seals, batch-sized !late markers).
//
// Invariants:
//   - A tape that cannot be read whole (an I/O error, a line that is not a
//     record, a torn last line) is an error, never a pass; only loadOpenStore
//     (tgcheck --open, a store being fed) leaves a torn last line out, as
//     the group being written. A well-formed line of a kind a later version
//     added (tape.ParseOrLater) is no damage: it is passed over, as every
//     reader of a tape passes it over, with a note per kind.
//   - An open tape (no end record) passes only with --open, and then only
//     when everything sealed so far holds; conservation waits for the end.
//   - The re-derivation shares no aggregation code with tally (lib/internal/bucket):
//     a check that reused the code under test would prove nothing. It uses
//     only the extractor, the tape's series syntax and the metric rules of
//     docs/design.md §4, with unbounded grace and no cap.
//   - Every entry is either in a series value or in a marker that holds it:
//     each marker's range is checked to hold exactly its count entries of
//     its kind, and the entries it holds are left out of the values its
//     bucket is compared with, so every bucket is compared exactly.
//   - A histogram is compared as its tape lines: every _bucket (by its le)
//     and its _count exactly, its _sum within a sum's rounding (matches); a
//     difference names the histogram and the bound.
//   - derive takes the stores as the user names them (input) and reads
//     everything else it needs from the tape itself, so no preparing step
//     can be left out.
//   - Only entries the tape knows of are compared: those before the largest
//     position the tape records for their store (seal at=, marker end=,
//     end at=), so a live tape is comparable with a store that has grown.
//   - The receiver check (--receiver, receiver.go) expects exactly what
//     tgpush sends for the tape (push.Sent) and reads it back as raw
//     samples in windows of bounded size: it holds only when every sample
//     is there once with its value and nothing else is, for the tape's
//     metric names and --labels inside its time range.
package check

import (
	"errors"
	"fmt"
	"math"
	"os"

	"github.com/timbertally/timbertally/lib/internal/tallystore"

	"github.com/timbertally/timbertally/lib/internal/command"
	"github.com/timbertally/timbertally/lib/internal/doc"
	"github.com/timbertally/timbertally/lib/internal/tape"
)

// tallyStore is a tally store as tgcheck reads it: its frozen document and its
// resolved tape.
type tallyStore struct {
	Dir      string
	TapePath string
	Doc      *doc.Doc
	Tape     *tape.Resolved
	// Live: the tape may be being written (loadOpenStore), so a group after its
	// last seal without a seal of its own is being written, not cut short.
	Live bool
}

// loadStore reads the document and resolves the tape of the tally store in dir.
func loadStore(dir string) (*tallyStore, error) { return load(dir, false) }

// loadOpenStore is loadStore for a store that may be being fed: a torn last line (a
// group being written) is left out rather than an error.
func loadOpenStore(dir string) (*tallyStore, error) { return load(dir, true) }

func load(dir string, live bool) (*tallyStore, error) {
	docPath := tallystore.At(dir).Document()
	text, err := os.ReadFile(docPath)
	if err != nil {
		return nil, fmt.Errorf("tgcheck: %s is not a tally store (%v); make one with tally --provision", dir, command.Bare(err))
	}
	d, err := doc.Parse(docPath, text)
	if err != nil {
		return nil, fmt.Errorf("tgcheck: the store's document: %v", err)
	}
	s := &tallyStore{Dir: dir, TapePath: tallystore.At(dir).Tape(), Doc: d, Live: live}
	f, err := os.Open(s.TapePath)
	if err != nil {
		return nil, fmt.Errorf("tgcheck: cannot read the tape: %w", err)
	}
	defer f.Close()
	if s.Tape, err = tape.Resolve(f, tape.Options{TolerateTorn: live}); err != nil {
		if errors.Is(err, tape.ErrTorn) {
			return nil, fmt.Errorf("tgcheck: %s: %v; on a store being fed, tgcheck --open leaves it out", s.TapePath, err)
		}
		return nil, fmt.Errorf("tgcheck: %s: %w", s.TapePath, err)
	}
	return s, nil
}

// knownPositions returns, per store id, the largest position the tape records: every
// entry of that store before it is accounted for on the tape.
func knownPositions(t *tape.Resolved) map[string]int64 {
	known := accounted(t, math.MaxInt)
	if t.End != nil {
		for _, p := range t.End.At {
			known[p.ID] = max(known[p.ID], p.Pos)
		}
	}
	return known
}

// accounted returns, per store id, the largest position a seal's at= or a
// marker's end= records on a line before line.
func accounted(t *tape.Resolved, line int) map[string]int64 {
	known := map[string]int64{}
	raise := func(id string, pos int64, at int) {
		if at < line {
			known[id] = max(known[id], pos)
		}
	}
	for _, seals := range t.Seals {
		for _, s := range seals {
			for _, p := range s.At {
				raise(p.ID, p.Pos, s.Line)
			}
		}
	}
	for _, m := range t.Markers {
		raise(m.ID, m.End, m.Line)
	}
	return known
}

// lastSeal returns the start of the newest sealed bucket and how many
// buckets are sealed (ok is false when none is).
func lastSeal(t *tape.Resolved) (start int64, n int, ok bool) {
	for s := range t.Seals {
		if !ok || s > start {
			start = s
		}
		ok = true
	}
	return start, len(t.Seals), ok
}

// sealedSoFar says how far an open tape is sealed, for messages.
func sealedSoFar(t *tape.Resolved) string {
	start, n, ok := lastSeal(t)
	if !ok {
		return "no bucket is sealed yet"
	}
	return fmt.Sprintf("sealed through the bucket at %s (%s)", timeText(start), count(n, "bucket"))
}

func timeText(ns int64) string { return string(tape.AppendTime(nil, ns)) }

func valueText(v float64) string { return string(tape.AppendValue(nil, v)) }

// plainCounts returns the count metrics without where=: each of them counts
// every entry placed, so conservation applies to them.
func plainCounts(d *doc.Doc) []string {
	var names []string
	for _, m := range d.Metrics {
		if m.Kind == doc.Count && m.Where == nil {
			names = append(names, m.Name)
		}
	}
	return names
}

// count spells n things: "1 bucket", "2 buckets", "0 buckets".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
