package synth

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/timbertally/timbertally/lib/internal/command"
	"github.com/urfave/cli/v2"
)

const description = `Writes N deterministic log lines: the same flags give the same bytes.
Apache combined, or with --format apache-timed (combined + duration, vhost,
X-Forwarded-For), nginx (combined + request and upstream times), json
(Caddy-like) or logfmt. The benchmark script, the demo and the test
scenarios make their logs with it.

Exit status: 0 written; 1 the output could not be written; 2 bad usage.

Examples:
   tgsynth --lines 20000 --output access.log                 20 000 lines at ~100/s of log time
   tgsynth --lines 1536 --rate 51.2 --steady --statuses 200  exactly 512 lines per 10 s window
   tgsynth --lines 100000 --jitter 3s --malformed 0.01       out-of-order stamps, 1% bad lines
   tgsynth --lines 20000 --format json --output caddy.log   JSON lines with durations
   tgsynth --lines 20000 --format nginx --realistic          the real world's hard cases`

// Main runs the tgsynth command line on os.Args and returns its exit
// status.
func Main() int {
	return run(os.Args[1:], os.Stdout, os.Stderr)
}

// App is tgsynth's command line, for its man page (docs/man).
func App() *cli.App { return newApp(os.Stdout, os.Stderr) }

func newApp(stdout, stderr io.Writer) *cli.App {
	app := command.Conventions(&cli.App{
		Name:        "tgsynth",
		Usage:       "write deterministic log lines (Apache, nginx, JSON, logfmt)",
		UsageText:   "tgsynth [--lines N] [--seed S] [--start RFC3339] [--rate R] [--steady] [--jitter D]\n           [--malformed F] [--paths P] [--statuses S,S...] [--format F] [--realistic] [--output FILE]",
		Description: description,
		Writer:      stdout,
		ErrWriter:   stderr,
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "lines", Aliases: []string{"n"}, Value: 1000, Usage: "write `N` lines"},
			&cli.Int64Flag{Name: "seed", Value: 1, Usage: "random seed"},
			&cli.StringFlag{Name: "start", Value: DefaultStart.Format(time.RFC3339), Usage: "log time of the first line, RFC 3339"},
			&cli.Float64Flag{Name: "rate", Value: 100, Usage: "mean lines per second of log time"},
			&cli.BoolFlag{Name: "steady", Usage: "space lines exactly 1/rate apart instead of Poisson arrivals"},
			&cli.DurationFlag{Name: "jitter", Usage: "most a stamp may lie before an earlier line's (whole seconds: 1s, 2s, …)"},
			&cli.Float64Flag{Name: "malformed", Usage: "fraction of malformed lines"},
			&cli.IntFlag{Name: "paths", Value: 200, Usage: "distinct path values"},
			&cli.StringFlag{Name: "statuses", Usage: "comma-separated statuses to draw from uniformly (default: a realistic mix)"},
			&cli.BoolFlag{Name: "realistic", Usage: "the real world's hard cases in their shares: long agents and referers, non-ASCII and quoted paths, upstream lists, more logfmt keys"},
			&cli.StringFlag{Name: "format", Value: "combined", Usage: "line format: combined, apache-timed, nginx, json or logfmt"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write to `FILE` instead of stdout"},
		},
		Action: func(c *cli.Context) error {
			cfg, err := config(c)
			if err != nil {
				return err
			}
			if out := c.String("output"); out != "" {
				return WriteFile(out, cfg)
			}
			return Write(stdout, cfg)
		},
	})
	return command.Choices(app, "format", "combined", "apache-timed", "nginx", "json", "logfmt")
}

// run runs the command line args (without the program's name).
func run(args []string, stdout, stderr io.Writer) int {
	app := newApp(stdout, stderr)
	err := app.Run(command.Interspersed(app, append([]string{"tgsynth"}, args...)))
	return command.Status(stderr, err)
}

// config checks the command line and builds the generator's Config.
func config(c *cli.Context) (Config, error) {
	if c.NArg() > 0 {
		return Config{}, command.Usagef("tgsynth: unexpected argument %q; write lines to a file with --output FILE", c.Args().First())
	}
	cfg := Config{N: c.Int("lines"), Seed: c.Int64("seed"), Rate: c.Float64("rate"), Steady: c.Bool("steady"),
		Jitter: c.Duration("jitter"), Malformed: c.Float64("malformed"), Paths: c.Int("paths"), Format: c.String("format"),
		Realistic: c.Bool("realistic")}
	var err error
	if cfg.Start, err = time.Parse(time.RFC3339, c.String("start")); err != nil {
		return Config{}, command.Usagef("tgsynth: --start %q is not an RFC 3339 time like 2026-10-10T13:55:00Z", c.String("start"))
	}
	if cfg.Statuses, err = parseStatuses(c.String("statuses")); err != nil {
		return Config{}, command.Usage(err)
	}
	if _, err := New(cfg); err != nil {
		return Config{}, command.Usage(err)
	}
	return cfg, nil
}

func parseStatuses(s string) ([]int, error) {
	if s == "" {
		return nil, nil
	}
	var out []int
	for _, w := range strings.Split(s, ",") {
		n, err := strconv.Atoi(w)
		if err != nil {
			return nil, fmt.Errorf("tgsynth: --statuses %q: %q is not a status; give a list like 200,404", s, w)
		}
		out = append(out, n)
	}
	return out, nil
}
