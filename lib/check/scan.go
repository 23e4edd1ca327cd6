package check

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/timbertally/timbertally/lib/tape"
)

// DefaultBatchSize is the old follower's hard-coded batch (BATCH_ENTRIES):
// a !late marker of exactly this many entries is a whole displaced batch.
const DefaultBatchSize = 512

// Finding is one of the old defect's signatures, at a tape line.
type Finding struct {
	Line int
	What string
}

// Scan looks for the old defect's signatures in the store's tape: more
// than one line for one (bucket, series) and more than one seal for one
// bucket (fragments, even of equal values), !late markers of exactly
// batchSize entries, and a bucket whose count metric (without where=, plus
// its !cap) totals more than its seal's entries=. Findings are in line
// order. (What no run of tally writes at all is Integrity's.)
func Scan(s *Store, batchSize int64) ([]Finding, error) {
	var fs []Finding
	for _, d := range s.Tape.Duplicates {
		fs = append(fs, Finding{d.Line, fmt.Sprintf("%s %s again (line %d had %s, this one %s): a fragment",
			timeText(d.Start), d.Series.Text, d.OldLine, valueText(d.Old), valueText(d.New))})
	}
	lines, err := recordLines(s.TapePath)
	if err != nil {
		return nil, err
	}
	for start, ls := range lines.seals {
		for _, n := range ls[1:] {
			fs = append(fs, Finding{n, fmt.Sprintf("seal %s again (%d seals for the bucket, first on line %d): the bucket was written in fragments",
				timeText(start), len(ls), ls[0])})
		}
	}
	for i, m := range s.Tape.Markers {
		if m.Kind == tape.Late && m.Count == batchSize {
			fs = append(fs, Finding{lines.markers[i], fmt.Sprintf("!late %s count=%d: exactly a batch of the old follower (--batch-size %d), displaced whole",
				timeText(m.Start), m.Count, batchSize)})
		}
	}
	fs = append(fs, overSealed(s, lines.seals)...)
	slices.SortStableFunc(fs, func(a, b Finding) int { return a.Line - b.Line })
	return fs, nil
}

// Integrity finds what no tally writes, whatever happened to it: a bucket
// with series but no seal (a group cut short, or its seal removed), and a
// seal whose width is not the document's window. Every check runs it.
func Integrity(s *Store) []Finding {
	fs := unsealed(s)
	for start, seals := range s.Tape.Seals {
		for _, sl := range seals {
			if sl.Width != s.Doc.Width {
				fs = append(fs, Finding{0, fmt.Sprintf("seal %s says width=%v, but the document's window is %v", timeText(start), sl.Width, s.Doc.Width)})
			}
		}
	}
	slices.SortStableFunc(fs, func(a, b Finding) int { return a.Line - b.Line })
	return fs
}

// unsealed finds buckets whose series have no seal anywhere on the tape,
// at the first line of their series.
func unsealed(s *Store) []Finding {
	var fs []Finding
	for start, b := range viewBuckets(s.Tape) {
		if b.sealed || len(b.series) == 0 {
			continue
		}
		line := 0
		for _, p := range b.series {
			if line == 0 || p.Line < line {
				line = p.Line
			}
		}
		fs = append(fs, Finding{line, fmt.Sprintf("bucket %s has %d series lines but no seal: its group was cut short or its seal removed",
			timeText(start), len(b.series))})
	}
	return fs
}

// overSealed finds buckets where a count metric without where= (with its
// !cap) totals more entries than the bucket's last seal says it holds.
func overSealed(s *Store, sealLines map[int64][]int) []Finding {
	view := viewBuckets(s.Tape)
	var fs []Finding
	for start, seals := range s.Tape.Seals {
		entries := seals[len(seals)-1].Entries
		b := view[start]
		for _, name := range plainCounts(s.Doc) {
			total := b.caps[name]
			for _, p := range b.series {
				if p.Series.Metric == name {
					total += int64(p.Value)
				}
			}
			if total > entries {
				ls := sealLines[start]
				fs = append(fs, Finding{ls[len(ls)-1], fmt.Sprintf("bucket %s: %s totals %d (with !cap) but its seal says entries=%d",
					timeText(start), name, total, entries)})
			}
		}
	}
	return fs
}

// lineNumbers holds the tape lines of each bucket's seals and of each
// marker, in tape order (the order of tape.Resolved.Markers).
type lineNumbers struct {
	seals   map[int64][]int
	markers []int
}

// recordLines finds the lines of the seals and markers. tape.Resolved keeps
// records, not their lines, so this is a second, cheap pass: series lines,
// nearly all of a tape, are skipped unparsed.
func recordLines(path string) (*lineNumbers, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("tgcheck: cannot read the tape: %v", err)
	}
	defer f.Close()
	r := tape.NewReader(f)
	ln := &lineNumbers{seals: map[int64][]int{}}
	for {
		line, err := r.ReadLine()
		if errors.Is(err, io.EOF) {
			return ln, nil
		}
		if err != nil {
			return nil, fmt.Errorf("tgcheck: %s: %v", path, err)
		}
		switch {
		case len(line) > 0 && line[0] == '!':
			ln.markers = append(ln.markers, r.Line())
		case len(line) > 0 && line[0] == 's':
			rec, err := tape.Parse(line)
			if err != nil {
				return nil, fmt.Errorf("tgcheck: %s: %v", path, &tape.LineError{Line: r.Line(), Err: err})
			}
			ln.seals[rec.Start] = append(ln.seals[rec.Start], r.Line())
		}
	}
}

// printFindings writes the findings and reports whether there were none.
func printFindings(w io.Writer, fs []Finding, tapePath string) bool {
	for _, f := range fs {
		fmt.Fprintf(w, "scan: %s:%d: %s\n", tapePath, f.Line, f.What)
	}
	fmt.Fprintf(w, "scan: %s of the old defect\n", count(len(fs), "signature"))
	return len(fs) == 0
}
