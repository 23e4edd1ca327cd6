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
	state string // the last fault noted; "" while the receiver takes samples
}

// transport adds the credentials and headers to every request and keeps
// the status of the last answer, which the client gives only as text.
type transport struct {
	base    http.RoundTripper
	bearer  string
	user    string
	pass    string
	headers [][2]string
	mu      sync.Mutex
	status  int
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
	t.status = 0
	if err == nil {
		t.status = resp.StatusCode
	}
	t.mu.Unlock()
	return resp, err
}

func (t *transport) lastStatus() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.status
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
		remote.WithAPIHTTPClient(&http.Client{Transport: tr, Timeout: timeout}),
		remote.WithAPIPath(u.Path),
		remote.WithAPIBackoff(remote.BackoffConfig{Min: backoff.Min, Max: backoff.Max, MaxRetries: 0}))
	if err != nil {
		return nil, fmt.Errorf("tgpush: --url %s: %v", u.Redacted(), err)
	}
	return &sender{api: api, tr: tr, notes: notes, auth: auth}, nil
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

// Refused is a receiver's answer that retrying cannot change: a 4xx other
// than 429, or a TLS failure.
type Refused struct {
	Status int // 0 for a TLS failure
	Text   string
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
		if tlsFailure(err) {
			fatal = &Refused{Text: err.Error()}
			cancel() // a certificate does not fix itself
			return
		}
		s.note(fault(err, s.tr.lastStatus()))
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
	if tlsFailure(err) {
		return &Refused{Text: err.Error()}
	}
	return &Refused{Status: s.tr.lastStatus(), Text: err.Error()}
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
