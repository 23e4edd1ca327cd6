package check

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"

	"github.com/timbertally/timbertally/lib/internal/tallystore"

	"github.com/timbertally/timbertally/lib/internal/command"
	"github.com/timbertally/timbertally/lib/internal/store"
	"github.com/timbertally/timbertally/lib/internal/tape"
	"github.com/urfave/cli/v2"
)

const description = `tgcheck proves that a tally store's tape adds up to the entries it was fed.

Conservation (--entries N, or counted from the --against stores): for every
count metric without where=, the tape's series + !cap + !late + !drop must
equal the entries fed. It needs a complete tape (one with its end record):
on an open tape it says how far the tape is sealed and fails.

--open: a store being fed (tally --run on a live feed) has an open tape. With
--open, tgcheck holds when everything sealed so far holds (integrity, the
--against comparison of the sealed buckets, the markers' ranges, --scan,
--strict) and says how far the tape is sealed; a torn last line and a last
group without its seal are a group being written, not damage.

--against STORE (repeatable, PATH, ID=PATH, or ID=GEN1,GEN2,…,PATH with the
store's older generations oldest first, each plain or gzip as its content
says, read as one file, as feed reads them): re-derives every bucket from
the stores with the store's own document (unbounded grace, no cap) and
compares bucket by bucket, series for series, leaving out the entries each
bucket's !late markers and each metric's !cap markers hold (each marker's
range must hold exactly its count entries of its kind), and each seal's
entries= too. Differences are named missing, extra, short (a fragment) or
displaced (counts moved between series or buckets). Only entries the tape
already knows of are compared, and buckets not yet sealed on an open tape
are reported as open, not as differences (the run still fails: the tape
is not complete).

--scan: the old defect's signatures: more than one line for one (bucket,
series), more than one seal for a bucket, !late markers of exactly
--old-batch-size entries, a bucket that counts more than its seal's entries=.

--receiver URL (with --label K=V as given to tgpush, --from/--to TIME, and
tgpush's credential and TLS flags): reads every sample tgpush sends for the
tape back through the query API at URL (http://prometheus:9090,
http://cortex:9009/prometheus) as raw samples, in windows of
--query-samples, and holds when the receiver has each exactly once with its
value and nothing else for those series in the tape's time range; otherwise
it names the samples missing (per bucket), doubled, different and extra,
and where the receiver's copy ends (the newest bucket it holds whole, and
the tgpush --from that resumes after it). With --against, one command proves
log -> tape -> TSDB.

Exit status: 0 the tape holds, 1 it does not or cannot be checked (a
damaged tape, a tape or store that cannot be read: never a pass), 2 bad
usage.

Examples:
   tgcheck --against web1=/var/log/apache2/access.log /srv/tally/web
   tgcheck --against web1=access.log.2.gz,access.log.1,access.log /srv/tally/web
   tgcheck --entries 20000 /srv/tally/web
   tgcheck --scan /srv/tally/old
   tgcheck --against web1=/var/log/apache2/access.log --receiver http://prometheus:9090 /srv/tally/web`

// Main runs the tgcheck command line on os.Args and returns its exit status.
func Main() int {
	return run(os.Args, os.Stdout, os.Stderr)
}

func run(args []string, stdout, stderr io.Writer) int {
	holds, onlyOpen := true, false
	var o *options
	app := newApp(stdout, stderr, &holds, &onlyOpen, &o)
	// The checks could not be made, which is never a pass. A store that
	// cannot be read or a damaged tape is a failed check (1), a runtime
	// error (docs/design.md §7); 2 is kept for the command line.
	if err := app.Run(command.Interspersed(app, args)); err != nil {
		return command.Status(stderr, err)
	}
	switch {
	case holds:
		return 0
	case onlyOpen:
		fmt.Fprintln(stderr, "tgcheck: the tape is open (no end record): its store is being fed, or its last run was interrupted; tgcheck --open checks what is sealed so far, and conservation needs the end record that a complete run (feed without --follow) writes")
		return 1
	}
	if o.receiverFailed {
		fmt.Fprintln(stderr, o.receiver.advice(o.dir))
		return 1
	}
	if o.policyOnly {
		fmt.Fprintln(stderr, "tgcheck: the tape adds up, but it fails --strict or --max-drop (see above): its markers are entries the document did not place; tgread --markers shows them and tally --try --fields --doc DOC FILE what the document cuts from such a line; re-deriving changes nothing until the document fits the log")
		return 1
	}
	fmt.Fprintf(stderr, "tgcheck: the tape does not add up (see above); a tape with fragments or displaced counts is re-derived, both steps in this order: %s\n", o.rederive())
	return 1
}

// App is tgcheck's command line, for its man page (docs/man).
func App() *cli.App { return newApp(os.Stdout, os.Stderr, new(bool), new(bool), new(*options)) }

// newApp is tgcheck's command line; its action leaves in *holds whether
// the checks held, and in *onlyOpen whether the tape's being open is all
// that failed.
func newApp(stdout, stderr io.Writer, holds, onlyOpen *bool, opts **options) *cli.App {
	return command.Conventions(&cli.App{
		// --against ID=GEN1,…,PATH holds commas: a value is one store.
		DisableSliceFlagSeparator: true,
		Name:                      "tgcheck",
		Usage:                     "prove a tally store's tape adds up",
		UsageText:                 "tgcheck [--entries N] [--against STORE]... [--max-line BYTES] [--scan] [--strict] [--max-drop P] [--old-batch-size N] [--open] [--receiver URL [--label K=V]... [--from TIME] [--to TIME] [auth and TLS flags as tgpush's]] TALLYSTORE",
		Description:               description,
		Writer:                    stdout,
		ErrWriter:                 stderr,
		Flags: append([]cli.Flag{
			&cli.Int64Flag{Name: "entries", Usage: "the tape must account for exactly `N` entries"},
			&cli.StringSliceFlag{Name: "against", Usage: "re-derive from `STORE` (PATH, ID=PATH or ID=GEN1,…,PATH); repeat for each store fed"},
			&cli.BoolFlag{Name: "scan", Usage: "report the old defect's signatures"},
			&cli.BoolFlag{Name: "strict", Usage: "fail on any marker (!late, !cap, !drop)"},
			&cli.Int64Flag{Name: "old-batch-size", Value: defaultOldBatchSize, Usage: "the batch size of the old follower that wrote the tape, for --scan: a !late marker of exactly `N` entries is its signature"},
			// The flag's first name, kept for the scripts that use it; it
			// read as feed's --batch-size, which it is not.
			&cli.Int64Flag{Name: "batch-size", Hidden: true},
			&cli.Float64Flag{Name: "max-drop", Value: -1, DefaultText: "off", Usage: "fail when more than `P` percent of the entries the tape accounts for are !drop (a wrong format drops most)"},
			&cli.IntFlag{Name: "max-line", Value: store.DefaultMaxLine, Usage: "feed's --max-line, when it was raised: a longer line is `BYTES` of no entry"},
			&cli.BoolFlag{Name: "open", Usage: "accept an open tape (a store being fed): hold when everything sealed so far holds"},
		}, receiverFlags()...),
		Action: func(c *cli.Context) error {
			o, err := parseOptions(c)
			if err != nil {
				return err
			}
			*opts = o
			if o.tapeChecks {
				if *holds, *onlyOpen, err = o.check(stdout); err != nil {
					return err
				}
			}
			tapeHeld := *holds
			if o.receiver != nil {
				ok, err := o.receiver.run(c.Context, o.dir, stdout)
				o.receiverFailed = !ok && tapeHeld
				*holds = *holds && ok
				*onlyOpen = *onlyOpen && ok
				return err
			}
			return nil
		},
	})
}

type options struct {
	dir        string
	entries    int64
	hasEntries bool
	against    []input
	scan       bool
	strict     bool
	batchSize  int64
	maxDrop    float64 // percent; < 0: not checked
	open       bool    // an open tape is checked as far as it is sealed
	policyOnly bool    // set by check: only --strict or --max-drop failed
	tapeChecks bool    // a check of the tape itself was asked for
	receiver   *receiverCheck
	// set by the receiver check: the tape holds, the receiver does not
	// hold it
	receiverFailed bool
}

// rederive is the complete re-derivation of the tally store checked, as
// commands to run: the stores are the --against ones as the operator
// named them (else those the bindings recorded), the cursor the one feed
// last named to the store (tallystore.RemakeOf).
func (o *options) rederive() string { return o.remake().String() }

// remake is rederive as a value.
func (o *options) remake() tallystore.Remake {
	r := tallystore.RemakeOf(o.dir)
	if len(o.against) > 0 {
		r.Stores = make([]string, len(o.against))
		for i, in := range o.against {
			r.Stores[i] = store.Spec{ID: in.ID, History: in.History, Path: in.Path}.String()
		}
	}
	return r
}

func parseOptions(c *cli.Context) (*options, error) {
	if c.NArg() != 1 {
		return nil, command.Usagef("tgcheck: name one tally store (a directory with document and tape), not %d arguments; see tgcheck --help", c.NArg())
	}
	o := &options{dir: c.Args().First(), entries: c.Int64("entries"), hasEntries: c.IsSet("entries"),
		scan: c.Bool("scan"), strict: c.Bool("strict"), batchSize: c.Int64("old-batch-size"), maxDrop: c.Float64("max-drop"),
		open: c.Bool("open")}
	if c.IsSet("batch-size") {
		if c.IsSet("old-batch-size") {
			return nil, command.Usagef("tgcheck: --batch-size is the old name of --old-batch-size; give only --old-batch-size")
		}
		o.batchSize = c.Int64("batch-size")
	}
	o.tapeChecks = o.hasEntries || c.IsSet("against") || o.scan || o.strict || c.IsSet("max-drop")
	var err error
	if o.receiver, err = parseReceiver(c); err != nil {
		return nil, err
	}
	if !o.tapeChecks && o.receiver == nil {
		return nil, command.Usagef("tgcheck: nothing to check; give --entries N, --against STORE, --scan, --strict, --max-drop P or --receiver URL")
	}
	if c.IsSet("max-drop") && !(o.maxDrop >= 0 && o.maxDrop <= 100) {
		return nil, command.Usagef("tgcheck: --max-drop %v is not a percentage; give one from 0 to 100, e.g. --max-drop 1", o.maxDrop)
	}
	if o.entries < 0 || o.batchSize < 1 || c.Int("max-line") < 1 {
		return nil, command.Usagef("tgcheck: --entries must be 0 or more, --old-batch-size and --max-line 1 or more")
	}
	for _, arg := range c.StringSlice("against") {
		sp, err := store.ParseSpec(arg)
		if err != nil {
			return nil, command.Usagef("tgcheck: --against %v", err)
		}
		if slices.ContainsFunc(o.against, func(s input) bool { return s.ID == sp.ID }) {
			return nil, command.Usagef("tgcheck: --against names store %s twice; give each store once, as ID=PATH or ID=GEN1,…,PATH", sp.ID)
		}
		o.against = append(o.against, input{ID: sp.ID, Path: sp.Path, History: sp.History, MaxLine: c.Int("max-line")})
	}
	return o, nil
}

// check runs the checks asked for, printing each result to w, and reports
// whether all hold, and whether what failed is only that the tape is open.
// An error means the checks could not be made.
func (o *options) check(w io.Writer) (holds, onlyOpen bool, err error) {
	load := loadStore
	if o.open {
		load = loadOpenStore
	}
	s, err := load(o.dir)
	if tape.Damaged(err) {
		return false, false, &tallystore.RemakeError{What: fmt.Sprintf("%v; it is not a record, so the tape was damaged or not written by tally: re-make it from its logs, ", err), Fix: o.remake(), Err: err}
	}
	if err != nil {
		return false, false, err
	}
	holds = true
	for _, k := range s.Tape.Later {
		fmt.Fprintf(w, "note: %s:%d: records of kind %q, which a later version added and this tgcheck does not know: passed over, they are counted in no check%s\n", s.TapePath, k.Line, k.Word, k.Beyond())
	}
	for _, f := range integrity(s) {
		fmt.Fprintf(w, "integrity: %s\n", f.What)
		holds = false
	}
	var derived *derivation
	if len(o.against) > 0 {
		if err := o.began(w); err != nil {
			return false, false, err
		}
		unfed, err := o.unfed(w)
		if err != nil {
			return false, false, err
		}
		holds = len(unfed) == 0 && holds
		if derived, err = o.derive(s); err != nil {
			return false, false, err
		}
		for id := range unfed {
			delete(derived.Beyond, id) // the list's shift: nothing feed would take
		}
		holds = compare(s, derived).print(w) && holds
		holds = printRecords(w, "marker", derived.Marks, s.TapePath) && holds
		holds = printRecords(w, "seal", derived.Ats, s.TapePath) && holds
	}
	open := false
	switch {
	case s.Tape.End != nil && (o.hasEntries || derived != nil):
		holds = printBalances(w, conserve(s, o.fed(derived))) && holds
		printBeyond(w, s.Tape.End, derived)
	case s.Tape.End == nil && o.open:
		// What --open accepts: conservation waits for the end record.
		fmt.Fprintf(w, "conservation: the tape is open (no end record), %s; conservation is checked once the input is complete\n", sealedSoFar(s.Tape))
	case o.hasEntries || derived != nil:
		// docs/design.md §6: conservation needs a complete tape; on an open one it
		// says how far the tape is sealed and fails, so that a tape that
		// lost its tail can never pass the proof.
		fmt.Fprintf(w, "conservation: the tape is open (no end record), %s; it can be checked once the input is complete, and what is sealed so far with --open\n", sealedSoFar(s.Tape))
		open = true
	}
	if o.scan {
		holds = printFindings(w, scan(s, o.batchSize), s.TapePath) && holds
	}
	// --strict and --max-drop hold a sound tape to a policy: a tape that
	// fails only them adds up, and re-deriving it would change nothing.
	addsUp := holds
	if o.strict {
		holds = printStrict(w, s.Tape) && holds
	}
	if o.maxDrop >= 0 || s.Tape.Totals[tape.Drop].Entries > 0 {
		holds = printDropRate(w, s.Tape, o.maxDrop) && holds
	}
	o.policyOnly = addsUp && !holds
	if holds && s.Tape.End == nil && o.open {
		fmt.Fprintf(w, "open: everything sealed so far holds: %s\n", sealedSoFar(s.Tape))
	}
	return holds && !open, holds && open, nil
}

// printDropRate prints the share of the entries the tape accounts for
// (sealed, !late and !drop) that are !drop, and fails when it is above
// maxDrop percent (maxDrop < 0: printed, not checked).
func printDropRate(w io.Writer, t *tape.Resolved, maxDrop float64) bool {
	drops := t.Totals[tape.Drop].Entries
	total := drops + t.Totals[tape.Late].Entries
	for _, seals := range t.Seals {
		total += seals[len(seals)-1].Entries
	}
	pct := 0.0
	if total > 0 {
		pct = 100 * float64(drops) / float64(total)
	}
	fmt.Fprintf(w, "drops: %d of %d entries (%.2f%%) are !drop\n", drops, total, pct)
	if maxDrop >= 0 && pct > maxDrop {
		fmt.Fprintf(w, "drops: above --max-drop %g%%; tgread --markers TAPE shows their reasons, and tally --try --fields --doc DOC FILE what the document's format cuts from such a line\n", maxDrop)
		return false
	}
	return true
}

// began starts the re-derivation of each store where the tape's counting
// of it began (DIR/bindings): a store first fed with feed --from end was
// never fed its entries before that position, and says so.
func (o *options) began(w io.Writer) error {
	began, err := tallystore.Began(o.dir)
	if err != nil {
		return fmt.Errorf("tgcheck: %v", err) // a store that cannot be read: exit 1, as the help says
	}
	for i := range o.against {
		in := &o.against[i]
		if in.From = began[in.ID]; in.From > 0 {
			fmt.Fprintf(w, "against: store %s is re-derived from position %d, where the tape's feeding of it began (feed --from end; %s): its entries before it were never fed\n",
				in.ID, in.From, tallystore.At(o.dir).Bindings())
		}
	}
	return nil
}

// derive re-derives the buckets from the --against stores, each up to the
// largest position the tape records for it (on a complete tape, that of its
// end record). A tape is checked against every store it names: the entries
// of a store left out, and its markers, would go unchecked.
func (o *options) derive(s *tallyStore) (*derivation, error) {
	known := knownPositions(s.Tape)
	for _, id := range slices.Sorted(maps.Keys(known)) {
		if !slices.ContainsFunc(o.against, func(src input) bool { return src.ID == id }) {
			return nil, command.Usagef("tgcheck: the tape accounts for entries of store %s; give it with --against %s=PATH", id, id)
		}
	}
	for _, src := range o.against {
		if _, ok := known[src.ID]; !ok && s.Tape.End != nil {
			return nil, command.Usagef("tgcheck: the tape was never fed from store %s; give the stores by the ids they were fed as (ID=PATH)", src.ID)
		}
	}
	d, err := derive(s.Doc, s.Tape, o.against)
	if err != nil {
		// A store that cannot be read, or is shorter than the tape
		// accounts for: a failed check, not a usage error.
		return nil, err
	}
	return d, nil
}

// skips returns the ranges of store id that feed delivered as no entry:
// its !drop markers with a skip's reason, in position order.
func skips(t *tape.Resolved, id string) [][2]int64 {
	var r [][2]int64
	for _, m := range t.Markers {
		if m.ID == id && isSkip(m) {
			r = append(r, [2]int64{m.Offset, m.End})
		}
	}
	slices.SortFunc(r, func(a, b [2]int64) int { return cmp.Compare(a[0], b[0]) })
	return r
}

// seriesOnTape returns whether the tape has a series, by its text, in a
// bucket.
func seriesOnTape(t *tape.Resolved) func(int64, string) bool {
	view := viewBuckets(t)
	return func(start int64, series string) bool {
		b := view[start]
		if b == nil {
			return false
		}
		_, ok := b.series[series]
		return ok
	}
}

// isSkip reports whether m is the !drop marker of a skip: a range feed
// delivered as no entry.
func isSkip(m tape.Placed) bool {
	return m.Kind == tape.Drop && (m.Reason == store.SkipTooLong || m.Reason == store.SkipUnterminated)
}

// entryMarkers returns store id's markers that cover entries: all but a
// skip's !drop markers.
func entryMarkers(t *tape.Resolved, id string) []tape.Placed {
	var ms []tape.Placed
	for _, m := range t.Markers {
		if m.ID == id && !isSkip(m) {
			ms = append(ms, m)
		}
	}
	return ms
}

// printRecords writes the findings of the tape's markers or seals that the
// stores' entries contradict, and reports whether there were none.
func printRecords(w io.Writer, what string, fs []finding, tapePath string) bool {
	for _, f := range fs {
		fmt.Fprintf(w, "%s: %s:%d: %s\n", what, tapePath, f.Line, f.What)
	}
	return len(fs) == 0
}

// printBeyond says, for a complete tape, how many complete lines each store
// has past the end record's position: they were never fed (the store grew
// after the run, or a run stopped short), so conservation cannot see them.
func printBeyond(w io.Writer, end *tape.Record, d *derivation) {
	if d == nil {
		return
	}
	for _, p := range end.At {
		if n := d.Beyond[p.ID]; n > 0 {
			fmt.Fprintf(w, "note: store %s has %d complete lines after the end record's position %d: they were not fed (the store grew after the run, or the run stopped short); run feed again to take them\n", p.ID, n, p.Pos)
		}
	}
}

// fed is the number of entries fed: --entries when given, else those
// counted in the --against stores.
func (o *options) fed(d *derivation) int64 {
	if o.hasEntries {
		return o.entries
	}
	var n int64
	for _, c := range d.Fed {
		n += c
	}
	return n
}

// printStrict fails on any marker: with --strict every entry must be in
// its own bucket.
func printStrict(w io.Writer, t *tape.Resolved) bool {
	ok := true
	for _, k := range []tape.Kind{tape.Late, tape.Cap, tape.Drop} {
		if tot := t.Totals[k]; tot.Markers > 0 {
			ok = false
			fmt.Fprintf(w, "strict: %d %s markers (%d entries)\n", tot.Markers, k, tot.Entries)
		}
	}
	return ok
}
