package check

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/timbertally/timbertally/lib/internal/doc"
	"github.com/timbertally/timbertally/lib/internal/tape"
)

// defaultOldBatchSize is the old follower's hard-coded batch (BATCH_ENTRIES):
// a !late marker of exactly this many entries is a whole displaced batch.
const defaultOldBatchSize = 512

// finding is one of the old defect's signatures, at a tape line.
type finding struct {
	Line int
	What string
}

// scan looks for the old defect's signatures in the store's tape: more
// than one line for one (bucket, series) and more than one seal for one
// bucket (fragments, even of equal values), !late markers of exactly
// batchSize entries, and a bucket whose count metric (without where=, plus
// its !cap) totals more than its seal's entries=. Findings are in line
// order. (What no run of tally writes at all is integrity's.)
func scan(s *tallyStore, batchSize int64) []finding {
	var fs []finding
	for _, d := range s.Tape.Duplicates {
		fs = append(fs, finding{d.Line, fmt.Sprintf("%s %s again (line %d had %s, this one %s): a fragment",
			timeText(d.Start), d.Series.Text, d.OldLine, valueText(d.Old), valueText(d.New))})
	}
	for start, seals := range s.Tape.Seals {
		for _, sl := range seals[1:] {
			fs = append(fs, finding{sl.Line, fmt.Sprintf("seal %s again (%d seals for the bucket, first on line %d): the bucket was written in fragments",
				timeText(start), len(seals), seals[0].Line)})
		}
	}
	for _, m := range s.Tape.Markers {
		if m.Kind == tape.Late && m.Count == batchSize {
			fs = append(fs, finding{m.Line, fmt.Sprintf("!late %s count=%d: exactly a batch of the old follower (--old-batch-size %d), displaced whole",
				timeText(m.Start), m.Count, batchSize)})
		}
	}
	fs = append(fs, overSealed(s)...)
	slices.SortStableFunc(fs, func(a, b finding) int { return a.Line - b.Line })
	return fs
}

// integrity finds what no tally writes, whatever happened to it: a bucket
// with series but no seal (a group cut short, or its seal removed), a seal
// whose width is not the document's window, and a series or !cap marker
// of a metric the document does not have (a tape of another document, or
// an edited one). Every check runs it.
func integrity(s *tallyStore) []finding {
	fs := append(append(unsealed(s), foreign(s)...), ended(s)...)
	for start, seals := range s.Tape.Seals {
		for _, sl := range seals {
			if sl.Width != s.Doc.Width {
				fs = append(fs, finding{sl.Line, fmt.Sprintf("seal %s says width=%v, but the document's window is %v", timeText(start), sl.Width, s.Doc.Width)})
			}
		}
	}
	slices.SortStableFunc(fs, func(a, b finding) int { return a.Line - b.Line })
	return fs
}

// ended finds an end record that does not reach what the tape before it
// accounts for: input complete up to its positions puts each store it lists
// at or past every earlier seal's at= and marker's end= of that store.
// (Records after it are a later run's, which may have read further, and a
// run may feed only some of the stores, so a store it does not list is
// none of its business; but every run feeds one at least.)
func ended(s *tallyStore) []finding {
	if s.Tape.End == nil {
		return nil
	}
	if len(s.Tape.End.At) == 0 {
		return []finding{{0, "the end record lists no store (end at=ID:POS,...)"}}
	}
	acc := accounted(s.Tape, s.Tape.EndLine)
	var fs []finding
	for _, p := range s.Tape.End.At {
		if p.Pos < acc[p.ID] {
			fs = append(fs, finding{0, fmt.Sprintf("the end record has store %s at %d, below %d, which the tape accounts for", p.ID, p.Pos, acc[p.ID])})
		}
	}
	return fs
}

// foreign finds the series and !cap markers that are not of the document's
// metrics, or whose labels are not the metric's by= fields in order (and
// for a histogram's _bucket series le last).
func foreign(s *tallyStore) []finding {
	var fs []finding
	for _, p := range s.Tape.Points {
		m, labels := seriesMetric(s.Doc, p.Series.Metric)
		switch {
		case m == nil:
			fs = append(fs, finding{p.Line, fmt.Sprintf("series %s: the document has no metric %s", p.Series.Text, p.Series.Metric)})
		case !slices.EqualFunc(p.Series.Labels, labels, func(l tape.Label, by string) bool { return l.Name == by }):
			fs = append(fs, finding{p.Line, fmt.Sprintf("series %s: metric %s is labelled by=%s in the document", p.Series.Text, m.Name, strings.Join(m.By, ","))})
		}
	}
	for _, mk := range s.Tape.Markers {
		if mk.Kind == tape.Cap && docMetric(s.Doc, mk.Metric) == nil {
			fs = append(fs, finding{mk.Line, fmt.Sprintf("!cap marker of metric %s: the document has no such metric", mk.Metric)})
		}
	}
	return fs
}

// docMetric returns the document's metric named name, nil for none.
func docMetric(d *doc.Doc, name string) *doc.Metric {
	i := slices.IndexFunc(d.Metrics, func(m doc.Metric) bool { return m.Name == name })
	if i < 0 {
		return nil
	}
	return &d.Metrics[i]
}

// seriesMetric returns the metric a series' metric name is of (a
// histogram's for its _bucket, _sum and _count) and the label names its
// series have, in order; nil for none.
func seriesMetric(d *doc.Doc, name string) (*doc.Metric, []string) {
	if m := docMetric(d, name); m != nil && m.Kind != doc.Histogram {
		return m, m.By
	}
	base, suffix, ok := doc.HistogramOf(name)
	if m := docMetric(d, base); ok && m != nil && m.Kind == doc.Histogram {
		if suffix == doc.BucketSuffix {
			return m, append(slices.Clip(m.By), doc.BoundLabel)
		}
		return m, m.By
	}
	return nil, nil
}

// unsealed finds buckets whose series have no seal anywhere on the tape,
// at the first line of their series.
func unsealed(s *tallyStore) []finding {
	var fs []finding
	last, _, anySealed := lastSeal(s.Tape)
	for start, b := range viewBuckets(s.Tape) {
		if b.sealed || len(b.series) == 0 {
			continue
		}
		if s.Live && s.Tape.End == nil && (!anySealed || start > last) {
			continue // the group being written: its seal comes in the same append
		}
		line := 0
		for _, p := range b.series {
			if line == 0 || p.Line < line {
				line = p.Line
			}
		}
		fs = append(fs, finding{line, fmt.Sprintf("bucket %s has %d series lines but no seal: its group was cut short or its seal removed",
			timeText(start), len(b.series))})
	}
	return fs
}

// overSealed finds buckets where a count metric without where= (with its
// !cap) totals other than the entries the bucket's last seal says it holds:
// every entry placed in a bucket is in such a metric's series or !cap, so
// more is the old defect's over-count and fewer a tape missing lines.
func overSealed(s *tallyStore) []finding {
	view := viewBuckets(s.Tape)
	var fs []finding
	for start, seals := range s.Tape.Seals {
		last := seals[len(seals)-1]
		b := view[start]
		for _, name := range plainCounts(s.Doc) {
			total := b.caps[name]
			for _, p := range b.series {
				if p.Series.Metric == name {
					total += int64(p.Value)
				}
			}
			switch {
			case total > last.Entries:
				fs = append(fs, finding{last.Line, fmt.Sprintf("bucket %s: %s totals %d (with !cap) but its seal says entries=%d",
					timeText(start), name, total, last.Entries)})
			case total < last.Entries:
				fs = append(fs, finding{last.Line, fmt.Sprintf("bucket %s: %s totals %d (with !cap) but its seal says entries=%d: series lines are missing",
					timeText(start), name, total, last.Entries)})
			}
		}
	}
	return fs
}

// printFindings writes the findings and reports whether there were none.
func printFindings(w io.Writer, fs []finding, tapePath string) bool {
	for _, f := range fs {
		fmt.Fprintf(w, "scan: %s:%d: %s\n", tapePath, f.Line, f.What)
	}
	fmt.Fprintf(w, "scan: %s of the old defect\n", count(len(fs), "signature"))
	return len(fs) == 0
}
