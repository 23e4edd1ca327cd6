package serve

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/timbertally/timbertally/lib/internal/command"
	"github.com/timbertally/timbertally/lib/internal/label"
	"github.com/urfave/cli/v2"
)

const description = `tgserve serves the tapes of tally stores for scrape, on /metrics, in the
Prometheus text format or OpenMetrics (by the scraper's Accept header): each
count and sum metric as a counter NAME_total, the sum of its values over every
sealed bucket of the tape; each histogram as a cumulative classic histogram
(NAME_bucket with le in Prometheus's float form, NAME_sum, NAME_count); each
min and max metric as a gauge, its value in the newest sealed bucket (absent
when that bucket had no entry for it); and the data-quality counters
timbertally_entries_total, timbertally_late_entries_total,
timbertally_dropped_entries_total{reason} and
timbertally_capped_entries_total{metric}. OpenMetrics adds each counter's and
histogram's _created: the start of the first bucket that held it.

The values are the tape's and nothing else: a restart reads the tape again
and serves the same totals (a counter never resets), and a scrape sees whole
sealed buckets only. tgserve answers nothing until it has read every tape to
its end, so a scrape during a restart fails (up is 0) rather than see a lower
count. It then follows the tapes as tally seals, a bucket at a time. Each
series carries tally_store="NAME", the store directory's name, and the
--label labels; a --label may not name a label the store's series have.
Beside them: timbertally_newest_bucket_end_seconds{tally_store}, the end of the
newest sealed bucket (for an alert on a stalled tally), and tgserve's own
process and Go metrics. / is a page linking to /metrics.

A bucket is sealed when the log's time passes its end by the document's
grace: a count over the last minute read with rate() or increase() lags by
window + grace; use offset for a panel of finished buckets (docs/tgserve.md).

--web.config.file takes the Prometheus exporters' web configuration file
(TLS, client certificates, basic auth with bcrypt-hashed passwords, headers):
the format of Prometheus's own --web.config.file.

Exit status: 0 stopped by SIGINT or SIGTERM; 1 a store cannot be read, its
tape is damaged or was replaced (run tgserve again: the counters start again
from the new tape, one reset), the address cannot be listened on; 2 bad usage.

Examples:
   tgserve /var/lib/timbertally/web
   tgserve --listen 127.0.0.1:9864 --label host=web1 /var/lib/timbertally/*
   tgserve --web.config.file /etc/timbertally/web.yml /var/lib/timbertally/web
   curl -s http://127.0.0.1:9864/metrics | grep requests_total`

// DefaultListen is the address tgserve listens on unless told.
const DefaultListen = ":9864"

// Options is a checked tgserve command line.
type Options struct {
	Stores    []string
	Listen    string
	Labels    []string // K=V, as given
	WebConfig string   // --web.config.file
	Poll      time.Duration
	Version   string // for the / page
	Stderr    io.Writer
}

// Main runs the tgserve command line on os.Args and returns its exit status.
func Main() int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	return run(ctx, os.Args, os.Stdout, os.Stderr)
}

// App is tgserve's command line, for its man page (docs/man).
func App() *cli.App { return newApp(os.Stdout, os.Stderr, new(*Options)) }

func newApp(stdout, stderr io.Writer, o **Options) *cli.App {
	return command.Conventions(&cli.App{
		Name:        "tgserve",
		Usage:       "serve tally stores' tapes as counters for Prometheus to scrape",
		UsageText:   "tgserve [--listen ADDR] [--label K=V]... [--web.config.file FILE] TALLYSTORE...",
		Description: description,
		Writer:      stdout,
		ErrWriter:   stderr,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "listen", Value: DefaultListen, Usage: "listen on `ADDR` (host:port; :9864 is every address)"},
			&cli.StringSliceFlag{Name: "label", Usage: "add `K=V` to every series of every store (repeat; a fleet's host=web1)"},
			&cli.StringFlag{Name: "web.config.file", Usage: "TLS and basic auth from `FILE` (the Prometheus exporters' web configuration)"},
			&cli.DurationFlag{Name: "poll", Value: 250 * time.Millisecond, Usage: "look at the followed tapes this often (`D`)"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return command.Usagef("tgserve: name at least one tally store (a directory tally --provision made); see tgserve --help")
			}
			if c.Duration("poll") <= 0 {
				return command.Usagef("tgserve: --poll must be positive, not %s", c.Duration("poll"))
			}
			if _, err := label.ParseFlags("tgserve", c.StringSlice("label")); err != nil {
				return command.Usage(err)
			}
			*o = &Options{Stores: c.Args().Slice(), Listen: c.String("listen"), Labels: c.StringSlice("label"),
				WebConfig: c.String("web.config.file"), Poll: c.Duration("poll"), Version: c.App.Version, Stderr: stderr}
			return nil
		},
	})
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var o *Options
	app := newApp(stdout, stderr, &o)
	err := app.Run(command.Interspersed(app, args))
	if err == nil && o != nil {
		err = Run(ctx, o)
	}
	return command.Status(stderr, err)
}
