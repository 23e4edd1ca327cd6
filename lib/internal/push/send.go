package push

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	prompb "buf.build/gen/go/prometheus/prometheus/protocolbuffers/go"
	"github.com/klauspost/compress/s2"
	"google.golang.org/protobuf/proto"

	"github.com/timbertally/timbertally/lib/internal/command"
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

// sender posts write requests to one receiver and retries them while the
// receiver is down, slow or busy. The request is remote write 1.0 as
// Prometheus specifies it: the project's own remote.proto messages (as it
// publishes them to the Buf registry, buf.build/prometheus/prometheus),
// marshalled, snappy-compressed (block format) and POSTed. The answer is
// an outcome: its status, Retry-After, and whether its body was read
// whole, so that what is a fault and what a refusal is decided on those,
// never on the text of an error.
type sender struct {
	client  *http.Client
	hdr     header
	backoff Backoff
	notes   func(string)
	url     *url.URL
	otlp    bool       // OTLP/HTTP (protobuf, uncompressed) rather than remote write
	mu      sync.Mutex // state, failing and notes: the requests of a group are sent at once
	// state is the last fault noted; "" while the receiver takes samples.
	state string
	// failing counts the sends in flight whose last try was a fault: the
	// receiver "takes samples again" only once none is, not when the
	// request beside a retried one is taken.
	failing int
}

// header is what every request carries besides the protocol's own
// headers: the credentials and the --header values.
type header struct {
	bearer  string
	user    string
	pass    string
	headers [][2]string
}

// apply puts the credentials and the --header values on a request.
func (hd *header) apply(req *http.Request) {
	for _, kv := range hd.headers {
		req.Header.Set(kv[0], kv[1])
	}
	switch {
	case hd.bearer != "":
		req.Header.Set("Authorization", "Bearer "+hd.bearer)
	case hd.user != "":
		req.SetBasicAuth(hd.user, hd.pass)
	}
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
	s := &sender{
		client:  &http.Client{Transport: base, Timeout: timeout, CheckRedirect: noRedirect},
		hdr:     header{headers: auth.Headers, user: auth.BasicUser},
		backoff: backoff, notes: notes, url: u,
	}
	for _, hf := range auth.HeaderFiles {
		v, err := secret(hf[1], "--header-file "+hf[0])
		if err != nil {
			return nil, err
		}
		if !validHeaderValue(v) {
			return nil, fmt.Errorf("tgpush: --header-file %s: the file %s holds a control character (a second line?), which no header value may; put the value alone on one line", hf[0], hf[1])
		}
		s.hdr.headers = append(s.hdr.headers, [2]string{hf[0], v})
	}
	if auth.BearerTokenFile != "" {
		if s.hdr.bearer, err = secret(auth.BearerTokenFile, "--bearer-token-file"); err != nil {
			return nil, err
		}
	}
	if auth.BasicUser != "" {
		if s.hdr.pass, err = secret(auth.BasicPasswordFile, "--basic-auth-password-file"); err != nil {
			return nil, err
		}
	}
	return s, nil
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
		return "", fmt.Errorf("tgpush: %s: cannot read it (%v); name a readable file holding the secret", flag, command.Bare(err))
	}
	s := strings.TrimRight(string(b), "\r\n")
	if s == "" {
		return "", fmt.Errorf("tgpush: %s %s is empty; put the secret in it", flag, path)
	}
	return s, nil
}
func tlsConfig(auth *Auth) (*tls.Config, error) {
	conf := &tls.Config{MinVersion: tls.VersionTLS12}
	if auth.CAFile != "" {
		pem, err := os.ReadFile(auth.CAFile)
		if err != nil {
			return nil, fmt.Errorf("tgpush: --ca-file: cannot read it (%v)", command.Bare(err))
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

// Refused is a receiver's answer that retrying cannot change: a complete
// 3xx, 4xx other than 429, 501 or 505, or a TLS failure.
type Refused struct {
	Status   int // 0 for a TLS failure
	Text     string
	Location string // a 3xx's Location
	Plain    bool   // an https:// URL answered in plain http
}

func (r *Refused) Error() string { return r.Text }

// outcome is what one POST came to: a transport error before an answer,
// or an answer's status, Retry-After, Location and body, and whether the
// body arrived whole (a cut connection or a body slower than --timeout
// leaves Whole false, whatever the status said).
type outcome struct {
	Err        error // no answer: refused connection, timeout, TLS
	Status     int
	RetryAfter time.Duration
	Location   string
	Body       string // its start, for messages
	Whole      bool
}

// bodyKept is how much of an answer's body messages quote; the rest is read
// (to know it is whole) and dropped.
const bodyKept = 4096

// post sends the encoded request once.
func (s *sender) post(ctx context.Context, body []byte) outcome {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url.String(), bytes.NewReader(body))
	if err != nil {
		return outcome{Err: err}
	}
	h := req.Header
	h.Set("Content-Type", "application/x-protobuf")
	h.Set("User-Agent", "tgpush")
	if !s.otlp {
		h.Set("Content-Encoding", "snappy")
		h.Set("X-Prometheus-Remote-Write-Version", "0.1.0")
	}
	s.hdr.apply(req)
	resp, err := s.client.Do(req)
	if err != nil {
		return outcome{Err: err}
	}
	defer resp.Body.Close()
	o := outcome{Status: resp.StatusCode, Location: resp.Header.Get("Location"), RetryAfter: retryAfter(resp.Header.Get("Retry-After"))}
	var kept bytes.Buffer
	_, err = io.Copy(io.Discard, io.TeeReader(resp.Body, &limitWriter{&kept, bodyKept}))
	o.Body, o.Whole = kept.String(), err == nil
	if err != nil {
		o.Err = err
	}
	return o
}

// limitWriter keeps the first n bytes written to it and takes the rest
// without keeping it.
type limitWriter struct {
	b *bytes.Buffer
	n int
}

func (w *limitWriter) Write(p []byte) (int, error) {
	if room := w.n - w.b.Len(); room > 0 {
		w.b.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// retryAfter reads a Retry-After header: seconds or an HTTP date; 0 when
// absent or unreadable.
func retryAfter(v string) time.Duration {
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(v); err == nil && n > 0 {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(0, time.Until(t))
	}
	return 0
}

// encoder makes requests' bodies: each message marshalled into buf (its
// scratch, reused), then, for remote write, compressed into the body's
// own buffer (OTLP/HTTP is sent as marshalled).
type encoder struct {
	otlp bool
	buf  []byte
}

// encode returns r's body, in dst's memory where it has room.
func (e *encoder) encode(dst []byte, r request) ([]byte, error) {
	if r.msg == nil {
		return s2.EncodeSnappy(dst[:cap(dst)], r.raw), nil // a direct batch's, remote write
	}
	req := r.msg
	ok := false
	if wr, isWrite := req.(*prompb.WriteRequest); isWrite {
		e.buf, ok = appendWriteRequest(e.buf[:0], wr)
	}
	if !ok {
		var err error
		if e.buf, err = (proto.MarshalOptions{}).MarshalAppend(e.buf[:0], req); err != nil {
			return nil, fmt.Errorf("tgpush: cannot encode a request: %v", err)
		}
	}
	if e.otlp {
		return append(dst[:0], e.buf...), nil
	}
	// Snappy's block format, as remote write wants it, by s2's fastest
	// encoder: snappy.Encode is s2's "better" one, which took ~3.5% of
	// tgpush's CPU for a few percent fewer bytes over a local link.
	return s2.EncodeSnappy(dst[:cap(dst)], e.buf), nil
}

// send posts one request, retrying for as long as the receiver is down,
// slow or busy, and returns nil once it answered 2xx whole, a *Refused
// when it refused, or ctx's error when the run is stopped.
//
// Up to Inflight sends may run at once (the requests of one group).
func (s *sender) send(ctx context.Context, body []byte) error {
	return s.sendUntil(ctx, nil, body)
}

// errCalledOff is a send given up before its retry: a request sent beside
// it was refused (sendUntil's stop).
var errCalledOff = errors.New("tgpush: called off: a request of the same group was refused")

// sendUntil is send that, once stop is closed, tries no more: the try in
// flight is answered (or fails) as any, and a fault ends it with
// errCalledOff instead of a retry.
func (s *sender) sendUntil(ctx context.Context, stop <-chan struct{}, body []byte) error {
	wait := s.backoff.Min
	failing := false                 // this send's last try was a fault
	defer s.settled(&failing, false) // given up or refused: no longer failing, nothing noted
	for {
		o := s.post(ctx, body)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if o.Status/100 == 2 && o.Whole {
			if ref := s.partial(o); ref != nil {
				return ref
			}
			s.settled(&failing, true)
			return nil
		}
		if ref := s.refusal(o); ref != nil {
			return ref
		}
		s.faulted(&failing, s.scrub(fault(o)+s.otlpHint(o)))
		pause := max(wait, min(o.RetryAfter, s.backoff.Max))
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-stop:
			return errCalledOff
		case <-time.After(pause):
		}
		wait = min(2*wait, s.backoff.Max)
	}
}

// refusal returns the refusal an outcome is, or nil for a fault to retry:
// only a complete answer refuses (a 3xx, a 4xx other than 408 and 429, a
// 501 or 505), or a failure that no retry mends (a certificate, a TLS
// handshake, an https:// URL answered in plain http).
func (s *sender) refusal(o outcome) *Refused {
	switch {
	case o.Status == 0 && errors.Is(o.Err, http.ErrSchemeMismatch):
		return &Refused{Text: s.scrub(o.Err.Error()), Plain: true}
	case o.Status == 0 && tlsFailure(o.Err):
		return &Refused{Text: s.scrub(o.Err.Error())}
	case o.Status == 0 || !o.Whole:
		return nil // no answer, or a cut one: a fault
	case o.Status == http.StatusTooManyRequests || o.Status == http.StatusRequestTimeout:
		return nil
	case o.Status == http.StatusNotImplemented || o.Status == http.StatusHTTPVersionNotSupported,
		o.Status/100 == 3, o.Status/100 == 4:
		text := strings.TrimSpace(o.Body)
		if text == "" {
			text = "(no message)"
		}
		return &Refused{Status: o.Status, Text: s.scrub(text), Location: s.scrubLocation(o.Location)}
	}
	return nil // 5xx, or a 1xx or 6xx no receiver should give: retried
}

// scrubLocation is an answer's Location for messages, redacted as --url
// is.
func (s *sender) scrubLocation(loc string) string {
	if loc == "" {
		return ""
	}
	u, err := s.url.Parse(loc)
	if err != nil {
		return strings.SplitN(loc, "?", 2)[0]
	}
	return redacted(u)
}

// faulted records a send's try that met a fault of kind state (noted
// when the kind is new); *failing says the send counts among the failing.
func (s *sender) faulted(failing *bool, state string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !*failing {
		*failing = true
		s.failing++
	}
	s.note(state)
}

// settled records a send that ended: taken, or given up otherwise
// (refused, called off, stopped). It leaves the failing count; once no
// send in flight is failing, a taken one notes the receiver's recovery.
func (s *sender) settled(failing *bool, taken bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if *failing {
		*failing = false
		s.failing--
	}
	if taken && s.failing == 0 {
		s.note("")
	}
}

// note says when the receiver's state changes: one note for a fault
// however many retries it takes, one when it takes samples again. The
// caller holds s.mu.
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

// fault names the kind of a retried outcome: the note changes only when
// the kind does, not with each try's details.
func fault(o outcome) string {
	var nerr net.Error
	switch {
	case o.Status != 0 && !o.Whole && errors.As(o.Err, &nerr) && nerr.Timeout():
		return fmt.Sprintf("the receiver's answer (%d %s) did not arrive whole within --timeout", o.Status, http.StatusText(o.Status))
	case o.Status != 0 && !o.Whole:
		return fmt.Sprintf("the receiver's answer (%d %s) was cut (%s)", o.Status, http.StatusText(o.Status), rootCause(o.Err))
	case o.Status == http.StatusTooManyRequests:
		return "the receiver is rate-limiting (429 Too Many Requests)"
	case o.Status != 0:
		return fmt.Sprintf("the receiver fails (%d %s)", o.Status, http.StatusText(o.Status))
	case errors.As(o.Err, &nerr) && nerr.Timeout():
		return "the receiver does not answer in time (--timeout)"
	}
	return "the receiver cannot be reached (" + rootCause(o.Err) + ")"
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
