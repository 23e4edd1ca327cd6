package feed

import (
	"fmt"
	"os"
	"os/signal"
	"slices"
	"syscall"

	"github.com/mattn/go-isatty"
	"github.com/timbertally/timbertally/lib/internal/command"
	"github.com/timbertally/timbertally/lib/internal/store"
	"github.com/urfave/cli/v2"
)

const description = `feed follows append-only stores and hands their entries, in batches, to a
consumer it starts itself (argv, no shell), over the line protocol on the
consumer's stdin and stdout. It sends nothing more for a store until the
consumer has taken its last batch (the park), and persists each store's last
reported offset in the cursor file.

Without --follow, each store is read to its end, "end id=" is sent for each,
and feed exits when the consumer does. A signal or --max stops it without
"end": the consumer seals nothing early; run the same command to continue.

A store named ID=GEN1,GEN2,…,PATH is read from its oldest generation (each
plain or gzip, as its content says) to PATH, on one axis of positions, as if
they were one file. --glob PATTERN names every regular file it matches as a
store, its id the text the wildcards matched; with --follow, a new file that
matches joins within an idle tick, and one removed ends once read. With
--follow, a file that does not exist yet is waited for.

Exit status: 0 every store was read to its end and the consumer exited 0, or
--max was reached; 1 a runtime error (the consumer failed or sent a bad report,
a store shorter than its cursor, I/O); 2 bad usage; 128 + the signal when
interrupted (130 SIGINT, 143 SIGTERM; the cursor holds the last reported offsets).

Examples:
   feed --cursor web.cursor --follow web1=/var/log/apache2/access.log -- tally --run /srv/tally/web
   tally --provision --replace --doc apache-combined /srv/tally/web   # then re-derive from every generation:
   feed --cursor web.cursor --reset web1=access.log.2.gz,access.log.1,access.log -- tally --run /srv/tally/web
   feed --cursor c.cursor --follow --glob '/var/log/containers/*/access.log' -- tally --run /srv/tally/c`

// Main runs the feed command line on os.Args and returns its exit status.
func Main() int {
	var status int
	app := newApp(&status)
	err := app.Run(command.Interspersed(app, os.Args))
	switch {
	case command.IsUsage(err):
		fmt.Fprintln(os.Stderr, err)
		return 2
	case err != nil:
		fmt.Fprintln(os.Stderr, err)
		return max(status, 1)
	}
	return status
}

// App is feed's command line, for its man page (docs/man).
func App() *cli.App { return newApp(new(int)) }

// newApp is feed's command line; its action leaves the run's exit status
// in *status.
func newApp(status *int) *cli.App {
	app := command.Conventions(&cli.App{
		Name:      "feed",
		Usage:     "follow stores and hand their entries to a consumer",
		UsageText: "feed [options] STORE... -- CONSUMER [ARG...]\n   (STORE is PATH, ID=PATH, or ID=GEN1,…,PATH with its older generations, oldest first)",
		// --glob's patterns may hold commas: a value is one pattern.
		DisableSliceFlagSeparator: true,
		Description:               description,
		Flags:                     flags(),
		Action: func(c *cli.Context) error {
			opt, err := options(c)
			if err != nil {
				return err
			}
			signals := make(chan os.Signal, 2) // the second one kills the consumer
			signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)
			defer signal.Stop(signals)
			*status, err = Run(opt, signals)
			return err
		},
	})
	return command.Choices(app, "from", "start", "end")
}

func flags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "glob", Usage: "every regular file matching `PATTERN` (quoted from the shell) is a store, its id the text the wildcards matched; following, new ones join; repeatable"},
		&cli.StringFlag{Name: "cursor", Usage: "persist each store's last reported offset in `FILE`, and resume from it"},
		&cli.BoolFlag{Name: "follow", Usage: "keep following the stores as they grow (poll every 250 ms); never send end"},
		&cli.IntFlag{Name: "batch-size", Value: 512, Usage: "at most `N` entries per batch"},
		&cli.Int64Flag{Name: "max", Usage: "stop after `N` entries in all, as an interrupt (no end); 0: no limit"},
		&cli.BoolFlag{Name: "reset", Usage: "ignore the cursor: every store from 0 (to re-derive a tally store)"},
		&cli.StringFlag{Name: "from", Value: "start", Usage: "where a store the cursor does not know starts: `start|end`"},
		&cli.DurationFlag{Name: "idle-tick", Value: defaultIdleTick, Usage: "send idle this often for a store at its live edge (`D`)"},
		&cli.IntFlag{Name: "max-line", Value: store.DefaultMaxLine, Usage: "a line over `BYTES` is sent as a skip, not an entry"},
		&cli.DurationFlag{Name: "stall", Value: defaultStall, Usage: "warn once when a store is parked this long with no report (`D`; 0: never)"},
		&cli.DurationFlag{Name: "rotate-wait", Value: defaultRotateWait, Usage: "after a rename rotation, read the renamed file on until it has been quiet this long (`D`) before the new one: its writer may still hold it"},
		&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no notes and no progress line (warnings and errors still print)"},
	}
}

// options checks the command line and builds the run's Options.
func options(c *cli.Context) (Options, error) {
	args := c.Args().Slice()
	dash := slices.Index(args, "--")
	globs := c.StringSlice("glob")
	if dash < 0 && len(globs) > 0 && slices.Contains(os.Args, "--") {
		dash, args = 0, append([]string{"--"}, args...) // the stores are all --glob's
	}
	// The flag parser takes a "--" that directly follows the options, so
	// "feed -q -- tally ..." arrives without it: no store was named (Main
	// parses os.Args).
	if dash == 0 && len(globs) == 0 || dash < 0 && len(args) > 0 && slices.Contains(os.Args, "--") {
		return Options{}, command.Usagef("feed: name at least one store before --: feed [options] STORE... -- CONSUMER [ARG...]")
	}
	if dash < 0 || dash+1 == len(args) {
		return Options{}, command.Usagef("feed: name the consumer after --: feed [options] STORE... -- CONSUMER [ARG...]")
	}
	opt := Options{
		Consumer:   args[dash+1:],
		Globs:      globs,
		Cursor:     c.String("cursor"),
		Follow:     c.Bool("follow"),
		BatchSize:  c.Int("batch-size"),
		Max:        c.Int64("max"),
		Reset:      c.Bool("reset"),
		IdleTick:   c.Duration("idle-tick"),
		MaxLine:    c.Int("max-line"),
		Stall:      c.Duration("stall"),
		RotateWait: c.Duration("rotate-wait"),
		Quiet:      c.Bool("quiet"),
		Stderr:     os.Stderr,
	}
	opt.Progress = !opt.Quiet && isatty.IsTerminal(os.Stderr.Fd())
	switch c.String("from") {
	case "start":
	case "end":
		opt.FromEnd = true
	default:
		return Options{}, command.Usagef("feed: --from is start or end, not %q", c.String("from"))
	}
	switch {
	case opt.BatchSize < 1:
		return Options{}, command.Usagef("feed: --batch-size must be at least 1, not %d", opt.BatchSize)
	case opt.Max < 0:
		return Options{}, command.Usagef("feed: --max must be 0 (no limit) or more, not %d", opt.Max)
	case opt.MaxLine < 1:
		return Options{}, command.Usagef("feed: --max-line must be at least 1 byte, not %d", opt.MaxLine)
	case opt.IdleTick <= 0:
		return Options{}, command.Usagef("feed: --idle-tick must be positive, not %v", opt.IdleTick)
	case opt.Stall < 0:
		return Options{}, command.Usagef("feed: --stall must be 0 (never) or positive, not %v", opt.Stall)
	case opt.RotateWait < 0:
		return Options{}, command.Usagef("feed: --rotate-wait must be 0 (take the new file at once) or positive, not %v", opt.RotateWait)
	}
	for _, p := range globs {
		if err := store.CheckGlob(p); err != nil {
			return Options{}, command.Usagef("feed: --glob: %v", err)
		}
	}
	seen := map[string]bool{}
	for _, arg := range args[:dash] {
		sp, err := store.ParseSpec(arg)
		if err != nil {
			return Options{}, command.Usagef("feed: %v", err)
		}
		if seen[sp.ID] {
			return Options{}, command.Usagef("feed: two stores are named %s; name them ID=PATH", sp.ID)
		}
		seen[sp.ID] = true
		opt.Stores = append(opt.Stores, sp)
	}
	return opt, nil
}
