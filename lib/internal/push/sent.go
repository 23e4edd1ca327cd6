package push

import (
	"fmt"
	"net/http"
	"time"

	"github.com/timbertally/timbertally/lib/internal/tallystore"

	prompb "buf.build/gen/go/prometheus/prometheus/protocolbuffers/go"
)

// SentGroup is one request's worth of samples as Run sends a group: every
// series with its one sample (its labels as the receiver gets them,
// --label included), and the bucket the group belongs to (a marker-only
// group's is the sealed bucket before it).
type SentGroup struct {
	Bucket int64 // the bucket's start, Unix ns
	Width  time.Duration
	Sealed bool // a bucket's group; false: a marker-only group's data-quality counts
	Series []*prompb.TimeSeries
}

// Sent reads the tape of the tally store dir from its start and calls fn
// with each group's samples, in tape order, exactly as Run sends them to a
// receiver with --label labels from --from start: the same batches, the
// same stamps (tape.SampleMs, tape.MarkerMs), the same held marker-only
// groups. tgcheck --receiver reads back what it gives. Groups after the
// last seal (a group being written) are not given; nor are marker-only
// groups still held at the tape's end, which Run sends with a later seal.
func Sent(dir string, labels []*prompb.Label, fn func(SentGroup) error) error {
	fl, err := openTape(tallystore.At(dir).Tape())
	if err != nil {
		return fmt.Errorf("cannot read the tape: %v", err)
	}
	defer fl.Close()
	size, err := fl.size()
	if err != nil {
		return err
	}
	p := &pusher{o: &Options{Dir: dir, Labels: labels}, fl: fl, shape: buckets{}}
	for {
		groups, err := fl.read(size, readBytes)
		if err != nil {
			return err
		}
		if len(groups) == 0 {
			return nil
		}
		for _, g := range groups {
			b := p.batch(g)
			if b == nil || b.samples == 0 {
				continue
			}
			if b.clash != nil {
				return b.clash
			}
			last := b.groups[len(b.groups)-1]
			if err := fn(SentGroup{Bucket: last.at, Width: p.last.Width, Sealed: g.sealed(), Series: b.req.Timeseries}); err != nil {
				return err
			}
		}
	}
}

// Client is an HTTP client that proves itself to a receiver as tgpush
// does (Auth: the secrets read from their files now, never shown), for
// reading the receiver back (tgcheck --receiver).
type Client struct{ s *sender }

// NewClient reads auth's secrets and builds the client; one request gives
// up after timeout.
func NewClient(auth *Auth, timeout time.Duration) (*Client, error) {
	s, err := newSender(nil, auth, timeout, Backoff{}, nil)
	if err != nil {
		return nil, err
	}
	return &Client{s}, nil
}

// Do sends req with the credentials and --header values. Redirects are
// answers, not followed (a redirect would carry the credentials elsewhere).
func (c *Client) Do(req *http.Request) (*http.Response, error) {
	c.s.hdr.apply(req)
	return c.s.client.Do(req)
}
