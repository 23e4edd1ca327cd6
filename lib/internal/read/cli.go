// Package read is tgread: it resolves tapes (docs/design.md §6) and prints what they
// say.
//
// Invariants:
//   - One value per (bucket, series) and tape: a later line for the pair
//     replaces an earlier one, and a differing duplicate (the old defect's
//     fragment) is reported on stderr once per pair.
//   - Several tapes merge by their metrics' kinds: a sum for count and sum
//     metrics (and for metrics no document names), min of mins, max of
//     maxes; --by-tape keeps them apart with a tape label instead.
//   - Memory is bounded by the (bucket, series) pairs the filters select:
//     tapes stream through tape.Resolve with the filters applied. A stream
//     (stdin, --follow) holds one group and the printed values of the 64
//     newest sealed buckets, however long it runs.
//   - --follow prints whole groups only, from the tape's start (a group
//     boundary), and stops when the tape is replaced.
//   - A well-formed line of a kind a later version added is passed over
//     (tape.ParseOrLater decides, for every reader of a tape), with a note
//     per kind on stderr; any other line that is no record fails the read.
//   - stdout holds only the chosen format; everything for humans is on
//     stderr. Exit 0 ok, 1 runtime error, 2 usage.
package read

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/timbertally/timbertally/lib/internal/command"
	"github.com/timbertally/timbertally/lib/internal/doc"
	"github.com/timbertally/timbertally/lib/internal/tape"
	"github.com/urfave/cli/v2"
)

// Main runs the tgread command line on os.Args and returns its exit status.
func Main() int {
	tty := isatty.IsTerminal(os.Stdout.Fd()) || isatty.IsCygwinTerminal(os.Stdout.Fd())
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	return runContext(ctx, os.Args, os.Stdin, os.Stdout, os.Stderr, tty, time.Now())
}

const description = `Resolves tally tapes: one value per (bucket, series), the last line for a
pair winning, and prints them. A TALLYSTORE is a directory made by tally
--provision (its tape, and its document for metric kinds); a TAPE is a file;
none, or -, reads stdin, where a torn last line (a tape being written) is left
out and each bucket is printed as its seal arrives, so that tail -f -n +1 tape |
tgread - shows buckets as tally writes them (not with --step, --markers or
openmetrics, svg or --plot, which need the whole tape). Series whose bucket
has no seal in a tape that has seals (a group being written, or cut short by a
crash) are left out with a note. Several tapes merge by summing each series
(min of mins, max of maxes), or stay apart with --by-tape.

--follow TALLYSTORE prints the tape's groups as tally seals them, from the
tape's start (a group boundary: never half a group), until stopped; not with
--step, --markers, openmetrics, svg or --plot.

--from/--to take RFC 3339 or a duration relative to now (-1h); from is
inclusive, to exclusive, and both select bucket starts. --step rolls buckets up
to a coarser step aligned to the Unix epoch; it needs each metric's kind, from
the store's document or, for a bare tape, from --kind METRIC=KIND. With --step
every row is a whole step: a --from or --to inside a step is widened to the
step's start or end, with a note on stderr.

--quantile Q[,Q...] prints, instead of the values, each histogram's estimated
quantiles per bucket (or --step), as Prometheus's histogram_quantile estimates
them, from the buckets of every tape named summed first: a fleet's p99 is the
p99 of the fleet's requests. A row is the histogram's name, its labels with
quantile=Q, and the estimate.

--plot draws each series as a bar chart in the terminal, --width (or
$COLUMNS, or else the terminal's own width) wide, all on one time axis;
--format svg writes one line chart of
every series, with axes and a legend, for a browser or an image viewer.

--markers lists the !late, !drop and !cap markers in tape syntax, whatever the
format, then a total per kind (# total !late markers=N entries=M). --metric
selects !cap markers only (a !late or !drop holds entries of every metric), and
--from/--to never hide a !drop (it has no bucket).

Exit status: 0 success; 1 a runtime error (a missing or damaged tape or
document, tapes that disagree on a metric's kind, output that cannot be
written); 2 bad usage.

Examples:
   tgread /var/lib/tally/web                       what the store's tape says
   tgread --format csv --metric requests --from -1h /var/lib/tally/web
   tgread --step 1m --format json web-a web-b      the fleet, per minute
   tgread --format openmetrics web > web.om && promtool tsdb create-blocks-from openmetrics web.om data
   tail -f web/tape | tgread -
   tgread --follow --from -10m web                  buckets as tally seals them
   ssh host cat /var/lib/tally/web/tape | tgread --kind requests=count,bytes=sum --step 1h -
   tgread --markers web                            what was late, dropped or capped
   tgread --plot --metric requests --step 1m web   a chart per status, a minute a column
   tgread --format svg --metric bytes web > bytes.svg
   tgread --quantile 0.5,0.99 --step 1m web-a web-b  the fleet's median and p99 latency a minute
   tgread --plot --quantile 0.5,0.99 --metric latency web   p50 and p99 over time`

// App is tgread's command line, for its man page (docs/man).
func App() *cli.App { return app(os.Stdout, os.Stderr, &settings{}) }

func app(stdout, stderr io.Writer, settings *settings) *cli.App {
	a := command.Conventions(&cli.App{
		Name:        "tgread",
		Usage:       "resolve tally tapes and print their metrics",
		UsageText:   "tgread [--format F] [--metric M] [--from T] [--to T] [--step D] [--kind M=K] [--quantile Q,...] [--markers] [--by-tape] [--label K=V]... [--plot] [--width N] TALLYSTORE|TAPE|- ...\n   tgread --follow [--format F] [--metric M] [--from T] [--to T] [--quantile Q,...] [--label K=V]... TALLYSTORE",
		Description: description,
		Writer:      stdout,
		ErrWriter:   stderr,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Usage: "table, tsv, csv, json, tape, openmetrics or svg (default: table on a terminal, else tsv)"},
			&cli.StringSliceFlag{Name: "metric", Aliases: []string{"m"}, Usage: "only these metrics (repeat, or a comma list)"},
			&cli.StringFlag{Name: "from", Usage: "first bucket start, inclusive: RFC 3339 or relative to now (-1h)"},
			&cli.StringFlag{Name: "to", Usage: "last bucket start, exclusive: RFC 3339 or relative to now (-10m)"},
			&cli.DurationFlag{Name: "step", Usage: "roll buckets up to this step, aligned to the epoch (1m, 1h)"},
			&cli.StringSliceFlag{Name: "kind", Usage: "METRIC=" + strings.Join(doc.MetricKindWords(), "|") + " for tapes without a document (for --step and --quantile)"},
			&cli.BoolFlag{Name: "markers", Usage: "list the markers with a total per kind instead of the values"},
			&cli.BoolFlag{Name: "by-tape", Usage: "keep the tapes apart with a tape label instead of merging them"},
			&cli.StringSliceFlag{Name: "label", Usage: "add `K=V` to every series that has no label K (repeat; as tgpush --label adds it)"},
			&cli.BoolFlag{Name: "plot", Usage: "draw a chart of each series over time instead of printing values"},
			&cli.StringSliceFlag{Name: "quantile", Usage: "Q[,Q...]: estimate these quantiles (0.5, 0.99) of each histogram as Prometheus's histogram_quantile does, after merging"},
			&cli.IntFlag{Name: "width", Value: 80, EnvVars: []string{"COLUMNS"}, DefaultText: "$COLUMNS, else the terminal's width, else 80", Usage: "columns a --plot chart fills, labels included"},
			&cli.BoolFlag{Name: "follow", Usage: "print the tape's sealed buckets as they are sealed, until stopped (one TALLYSTORE)"},
		},
		Action: func(c *cli.Context) error { return settings.parse(c) },
	})
	return command.Choices(a, "format", formatNames()...)
}

// settings is a parsed command line.
type settings struct {
	now      time.Time
	tty      bool
	format   string
	opt      tape.Options
	view     view
	kindArgs map[string]doc.MetricKind
	markers  bool
	plot     bool
	quantile []float64 // --quantile: show these of each histogram instead of the values
	width    int       // of a --plot chart
	names    []string
	follow   bool
	poll     time.Duration // how often --follow looks at the tape
	parsed   bool
	notes    []string // said on stderr once the command line is parsed
}

func (s *settings) parse(c *cli.Context) error {
	s.parsed = true
	s.format = c.String("format")
	if s.format == "" {
		s.format = "tsv"
		if s.tty {
			s.format = "table"
		}
	}
	if _, ok := formats[s.format]; !ok {
		return command.Usagef("tgread: --format %s is not one of %s", s.format, strings.Join(formatNames(), ", "))
	}
	if m := c.StringSlice("metric"); len(m) > 0 {
		s.opt.Metrics = m
	}
	var err error
	if s.opt.From, err = parseTime(c.String("from"), s.now); err != nil {
		return command.Usagef("tgread: --from %v", err)
	}
	if s.opt.To, err = parseTime(c.String("to"), s.now); err != nil {
		return command.Usagef("tgread: --to %v", err)
	}
	if s.view.step = c.Duration("step"); s.view.step < 0 || (s.view.step == 0 && c.IsSet("step")) {
		return command.Usagef("tgread: --step %v is not a step; give one such as 1m", s.view.step)
	}
	s.alignToStep(c.String("from"), c.String("to"))
	if c.IsSet("from") && c.IsSet("to") && !s.opt.From.Before(s.opt.To) {
		return command.Usagef("tgread: --from %s is not before --to %s: the range holds no bucket", c.String("from"), c.String("to"))
	}
	if s.kindArgs, err = parseKinds(c.StringSlice("kind")); err != nil {
		return command.Usage(err)
	}
	s.markers, s.view.byTape = c.Bool("markers"), c.Bool("by-tape")
	if s.view.labels, err = ParseLabels("tgread", c.StringSlice("label")); err != nil {
		return command.Usage(err)
	}
	s.plot, s.width = c.Bool("plot"), c.Int("width")
	if w, ok := terminalWidth(); ok && s.plot && !c.IsSet("width") { // neither --width nor COLUMNS
		s.width = w
	}
	if s.quantile, err = parseQuantiles(c.StringSlice("quantile")); err != nil {
		return command.Usage(err)
	}
	s.opt.Metrics = withHistogramSeries(s.opt.Metrics, s.kindArgs)
	if len(s.quantile) > 0 && s.markers {
		return command.Usage(errors.New("tgread: --quantile estimates from the values and --markers lists the markers instead of them; give one of the two"))
	}
	if s.plot && (c.IsSet("format") || s.markers) {
		return command.Usage(errors.New("tgread: --plot draws the values, so it takes no --format and no --markers; leave them out or drop --plot"))
	}
	s.names = c.Args().Slice()
	if s.follow = c.Bool("follow"); s.follow {
		switch {
		case len(s.names) != 1 || s.names[0] == "-":
			return command.Usagef("tgread: --follow follows one tally store (or tape file), not stdin; name it (a pipe is followed without --follow: tail -f tape | tgread -)")
		case !s.streamable():
			return command.Usagef("tgread: --follow prints group by group, which --step, --markers, --plot, openmetrics and svg cannot (they need the whole tape); leave them out")
		}
	}
	if len(s.names) == 0 {
		s.names = []string{"-"}
	}
	stdins := 0
	for _, n := range s.names {
		if n == "-" {
			stdins++
		}
	}
	if stdins > 1 {
		return command.Usage(errors.New("tgread: stdin (-) is named more than once; name it once"))
	}
	return nil
}

// alignToStep widens --from and --to to whole --step steps, and says so
// when it moved one: a step only partly inside the range would otherwise be
// a row holding part of a step under the step's whole label (--from
// 13:56:30Z --step 1m: a 13:56:00Z row of half a minute), and a relative
// --from (-10m) is almost never on a step boundary. Rows are whole steps,
// always; the range asked for is inside them.
func (s *settings) alignToStep(from, to string) {
	if s.view.step <= 0 {
		return
	}
	step := int64(s.view.step)
	if !s.opt.From.IsZero() {
		if f := s.view.bucket(s.opt.From.UnixNano()); f != s.opt.From.UnixNano() {
			s.opt.From = time.Unix(0, f).UTC()
			s.notes = append(s.notes, fmt.Sprintf("tgread: --from %s is inside a %v step: rows are whole steps, from %s", from, s.view.step, s.opt.From.Format(time.RFC3339Nano)))
		}
	}
	if !s.opt.To.IsZero() {
		if t := s.view.bucket(s.opt.To.UnixNano()); t != s.opt.To.UnixNano() {
			s.opt.To = time.Unix(0, t+step).UTC()
			s.notes = append(s.notes, fmt.Sprintf("tgread: --to %s is inside a %v step: rows are whole steps, up to %s", to, s.view.step, s.opt.To.Format(time.RFC3339Nano)))
		}
	}
}

// parseTime reads an RFC 3339 time or a duration relative to now; "" is
// no bound (the zero time).
func parseTime(v string, now time.Time) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t, nil
	}
	if d, err := time.ParseDuration(v); err == nil {
		return now.Add(d), nil
	}
	return time.Time{}, fmt.Errorf("%q is neither an RFC 3339 time (2026-10-10T13:55:30Z) nor a duration from now (-1h)", v)
}

func parseKinds(args []string) (map[string]doc.MetricKind, error) {
	kinds := map[string]doc.MetricKind{}
	for _, a := range args {
		name, k, _ := strings.Cut(a, "=")
		kind, ok := doc.ParseMetricKind(k)
		if !ok || !tape.ValidMetric(name) {
			return nil, fmt.Errorf("tgread: --kind %s is not METRIC=%s", a, strings.Join(doc.MetricKindWords(), "|"))
		}
		kinds[name] = kind
	}
	return kinds, nil
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer, tty bool, now time.Time) int {
	return runContext(context.Background(), args, stdin, stdout, stderr, tty, now)
}

// runContext is run with a context that stops --follow (a signal).
func runContext(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, tty bool, now time.Time) int {
	s := &settings{now: now, tty: tty, poll: followPoll}
	a := app(stdout, stderr, s)
	err := a.Run(command.Interspersed(a, args))
	if err == nil && s.parsed { // not --help
		for _, n := range s.notes {
			fmt.Fprintln(stderr, n)
		}
		w := bufio.NewWriterSize(stdout, 64<<10)
		err = command.PermissionFix("tgread", s.print(ctx, w, stdin, stderr))
		if ferr := w.Flush(); err == nil && ferr != nil {
			err = fmt.Errorf("tgread: cannot write the output: %v", ferr)
		}
	}
	return command.Status(stderr, err)
}

// print resolves every tape named and writes what --format and --markers ask.
func (s *settings) print(ctx context.Context, w *bufio.Writer, stdin io.Reader, stderr io.Writer) error {
	switch {
	case s.follow:
		return s.followTape(ctx, w, s.names[0], stderr)
	case s.streams():
		return s.stream(w, stdin, "stdin", false, stderr)
	}
	var srcs []*source
	for _, name := range s.names {
		src, err := open(name, stdin, s.opt, stderr)
		if err != nil {
			return err
		}
		srcs = append(srcs, src)
	}
	if s.markers {
		writeMarkers(w, srcs, s.view.byTape)
		return nil
	}
	if err := s.knownMetrics(srcs); err != nil {
		return err
	}
	kinds, err := mergeKinds(srcs, s.kindArgs)
	if err != nil {
		return err
	}
	s.view.kinds = kinds
	if !s.view.byTape {
		noteBounds(srcs, stderr)
	}
	s.plotStep(srcs)
	if err := s.view.checkStep(srcs); err != nil {
		return command.Usage(err)
	}
	rows, err := s.view.rows(srcs)
	if err != nil {
		return err
	}
	if len(s.quantile) > 0 {
		read := len(rows)
		if rows, err = quantileRows(rows, s.quantile, kinds); err != nil {
			return err
		}
		if len(rows) == 0 && read > 0 {
			fmt.Fprintln(stderr, "tgread: note: --quantile found no histogram among the series read: no NAME_bucket series with an le label (of a tally store, NAME must be a histogram of its document); select one with --metric NAME")
		}
	}
	if s.plot {
		if len(s.quantile) > 0 {
			kinds = quantileKinds(rows, kinds)
		}
		writePlot(w, newChart(rows), s.width, kinds)
		return nil
	}
	order := byTime
	if s.format == "openmetrics" {
		order = bySeries
		if len(s.quantile) == 0 { // a backfill: what tgpush sends with the buckets
			rows = append(rows, s.view.qualityRows(srcs)...)
		}
	}
	slices.SortFunc(rows, order)
	return formats[s.format](w, rows, true)
}

// knownMetrics refuses a --metric that no named tally store's document
// defines, when every source is a tally store (a bare tape's metrics are
// not known beforehand): an empty table would say nothing of the typo.
func (s *settings) knownMetrics(srcs []*source) error {
	defined := map[string]bool{}
	for _, src := range srcs {
		if src.kinds == nil {
			return nil
		}
		for m, k := range src.kinds {
			defined[m] = true
			if k == doc.Histogram {
				for _, suffix := range doc.HistogramSuffixes {
					defined[m+suffix] = true
				}
			}
		}
	}
	for _, m := range s.opt.Metrics {
		if !defined[m] {
			return command.Usagef("tgread: --metric %s is not a metric of the document (%s)", m, strings.Join(slices.Sorted(maps.Keys(defined)), ", "))
		}
	}
	return nil
}

// mergeKinds gathers the metric kinds of every tape's document and --kind;
// two tapes that disagree on a metric's kind cannot be merged.
func mergeKinds(srcs []*source, args map[string]doc.MetricKind) (map[string]doc.MetricKind, error) {
	kinds := map[string]doc.MetricKind{}
	from := map[string]string{}
	for _, src := range srcs {
		for m, k := range src.kinds {
			if old, ok := kinds[m]; ok && old != k {
				return nil, fmt.Errorf("tgread: %s and %s give metric %s different kinds, so it cannot be merged; read them apart", from[m], src.name, m)
			}
			kinds[m], from[m] = k, src.name
		}
	}
	for m, k := range args {
		if old, ok := kinds[m]; ok && old != k {
			return nil, fmt.Errorf("tgread: --kind %s disagrees with the document of %s; leave it out", m, from[m])
		}
		kinds[m] = k
	}
	return kinds, nil
}

// writeMarkers lists each tape's markers in tape syntax, then the total
// per kind over all of them.
func writeMarkers(w *bufio.Writer, srcs []*source, byTape bool) {
	totals := map[tape.Kind]tape.Totals{}
	var b []byte
	for _, src := range srcs {
		if byTape {
			fmt.Fprintf(w, "# tape %s\n", src.name)
		}
		for _, m := range src.res.Markers {
			b = tape.Append(b[:0], &m.Record)
			w.Write(b)
		}
		for k, t := range src.res.Totals {
			sum := totals[k]
			sum.Markers += t.Markers
			sum.Entries += t.Entries
			totals[k] = sum
		}
	}
	for _, k := range []tape.Kind{tape.Late, tape.Drop, tape.Cap} {
		fmt.Fprintf(w, "# total %s markers=%d entries=%d\n", k, totals[k].Markers, totals[k].Entries)
	}
}
