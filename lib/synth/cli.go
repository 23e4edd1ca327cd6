package synth

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

const usage = `usage: synth [-n N] [-seed S] [-start RFC3339] [-rate R] [-steady] [-jitter D]
             [-malformed F] [-paths P] [-statuses S,S...] [-format F] [-o FILE]

Writes N deterministic log lines (same flags, same bytes): Apache combined,
or with -format apache-timed (combined + duration, vhost, X-Forwarded-For), nginx
(combined + request and upstream times), json (Caddy-like) or
logfmt.

Examples:
  synth -n 20000 -o access.log                      # 20 000 lines at ~100/s of log time
  synth -n 1536 -rate 51.2 -steady -statuses 200    # exactly 512 lines per 10 s window
  synth -n 100000 -jitter 3s -malformed 0.01        # out-of-order stamps, 1% bad lines
  synth -n 20000 -format json -o caddy.log          # JSON lines with durations

Flags:
`

// Main runs the synth command line (used by testscripts and the benchmark
// script) on os.Args and returns its exit status.
func Main() int {
	return run(os.Args[1:], os.Stdout, os.Stderr)
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("synth", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	var c Config
	start := fs.String("start", DefaultStart.Format(time.RFC3339), "log time of the first line, RFC 3339")
	statuses := fs.String("statuses", "", "comma-separated statuses to draw from uniformly (default: a realistic mix)")
	out := fs.String("o", "", "write to `FILE` instead of stdout")
	fs.IntVar(&c.N, "n", 1000, "lines to write")
	fs.Int64Var(&c.Seed, "seed", 1, "random seed")
	fs.Float64Var(&c.Rate, "rate", 100, "mean lines per second of log time")
	fs.BoolVar(&c.Steady, "steady", false, "space lines exactly 1/rate apart instead of Poisson arrivals")
	fs.DurationVar(&c.Jitter, "jitter", 0, "most a stamp may lie before an earlier line's (whole seconds)")
	fs.Float64Var(&c.Malformed, "malformed", 0, "fraction of malformed lines")
	fs.IntVar(&c.Paths, "paths", 200, "distinct path values")
	fs.StringVar(&c.Format, "format", "combined", "line format: combined, apache-timed, nginx, json or logfmt")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "synth: unexpected argument %q; write lines to a file with -o FILE\n", fs.Arg(0))
		return 2
	}
	var err error
	if c.Start, err = time.Parse(time.RFC3339, *start); err != nil {
		fmt.Fprintf(stderr, "synth: -start %q is not an RFC 3339 time like 2026-10-10T13:55:00Z\n", *start)
		return 2
	}
	if c.Statuses, err = parseStatuses(*statuses); err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	if _, err := New(c); err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	return write(c, *out, stdout, stderr)
}

// write writes the lines to stdout, or to the file out when it is named.
func write(c Config, out string, stdout, stderr io.Writer) int {
	if out == "" {
		return report(Write(stdout, c), stderr)
	}
	return report(WriteFile(out, c), stderr)
}

func report(err error, stderr io.Writer) int {
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return 0
}

func parseStatuses(s string) ([]int, error) {
	if s == "" {
		return nil, nil
	}
	var out []int
	for _, w := range strings.Split(s, ",") {
		n, err := strconv.Atoi(w)
		if err != nil {
			return nil, fmt.Errorf("synth: -statuses %q: %q is not a status; give a list like 200,404", s, w)
		}
		out = append(out, n)
	}
	return out, nil
}
