// Package promapi reads raw samples back from a receiver through the
// Prometheus HTTP query API (/api/v1/query), which Prometheus 2 and 3,
// Thanos Query, Cortex and Mimir (under …/prometheus) and VictoriaMetrics
// all serve.
//
// Invariants:
//   - Samples are raw: a range selector evaluated at an instant (a matrix
//     answer), never an evaluated function, so what comes back is what the
//     receiver stored, each sample with its own millisecond.
//   - A range is asked for as (from, to] in milliseconds: the selector's
//     duration reaches back to from, and a sample at from itself (which
//     Prometheus 2's closed ranges return) is left out here, so that the
//     answer is the same on every receiver.
//   - An answer that is not a success with a matrix is an error naming
//     the receiver's own error text; no partial answer is ever taken for
//     a whole one (a warning of a partial answer, Thanos' and Cortex's, is
//     an error too).
package promapi

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Doer sends a request: an http.Client, or one that adds credentials.
type Doer interface {
	Do(*http.Request) (*http.Response, error)
}

// Sample is one stored sample.
type Sample struct {
	Ms    int64 // Unix milliseconds
	Value float64
}

// Series is one series' labels (__name__ included) and its samples in
// time order.
type Series struct {
	Labels  map[string]string
	Samples []Sample
}

// QueryURL is the instant-query endpoint under a receiver's query API
// base (http://host:9090, http://host:9009/prometheus).
func QueryURL(base *url.URL) *url.URL {
	u := *base
	u.Path = strings.TrimSuffix(u.Path, "/") + "/api/v1/query"
	return &u
}

// Range returns the raw samples in (from, to] (Unix ms) of the series
// matching selector (a PromQL series selector, e.g. {__name__="x",host="a"}).
func Range(ctx context.Context, d Doer, endpoint *url.URL, selector string, from, to int64) ([]Series, error) {
	if to <= from {
		return nil, nil
	}
	q := url.Values{
		"query": {fmt.Sprintf("%s[%dms]", selector, to-from)},
		"time":  {Seconds(to)},
	}
	u := *endpoint
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := d.Do(req)
	if ue, ok := err.(*url.Error); ok {
		err = ue.Err // its text repeats the URL, whose query may hold a secret
	}
	var unknown x509.UnknownAuthorityError
	if errors.As(err, &unknown) {
		return nil, fmt.Errorf("cannot ask its query API: %v; give the CA that signed its certificate with --ca-file", err)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot ask its query API: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
		return nil, fmt.Errorf("it refused the credentials (%s); give the right ones with --bearer-token-file, or --basic-auth-user and --basic-auth-password-file, or --header-file", resp.Status)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("reading the answer: %v", err)
	}
	series, err := ParseMatrix(body)
	if err != nil {
		return nil, fmt.Errorf("%s (HTTP %d): %v", u.Path, resp.StatusCode, err)
	}
	kept := series[:0]
	for _, s := range series {
		i := 0
		for i < len(s.Samples) && s.Samples[i].Ms <= from {
			i++
		}
		if s.Samples = s.Samples[i:]; len(s.Samples) > 0 {
			kept = append(kept, s)
		}
	}
	return kept, nil
}

// Seconds is a Unix millisecond time as the API's time parameter.
func Seconds(ms int64) string {
	sign := ""
	if ms < 0 {
		sign, ms = "-", -ms
	}
	return fmt.Sprintf("%s%d.%03d", sign, ms/1000, ms%1000)
}

// answer is the API's JSON envelope with a matrix.
type answer struct {
	Status    string          `json:"status"`
	ErrorType string          `json:"errorType"`
	Error     string          `json:"error"`
	Warnings  []string        `json:"warnings"`
	Data      json.RawMessage `json:"data"`
}

type matrix struct {
	ResultType string `json:"resultType"`
	Result     []struct {
		Metric map[string]string    `json:"metric"`
		Values [][2]json.RawMessage `json:"values"`
	} `json:"result"`
}

// ParseMatrix reads an /api/v1/query answer whose result is a matrix.
func ParseMatrix(body []byte) ([]Series, error) {
	var a answer
	if err := json.Unmarshal(body, &a); err != nil {
		return nil, fmt.Errorf("not a query API answer (%v): %.200q", err, body)
	}
	if a.Status != "success" {
		return nil, fmt.Errorf("the query failed: %s: %s", a.ErrorType, a.Error)
	}
	if len(a.Warnings) > 0 {
		return nil, fmt.Errorf("the answer may be partial: %s", strings.Join(a.Warnings, "; "))
	}
	var m matrix
	if err := json.Unmarshal(a.Data, &m); err != nil {
		return nil, fmt.Errorf("its data is not a result (%v)", err)
	}
	if m.ResultType != "matrix" {
		return nil, fmt.Errorf("the result is a %q, not the matrix of raw samples a range selector gives", m.ResultType)
	}
	out := make([]Series, 0, len(m.Result))
	for _, r := range m.Result {
		s := Series{Labels: r.Metric, Samples: make([]Sample, 0, len(r.Values))}
		for _, v := range r.Values {
			smp, err := parsePoint(v)
			if err != nil {
				return nil, err
			}
			s.Samples = append(s.Samples, smp)
		}
		out = append(out, s)
	}
	return out, nil
}

// parsePoint reads [seconds, "value"]: seconds a JSON number with up to
// three decimals, the value a string (NaN and ±Inf spelled as Go parses).
func parsePoint(p [2]json.RawMessage) (Sample, error) {
	secs := string(p[0])
	whole, frac, _ := strings.Cut(secs, ".")
	if len(frac) > 3 {
		return Sample{}, fmt.Errorf("a sample's time %s is finer than a millisecond", secs)
	}
	frac += strings.Repeat("0", 3-len(frac))
	s, err1 := strconv.ParseInt(whole, 10, 64)
	f, err2 := strconv.ParseUint(frac, 10, 16)
	if err1 != nil || err2 != nil || s > math.MaxInt64/1000-1 || s < math.MinInt64/1000+1 {
		return Sample{}, fmt.Errorf("a sample's time %.40q is not Unix seconds", secs)
	}
	ms := s * 1000
	if strings.HasPrefix(whole, "-") {
		ms -= int64(f)
	} else {
		ms += int64(f)
	}
	var text string
	if err := json.Unmarshal(p[1], &text); err != nil {
		return Sample{}, fmt.Errorf("a sample's value %.40q is not a string", p[1])
	}
	v, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return Sample{}, fmt.Errorf("a sample's value %.40q is not a number", text)
	}
	return Sample{Ms: ms, Value: v}, nil
}

// Quote is a label value as a PromQL string: in double quotes, a
// backslash, a double quote and a newline escaped, every other byte as it
// is (PromQL and MetricsQL read UTF-8 in a string as it is).
func Quote(v string) string {
	return `"` + quoter.Replace(v) + `"`
}

var quoter = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
