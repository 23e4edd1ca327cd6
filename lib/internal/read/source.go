package read

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"time"

	"github.com/timbertally/timbertally/lib/internal/tallystore"

	"github.com/timbertally/timbertally/lib/internal/doc"
	"github.com/timbertally/timbertally/lib/internal/tape"
)

// source is one tape named on the command line, resolved.
type source struct {
	name  string                    // as named: a tally store, a tape file, or "-"
	tape  string                    // what duplicate reports call it: the tape's path, or "stdin"
	kinds map[string]doc.MetricKind // from the tally store's document; nil for a bare tape
	width time.Duration             // the document's window; 0 for a bare tape
	res   *tape.Resolved
}

// label is the tape label --by-tape gives the tape's series: the name it
// was given by, or stdin.
func (src *source) label() string {
	if src.name == "-" {
		return "stdin"
	}
	return src.name
}

// reported remembers the (bucket, series) pairs already reported as
// differing duplicates, so that each is reported once.
type reported map[string]bool

// open resolves the tape that name stands for: "-" is stdin, a directory is
// a tally store (its tape and document), anything else a tape file.
func open(name string, stdin io.Reader, opt tape.Options, stderr io.Writer) (*source, error) {
	src := &source{name: name, tape: name}
	seen := reported{}
	opt.OnDuplicate = func(d tape.Dup) { seen.report(stderr, src.tape, d) }
	opt.OnLater = func(k tape.LaterKind) { noteLater(stderr, src.tape, k) }
	opt.TolerateTorn = true
	if name == "-" {
		src.tape = "stdin"
		return src, src.resolve(stdin, opt, stderr)
	}
	if fi, err := os.Stat(name); err == nil && fi.IsDir() {
		if err := src.readDocument(tallystore.At(name).Document()); err != nil {
			return nil, err
		}
		src.tape = tallystore.At(name).Tape()
		opt.Metrics = withHistogramSeries(opt.Metrics, src.kinds)
	}
	f, err := os.Open(src.tape)
	if errors.Is(err, fs.ErrNotExist) && src.tape != name {
		return nil, fmt.Errorf("tgread: %s holds no tape; is it a tally store? (tally --provision makes one)", name)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("tgread: there is no tape %s; name a tally store, a tape file or - for stdin", name)
	}
	if err != nil {
		return nil, fmt.Errorf("tgread: cannot read the tape: %w", err)
	}
	defer f.Close()
	return src, src.resolve(f, opt, stderr)
}

// resolve reads the tape. A torn last line is left out: the tape may be
// being written (tail -f tape | tgread -). For a file, where tally's whole
// appends make it rare, a note says so.
func (src *source) resolve(r io.Reader, opt tape.Options, stderr io.Writer) error {
	res, err := tape.Resolve(r, opt)
	if err != nil {
		return unreadable(src.tape, err)
	}
	if res.Torn && src.name != "-" {
		fmt.Fprintf(stderr, "tgread: note: %s ends in a torn line (no newline), left out: it is being written, or the store's next run under feed (%s) repairs it\n", src.tape, resumeText(src.tape))
	}
	if res.Sealed {
		noteUnsealed(stderr, src.tape, dropUnsealed(res, func(start int64) bool { _, ok := res.Seals[start]; return ok }))
	}
	src.res = res
	return nil
}

// dropUnsealed takes out of a tally tape's points those of buckets that
// have no seal (sealed says which have), and returns how many. tally appends a bucket's series and
// its seal in one write, so series without their seal are a group being
// written (a reader got there first) or cut short by a crash (tally --run
// repairs it): not yet the bucket's numbers. A tape without any seal (one
// tgread --format tape resolved) is all points.
func dropUnsealed(res *tape.Resolved, sealed func(int64) bool) int {
	kept := res.Points[:0]
	for _, p := range res.Points {
		if sealed(p.Start) {
			kept = append(kept, p)
		}
	}
	n := len(res.Points) - len(kept)
	res.Points = kept
	return n
}

// noteUnsealed says that n series lines without a seal were left out.
func noteUnsealed(stderr io.Writer, name string, n int) {
	if n > 0 {
		fmt.Fprintf(stderr, "tgread: note: %s has %d series lines of buckets without a seal, left out: a group being written, or cut short (the store's next run under feed, %s, repairs it; tgcheck says more)\n", name, n, resumeText(name))
	}
}

// resumeText is the next run under feed of the tally store whose tape is
// the file path, naming the cursor and stores its bindings recorded.
func resumeText(path string) string {
	l, ok := tallystore.OfTape(path)
	if !ok {
		return "feed --cursor FILE STORE... -- tally --run DIR as before"
	}
	return tallystore.RemakeOf(l.Dir).ResumeText()
}

// unreadable explains why the tape name could not be read: a line that is
// no record (tape.Damaged) is named with the fix, making the tape again
// from its logs in the tally store it belongs to (DIR when it is not read
// from one).
func unreadable(name string, err error) error {
	if !tape.Damaged(err) {
		return fmt.Errorf("tgread: %s: %v; it was not written by tally, or was damaged", name, err)
	}
	dir := "DIR"
	if st, ok := tallystore.OfTape(name); ok {
		dir = st.Dir
	}
	return fmt.Errorf("tgread: %s: %v; it is not a record, so the tape was damaged or not written by tally (tgcheck --scan %s names it): re-make it from its logs, %s", name, err, dir, tallystore.RemakeOf(dir))
}

// noteLater says, once per kind, that the tape name has records of a kind
// a later tally added, which tgread passes over as tgpush does.
func noteLater(stderr io.Writer, name string, k tape.LaterKind) {
	fmt.Fprintf(stderr, "tgread: note: %s: line %d: records of kind %q, which a later version added and this tgread does not know: they carry no value and are passed over%s\n", name, k.Line, k.Word, k.Beyond())
}

// readDocument takes the metric kinds and window of a tally store's
// frozen document. A store without one is read as a bare tape.
func (src *source) readDocument(path string) error {
	text, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("tgread: cannot read the document: %v", err)
	}
	d, err := doc.Parse(path, text)
	if err != nil {
		return fmt.Errorf("tgread: %v; the tally store's document is damaged", err)
	}
	src.kinds = map[string]doc.MetricKind{}
	for _, m := range d.Metrics {
		src.kinds[m.Name] = m.Kind
	}
	src.width = d.Width
	return nil
}

// withHistogramSeries adds to a --metric list the series of each histogram
// it names (latency: latency_bucket, latency_sum, latency_count), which
// are the names its lines have on the tape.
func withHistogramSeries(metrics []string, kinds map[string]doc.MetricKind) []string {
	out := metrics
	for _, m := range metrics {
		if kinds[m] != doc.Histogram {
			continue
		}
		for _, suffix := range doc.HistogramSuffixes {
			if !slices.Contains(out, m+suffix) {
				out = append(slices.Clip(out), m+suffix)
			}
		}
	}
	return out
}

// report writes a differing duplicate to stderr, once per pair.
func (seen reported) report(stderr io.Writer, name string, d tape.Dup) {
	if !d.Differs() {
		return // an equal repeat changes no number; tgcheck --scan lists it
	}
	key := string(tape.AppendTime(nil, d.Start)) + " " + d.Series.Text
	if seen[key] {
		return
	}
	seen[key] = true
	fmt.Fprintf(stderr, "tgread: %s line %d replaces %s at %s: %s -> %s (a fragment: the old defect's signature; run tgcheck --scan)\n",
		name, d.Line, d.Series.Text, tape.AppendTime(nil, d.Start), tape.AppendValue(nil, d.Old), tape.AppendValue(nil, d.New))
}
