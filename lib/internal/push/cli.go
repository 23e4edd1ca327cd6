package push

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/timbertally/timbertally/lib/internal/command"
	"github.com/urfave/cli/v2"
)

const description = `tgpush follows a tally store's tape and sends every sealed bucket to a
receiver by Prometheus remote write 1.0 (Prometheus with
--web.enable-remote-write-receiver, Mimir, Thanos Receive, Cortex,
VictoriaMetrics). A sample's time is its bucket's last millisecond (so
sum_over_time(m[WIDTH]) at a bucket boundary holds exactly that bucket on
every receiver) and its value the bucket's value; its name and labels are
the tape's series plus --label (refused when the series have that label
already), a histogram's le in Prometheus's canonical form. With each bucket
go timbertally_entries (entries placed in it), timbertally_late_entries,
timbertally_dropped_entries{reason} and timbertally_capped_entries{metric}
(the markers written with its group; the markers of a run that sealed
nothing, a millisecond of their own after the last bucket's).

--counters sends running totals instead, for rate() and increase(): each
count or sum metric as NAME_total, each histogram cumulative, the
data-quality counts as NAME_total, the series tgserve serves; a series'
first total follows a 0 at the previous bucket's last millisecond. The
totals are recomputed from the tape at start, so a restart never resets
them. --protocol otlp sends OTLP/HTTP (protobuf) instead of remote write:
each bucket as delta points over [start, end), the --label labels as
resource attributes (Prometheus 3: --url .../api/v1/otlp/v1/metrics, run
with --web.enable-otlp-receiver --enable-feature=otlp-native-delta-ingestion;
read with sum_over_time). The cursor keeps the shape; a run that would
send another is refused.

The cursor (default: in the tally store, one per --url) advances only after
the receiver answered 2xx, a bucket a request, so a restart after a kill
re-sends at most the bucket in flight: the same samples, the newest of their
series, which receivers take as duplicates. The cursor keeps the --label set;
a run with another is refused. A receiver that is down, slow, failing (5xx)
or rate-limiting (429), and an answer cut or slower than --timeout, whatever
its status, is retried with backoff, forever, with a note when its state
changes; any other refusal stops tgpush (exit 1) naming the bucket and the
fix. A tape replaced under it (tally --provision --replace) stops it too.

--from (first run only): start (default), end (only buckets sealed from now
on) or an RFC 3339 time (buckets starting at it or later; kept in the
cursor, so later runs skip the buckets before it too). --once pushes what
is sealed now and exits. Secrets come only from files: a header that
carries one is given with --header-file NAME=FILE.

Exit status: 0 --once pushed everything sealed, or SIGINT/SIGTERM stopped it
(the cursor holds what the receiver took); 1 the receiver refused a bucket, the
credentials or TLS, the tape was replaced or is damaged, or the cursor is damaged,
held by another tgpush or pushed under another --label set or shape; 2 bad
usage (a --label the series have already too).

Examples:
   tgpush --url http://127.0.0.1:9090/api/v1/write /srv/tally/web
   tgpush --url https://mimir.example/api/v1/push --label host=web1 \
          --basic-auth-user web1 --basic-auth-password-file /etc/tgpush/password \
          --header X-Scope-OrgID=web /srv/tally/web
   tgpush --once --url http://127.0.0.1:8428/api/v1/write /srv/tally/web
   tgpush --counters /srv/tally/web
   tgpush --protocol otlp --url http://otel:4318/v1/metrics /srv/tally/web`

// DefaultURL is a local Prometheus' remote-write receiver.
const DefaultURL = "http://127.0.0.1:9090/api/v1/write"

// Main runs the tgpush command line on os.Args and returns its exit status.
func Main() int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	tty := isatty.IsTerminal(os.Stderr.Fd())
	return run(ctx, os.Args, os.Stdout, os.Stderr, tty)
}

// App is tgpush's command line, for its man page (docs/man).
func App() *cli.App { return newApp(os.Stdout, os.Stderr, false, new(*Options)) }

// newApp is tgpush's command line; its action leaves the run's options in
// *o.
func newApp(stdout, stderr io.Writer, tty bool, o **Options) *cli.App {
	return command.Conventions(&cli.App{
		Name:        "tgpush",
		Usage:       "push a tally store's sealed buckets by Prometheus remote write or OTLP",
		UsageText:   "tgpush [--url URL] [--protocol remote-write|otlp] [--counters] [--label K=V]... [--cursor FILE] [--from start|end|TIME] [--once] [--bearer-token-file F | --basic-auth-user U --basic-auth-password-file F] [--header K=V]... [--header-file K=F]... [--ca-file F] [--cert-file F --key-file F] [--timeout D] [--retry-max D] [--poll D] [--max-samples N] [-q] TALLYSTORE",
		Description: description,
		Writer:      stdout,
		ErrWriter:   stderr,
		Flags:       flags(),
		Action: func(c *cli.Context) error {
			var err error
			*o, err = options(c, stderr, tty)
			return err
		},
	})
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer, tty bool) int {
	var o *Options
	app := newApp(stdout, stderr, tty, &o)
	err := app.Run(command.Interspersed(app, args))
	if err == nil && o != nil {
		err = Run(ctx, o)
	}
	switch {
	case err == nil:
		return 0
	case command.IsUsage(err):
		fmt.Fprintln(stderr, err)
		return 2
	}
	fmt.Fprintln(stderr, err)
	return 1
}

func flags() []cli.Flag {
	return append([]cli.Flag{
		&cli.StringFlag{Name: "url", Value: DefaultURL, Usage: "the receiver's `URL` (--protocol otlp: default " + DefaultOTLPURL + ")"},
		&cli.StringSliceFlag{Name: "label", Usage: "add `K=V` to every series (repeat; a fleet's host=web1)"},
		&cli.StringFlag{Name: "cursor", Usage: "keep the position in `FILE` (default: in the tally store, one per --url)"},
		&cli.StringFlag{Name: "from", Usage: "where a first run starts: `start|end|TIME` (RFC 3339; default start)"},
		&cli.BoolFlag{Name: "once", Usage: "push what is sealed now, then exit"},
		&cli.BoolFlag{Name: "counters", Usage: "send running totals (NAME_total, cumulative histograms) for rate() and increase(), not each bucket's value"},
		&cli.StringFlag{Name: "protocol", Value: ProtocolRemoteWrite, Usage: "`remote-write` or otlp (OTLP/HTTP protobuf, delta points; --url …/v1/metrics)"},
	}, append(AuthFlags(), []cli.Flag{
		&cli.DurationFlag{Name: "timeout", Value: 30 * time.Second, Usage: "give up on one request after `D` (then retry)"},
		&cli.DurationFlag{Name: "retry-max", Value: 30 * time.Second, Usage: "the longest wait between retries (`D`)"},
		&cli.DurationFlag{Name: "poll", Value: 250 * time.Millisecond, Usage: "look at a followed tape this often (`D`)"},
		&cli.IntFlag{Name: "max-samples", Value: 5000, Usage: "samples per request, at most (`N`; a bucket with more is split)"},
		&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no notes and no progress line (errors still print)"},
	}...)...)
}

// AuthFlags are the flags of the credentials and TLS a receiver asks for,
// tgpush's and tgcheck --receiver's: secrets only from files.
func AuthFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "bearer-token-file", Usage: "send the token in `FILE` as Authorization: Bearer"},
		&cli.StringFlag{Name: "basic-auth-user", Usage: "basic auth as `USER` (the password from --basic-auth-password-file)"},
		&cli.StringFlag{Name: "basic-auth-password-file", Usage: "the basic auth password is in `FILE`"},
		&cli.StringSliceFlag{Name: "header", Usage: "send the header `K=V` (repeat; a tenant's X-Scope-OrgID=…; no credential: see --header-file)"},
		&cli.StringSliceFlag{Name: "header-file", Usage: "send the header K with the secret value in FILE (`K=FILE`; repeat; an X-Api-Key)"},
		&cli.StringFlag{Name: "ca-file", Usage: "trust the CA certificates in `FILE` (PEM) for https"},
		&cli.StringFlag{Name: "cert-file", Usage: "present the client certificate in `FILE` (PEM; with --key-file)"},
		&cli.StringFlag{Name: "key-file", Usage: "the client certificate's key is in `FILE` (PEM)"},
	}
}

// ParseAuth reads the AuthFlags of a command line and checks them.
func ParseAuth(c *cli.Context) (Auth, error) {
	a := Auth{
		BearerTokenFile:   c.String("bearer-token-file"),
		BasicUser:         c.String("basic-auth-user"),
		BasicPasswordFile: c.String("basic-auth-password-file"),
		CAFile:            c.String("ca-file"),
		CertFile:          c.String("cert-file"),
		KeyFile:           c.String("key-file"),
	}
	var err error
	if a.Headers, err = headers(c.StringSlice("header")); err != nil {
		return a, err
	}
	if a.HeaderFiles, err = headerFiles(c.StringSlice("header-file")); err != nil {
		return a, err
	}
	return a, checkAuth(&a)
}

// options checks the command line.
func options(c *cli.Context, stderr io.Writer, tty bool) (*Options, error) {
	if c.NArg() != 1 {
		return nil, command.Usagef("tgpush: name one tally store (the directory tally --provision made), not %d arguments; see tgpush --help", c.NArg())
	}
	o := &Options{
		Dir:        c.Args().First(),
		Cursor:     c.String("cursor"),
		From:       c.String("from"),
		Once:       c.Bool("once"),
		Timeout:    c.Duration("timeout"),
		Backoff:    Backoff{Min: min(250*time.Millisecond, c.Duration("retry-max")), Max: c.Duration("retry-max")},
		Poll:       c.Duration("poll"),
		MaxSamples: c.Int("max-samples"),
		Counters:   c.Bool("counters"),
		Protocol:   c.String("protocol"),
		Quiet:      c.Bool("quiet"),
		Stderr:     stderr,
	}
	o.Progress = tty && !o.Quiet
	switch {
	case o.Protocol != ProtocolRemoteWrite && o.Protocol != ProtocolOTLP:
		return nil, command.Usagef("tgpush: --protocol %s is not remote-write or otlp", o.Protocol)
	case o.Protocol == ProtocolOTLP && o.Counters:
		return nil, command.Usagef("tgpush: --counters is remote write's: OTLP carries each bucket as a delta point, which an OTLP receiver sums itself (Prometheus 3 with --enable-feature=otlp-native-delta-ingestion: read it with sum_over_time); give one of the two")
	}
	rawURL := c.String("url")
	if o.Protocol == ProtocolOTLP && !c.IsSet("url") {
		rawURL = DefaultOTLPURL
	}
	u, err := ReceiverURL(rawURL)
	if err != nil {
		return nil, err
	}
	o.URL = u
	if o.Cursor == "" {
		o.Cursor = DefaultCursor(o.Dir, u.String())
	}
	if o.Labels, err = ParseLabels(c.StringSlice("label")); err != nil {
		return nil, command.Usage(err)
	}
	if o.Auth, err = ParseAuth(c); err != nil {
		return nil, err
	}
	switch {
	case o.Timeout <= 0 || o.Backoff.Max <= 0 || o.Poll <= 0:
		return nil, command.Usagef("tgpush: --timeout, --retry-max and --poll must be positive")
	case o.MaxSamples < 1:
		return nil, command.Usagef("tgpush: --max-samples must be at least 1, not %d", o.MaxSamples)
	}
	return o, nil
}

// ReceiverURL checks --url: http or https, and no password in it (a
// secret on the command line shows in ps and in every message).
func ReceiverURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		shown, _, _ := strings.Cut(s, "?") // a query may hold an api_key=
		return nil, command.Usagef("tgpush: --url %q is not an http:// or https:// URL such as %s", shown, DefaultURL)
	}
	if u.User != nil {
		return nil, command.Usagef("tgpush: --url holds credentials; give them as --basic-auth-user and --basic-auth-password-file instead")
	}
	return u, nil
}

// headers checks --header K=V: a header name and a value HTTP can carry,
// and no credential (it would show in ps and in the shell's history).
func headers(args []string) ([][2]string, error) {
	var out [][2]string
	for _, h := range args {
		k, v, ok := strings.Cut(h, "=")
		switch {
		case !ok || !validHeaderName(k):
			// Only the name is quoted: "X-Api-Key: secret" is a value typed wrong.
			name := h[:strings.IndexAny(h+"=", "=: ")]
			return nil, command.Usagef("tgpush: --header %q… is not NAME=VALUE with an HTTP header name", name)
		case strings.EqualFold(k, "Authorization"):
			return nil, command.Usagef("tgpush: --header Authorization would put a secret on the command line; use --bearer-token-file or --basic-auth-password-file")
		case credentialHeader(k):
			return nil, command.Usagef("tgpush: --header %s would put a secret on the command line; give it with --header-file %s=FILE (the value alone in FILE), or use --bearer-token-file or --basic-auth-password-file", k, k)
		case !validHeaderValue(v):
			return nil, command.Usagef("tgpush: --header %s: the value holds a control character (a newline?), which no header value may; give it on one line", k)
		}
		out = append(out, [2]string{k, v})
	}
	return out, nil
}

// headerFiles checks --header-file K=FILE; the file is read at start.
func headerFiles(args []string) ([][2]string, error) {
	var out [][2]string
	for _, h := range args {
		k, f, ok := strings.Cut(h, "=")
		switch {
		case !ok || !validHeaderName(k) || f == "":
			return nil, command.Usagef("tgpush: --header-file %q is not NAME=FILE with an HTTP header name", h)
		case strings.EqualFold(k, "Authorization"):
			return nil, command.Usagef("tgpush: --header-file Authorization: use --bearer-token-file or --basic-auth-password-file, which say which credential it is")
		}
		out = append(out, [2]string{k, f})
	}
	return out, nil
}

// credentialHeader reports whether a header's name says it carries a
// credential: Authorization, Proxy-Authorization, and any name with key,
// token, secret, password or auth in it (X-Api-Key, X-Auth-Token).
func credentialHeader(name string) bool {
	n := strings.ToLower(name)
	for _, w := range []string{"auth", "key", "token", "secret", "password", "passwd", "cookie"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// validHeaderName reports whether s is an HTTP token (RFC 9110 §5.6.2).
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}

// validHeaderValue reports whether s can be a header's value: no control
// byte but a tab (a newline would end the header, and Go's client refuses
// the request, which tgpush would retry forever).
func validHeaderValue(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

func checkAuth(a *Auth) error {
	switch {
	case a.BearerTokenFile != "" && a.BasicUser != "":
		return command.Usage(errors.New("tgpush: give --bearer-token-file or --basic-auth-user, not both"))
	case (a.BasicUser == "") != (a.BasicPasswordFile == ""):
		return command.Usage(errors.New("tgpush: --basic-auth-user and --basic-auth-password-file go together; give both"))
	case (a.CertFile == "") != (a.KeyFile == ""):
		return command.Usage(errors.New("tgpush: --cert-file and --key-file go together; give both"))
	}
	return nil
}
