package tally

import (
	"fmt"
	"os"
	"time"

	"github.com/timbertally/timbertally/lib/internal/bucket"
	"github.com/timbertally/timbertally/lib/internal/doc"
)

// nowEnv names the environment variable that, set to an RFC 3339 time,
// is the wall clock tally compares entry times with (the document's future
// bound): for tests, and for replaying old logs as of their own day.
const nowEnv = "TIMBERTALLY_NOW"

// newRoller returns a Roller for d on the wall clock, or on $TIMBERTALLY_NOW.
func newRoller(d *doc.Doc, k *bucket.Known) (*bucket.Roller, error) {
	r, err := bucket.New(d, k)
	if err != nil {
		return nil, err
	}
	if v := os.Getenv(nowEnv); v != "" {
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			return nil, fmt.Errorf("$%s=%q is not an RFC 3339 time, e.g. 2026-10-10T14:00:00Z; set it right or unset it", nowEnv, v)
		}
		r.SetClock(func() time.Time { return t })
	}
	return r, nil
}
