package push

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	prompb "buf.build/gen/go/prometheus/prometheus/protocolbuffers/go"
	"github.com/prometheus/client_golang/exp/api/remote"
)

// Auth is how tgpush proves itself to the receiver. Secrets are file
// paths, read at start; their contents never reach a message.
type Auth struct {
	BearerTokenFile   string
	BasicUser         string
	BasicPasswordFile string
	Headers           [][2]string // --header K=V, in order
	HeaderFiles       [][2]string // --header-file K=FILE: a secret header's name and file
	CAFile            string
	CertFile, KeyFile string
}

// sender posts write requests to one receiver through the remote-write
// client of Prometheus' client_golang, which encodes, compresses and
// retries (down, timeouts, 5xx, 429) with capped exponential backoff. The
// messages are Prometheus' own remote.proto, as the project publishes it
// to the Buf registry (buf.build/prometheus/prometheus).
type sender struct {
	api   *remote.API
	tr    *transport
	notes func(string)
	auth  *Auth
	url   *url.URL
	state string // the last fault noted; "" while the receiver takes samples
}

// transport adds the credentials and headers to every request and keeps
// the status of the last answer, which the client gives only as text.
type transport struct {
	base     http.RoundTripper
	bearer   string
	user     string
	pass     string
	headers  [][2]string
	mu       sync.Mutex
	status   int
	location string // the last answer's Location (a 3xx)
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for _, h := range t.headers {
		req.Header.Set(h[0], h[1])
	}
	switch {
	case t.bearer != "":
		req.Header.Set("Authorization", "Bearer "+t.bearer)
	case t.user != "":
		req.SetBasicAuth(t.user, t.pass)
	}
	resp, err := t.base.RoundTrip(req)
	t.mu.Lock()
	t.status, t.location = 0, ""
	if err == nil {
		t.status, t.location = resp.StatusCode, resp.Header.Get("Location")
	}
	t.mu.Unlock()
	return resp, err
}

func (t *transport) lastStatus() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.status
}

func (t *transport) lastLocation() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.location
}

// Backoff bounds the waits between retries.
type Backoff struct{ Min, Max time.Duration }

// newSender builds the client for the receiver at u.
func newSender(u *url.URL, auth *Auth, timeout time.Duration, backoff Backoff, notes func(string)) (*sender, error) {
	tlsConf, err := tlsConfig(auth)
	if err != nil {
		return nil, err
	}
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.TLSClientConfig = tlsConf
	tr := &transport{base: base, headers: auth.Headers, user: auth.BasicUser}
	for _, hf := range auth.HeaderFiles {
		v, err := secret(hf[1], "--header-file "+hf[0])
		if err != nil {
			return nil, err
		}
		if !validHeaderValue(v) {
			return nil, fmt.Errorf("tgpush: --header-file %s: the file %s holds a control character (a second line?), which no header value may; put the value alone on one line", hf[0], hf[1])
		}
		tr.headers = append(tr.headers, [2]string{hf[0], v})
	}
	if auth.BearerTokenFile != "" {
		if tr.bearer, err = secret(auth.BearerTokenFile, "--bearer-token-file"); err != nil {
			return nil, err
		}
	}
	if auth.BasicUser != "" {
		if tr.pass, err = secret(auth.BasicPasswordFile, "--basic-auth-password-file"); err != nil {
			return nil, err
		}
	}
	// The client joins its path to the base URL; --url is the whole
	// endpoint, so the path is the URL's own.
	base0 := *u
	base0.Path = ""
	api, err := remote.NewAPI(base0.String(),
		remote.WithAPIHTTPClient(&http.Client{Transport: tr, Timeout: timeout, CheckRedirect: noRedirect}),
		remote.WithAPIPath(u.Path),
		remote.WithAPIBackoff(remote.BackoffConfig{Min: backoff.Min, Max: backoff.Max, MaxRetries: 0}))
	if err != nil {
		return nil, fmt.Errorf("tgpush: --url %s: %v", redacted(u), err)
	}
	return &sender{api: api, tr: tr, notes: notes, auth: auth, url: u}, nil
}

// noRedirect hands a 3xx back as the answer: a client that follows a 301
// or 302 re-sends a POST as a GET without its body, which a web page may
// answer 200 to, and the samples would count as taken.
func noRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// redacted is u for messages: without userinfo, and with its query (where
// an api_key= may be) as "?…".
func redacted(u *url.URL) string {
	c := *u
	c.User = nil
	q := c.RawQuery != "" || c.ForceQuery
	c.RawQuery, c.ForceQuery = "", false
	s := c.String()
	if q {
		s += "?…"
	}
	return s
}

// scrub takes the receiver's URL, as the HTTP client quotes it in its
// errors, out of a message.
func (s *sender) scrub(text string) string {
	if s.url == nil {
		return text
	}
	text = strings.ReplaceAll(text, s.url.String(), redacted(s.url))
	if s.url.RawQuery != "" {
		text = strings.ReplaceAll(text, s.url.RawQuery, "…")
	}
	return text
}

// secret reads a secret from a file, without its trailing newline.
func secret(path, flag string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("tgpush: %s: cannot read it (%v); name a readable file holding the secret", flag, unwrapPath(err))
	}
	s := strings.TrimRight(string(b), "\r\n")
	if s == "" {
		return "", fmt.Errorf("tgpush: %s %s is empty; put the secret in it", flag, path)
	}
	return s, nil
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func tlsConfig(auth *Auth) (*tls.Config, error) {
	conf := &tls.Config{MinVersion: tls.VersionTLS12}
	if auth.CAFile != "" {
		pem, err := os.ReadFile(auth.CAFile)
		if err != nil {
			return nil, fmt.Errorf("tgpush: --ca-file: cannot read it (%v)", unwrapPath(err))
		}
		pool, err := x509.SystemCertPool()
		if err != nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("tgpush: --ca-file %s holds no PEM certificate; give the CA that signed the receiver's certificate", auth.CAFile)
		}
		conf.RootCAs = pool
	}
	if auth.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(auth.CertFile, auth.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("tgpush: --cert-file and --key-file: %v; give a PEM certificate and its key", err)
		}
		conf.Certificates = []tls.Certificate{cert}
	}
	return conf, nil
}

// Refused is a receiver's answer that retrying cannot change: a 3xx, a 4xx
// other than 429, a 501 or 505, or a TLS failure.
type Refused struct {
	Status   int // 0 for a TLS failure
	Text     string
	Location string // a 3xx's Location
	Plain    bool   // an https:// URL answered in plain http
}

func (r *Refused) Error() string { return r.Text }

// send posts one request, retrying for as long as the receiver is down or
// busy, and returns nil once it answered 2xx, a *Refused when it refused,
// or ctx's error when the run is stopped.
func (s *sender) send(ctx context.Context, req *prompb.WriteRequest) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var fatal error
	onRetry := func(err error) {
		if f := s.permanent(err); f != nil {
			fatal = f
			cancel() // a certificate, a scheme or a missing feature does not fix itself
			return
		}
		s.note(s.scrub(fault(err, s.tr.lastStatus())))
	}
	_, err := s.api.Write(ctx, remote.WriteV1MessageType, req, remote.WithWriteRetryCallback(onRetry))
	switch {
	case fatal != nil:
		return fatal
	case err == nil:
		s.note("")
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	}
	if f := s.permanent(err); f != nil {
		return f
	}
	return &Refused{Status: s.tr.lastStatus(), Text: s.scrub(err.Error()), Location: s.scrubLocation()}
}

// permanent returns the refusal for a failure the client would retry but
// that retrying cannot mend, or nil: a certificate or TLS handshake
// refused, an https:// URL answered in plain http, and a 501 or 505 (the
// receiver lacks what the request needs).
func (s *sender) permanent(err error) *Refused {
	switch status := s.tr.lastStatus(); {
	case errors.Is(err, http.ErrSchemeMismatch):
		return &Refused{Text: s.scrub(err.Error()), Plain: true}
	case tlsFailure(err):
		return &Refused{Text: s.scrub(err.Error())}
	case status == http.StatusNotImplemented || status == http.StatusHTTPVersionNotSupported:
		return &Refused{Status: status, Text: s.scrub(err.Error())}
	}
	return nil
}

// scrubLocation is the last answer's Location for messages, redacted as
// --url is.
func (s *sender) scrubLocation() string {
	loc := s.tr.lastLocation()
	if loc == "" {
		return ""
	}
	u, err := s.url.Parse(loc)
	if err != nil {
		return strings.SplitN(loc, "?", 2)[0]
	}
	return redacted(u)
}

// note says when the receiver's state changes: one note for a fault
// however many retries it takes, one when it takes samples again.
func (s *sender) note(state string) {
	if state == s.state {
		return
	}
	if state == "" {
		s.notes("the receiver takes samples again; nothing was lost")
	} else {
		s.notes(state + "; retrying with backoff until it answers, nothing is dropped")
	}
	s.state = state
}

// fault names the kind of a retried failure: the note changes only when
// the kind does, not with each try's details.
func fault(err error, status int) string {
	var uerr *url.Error
	switch {
	case status == http.StatusTooManyRequests:
		return "the receiver is rate-limiting (429 Too Many Requests)"
	case status >= 500:
		return fmt.Sprintf("the receiver fails (%d %s)", status, http.StatusText(status))
	case errors.As(err, &uerr) && uerr.Timeout():
		return "the receiver does not answer in time (--timeout)"
	}
	return "the receiver cannot be reached (" + rootCause(err) + ")"
}

// rootCause is the innermost message of err: "connection refused" rather
// than the URL and the operation around it.
func rootCause(err error) string {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err.Error()
		}
		err = next
	}
}

// tlsFailure reports whether err is a certificate the client does not
// trust or a TLS handshake refused: a setting to fix, not an outage.
func tlsFailure(err error) bool {
	var (
		unknown  x509.UnknownAuthorityError
		hostname x509.HostnameError
		invalid  x509.CertificateInvalidError
		verify   *tls.CertificateVerificationError
		header   tls.RecordHeaderError
		alert    tls.AlertError
	)
	return errors.As(err, &unknown) || errors.As(err, &hostname) || errors.As(err, &invalid) ||
		errors.As(err, &verify) || errors.As(err, &header) || errors.As(err, &alert)
}
