package check

import (
	"errors"
	"os"
	"strings"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/timbertally/timbertally/lib/internal/command"
	"github.com/timbertally/timbertally/lib/internal/promapi"
	"github.com/timbertally/timbertally/lib/internal/push"
	"github.com/urfave/cli/v2"
)

// receiverFlags are tgcheck --receiver's flags: the receiver, the
// --labels tgpush added, the time range, and tgpush's credentials and TLS.
func receiverFlags() []cli.Flag {
	return append([]cli.Flag{
		&cli.StringFlag{Name: "receiver", Usage: "read the tape's samples back from the query API at `URL` (http://prometheus:9090, http://cortex:9009/prometheus) and check it holds each once"},
		&cli.StringSliceFlag{Name: "label", Usage: "with --receiver: the `K=V` tgpush added (repeat, as given to tgpush)"},
		&cli.StringFlag{Name: "from", Usage: "with --receiver: check the buckets from `TIME` on (RFC 3339)"},
		&cli.StringFlag{Name: "to", Usage: "with --receiver: check the buckets before `TIME` (RFC 3339)"},
		&cli.DurationFlag{Name: "timeout", Value: time.Minute, Usage: "with --receiver: give up on one query after `D`"},
		&cli.IntFlag{Name: "query-samples", Value: WindowSamples, Usage: "with --receiver: read the tape's samples back `N` at a time (lower it for a receiver with a tight limit of samples a query)"},
	}, push.AuthFlags()...)
}

// parseReceiver reads --receiver and its flags; nil when not given.
func parseReceiver(c *cli.Context) (*receiverCheck, error) {
	if !c.IsSet("receiver") {
		for _, f := range []string{"label", "from", "to", "bearer-token-file", "basic-auth-user", "header", "header-file", "ca-file", "cert-file", "query-samples"} {
			if c.IsSet(f) {
				return nil, command.Usagef("tgcheck: --%s goes with --receiver URL, the receiver to read back", f)
			}
		}
		return nil, nil
	}
	u, err := push.ReceiverURL(c.String("receiver"))
	if err != nil {
		return nil, command.Usagef("tgcheck: --receiver: %v (the query API's base, without /api/v1/query)", err)
	}
	rc := &receiverCheck{base: u, endpoint: promapi.QueryURL(u), window: c.Int("query-samples")}
	if rc.window < 1 {
		return nil, command.Usagef("tgcheck: --query-samples must be at least 1, not %d", rc.window)
	}
	if rc.labels, err = push.ParseLabels(c.StringSlice("label")); err != nil {
		return nil, ours(command.Usage(err))
	}
	for _, t := range []struct {
		flag string
		to   *int64
	}{{"from", &rc.from}, {"to", &rc.to}} {
		if v := c.String(t.flag); v != "" {
			at, err := time.Parse(time.RFC3339Nano, v)
			if err != nil {
				return nil, command.Usagef("tgcheck: --%s %q is not an RFC 3339 time such as 2026-10-10T13:50:00Z", t.flag, v)
			}
			*t.to = at.UnixNano()
		}
	}
	auth, err := push.ParseAuth(c)
	if err != nil {
		return nil, ours(err)
	}
	if rc.client, err = push.NewClient(&auth, c.Duration("timeout")); err != nil {
		return nil, ours(err)
	}
	if isatty.IsTerminal(os.Stderr.Fd()) {
		rc.progress = os.Stderr
	}
	return rc, nil
}

// ours is an error of tgpush's flags, which tgcheck shares, as tgcheck's:
// its name in front, a usage error still one.
func ours(err error) error {
	text := strings.Replace(err.Error(), "tgpush: ", "tgcheck: ", 1)
	if command.IsUsage(err) {
		return command.Usagef("%s", text)
	}
	return errors.New(text)
}
