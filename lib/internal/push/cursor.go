package push

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/timbertally/timbertally/lib/internal/command"
	"github.com/timbertally/timbertally/lib/internal/lockfile"
	"github.com/timbertally/timbertally/lib/internal/slotfile"
	"github.com/timbertally/timbertally/lib/internal/tape"
	"github.com/timbertally/timbertally/lib/protocol"
)

// Cursor is where tgpush resumes on a tape: the offset just past the last
// group the receiver took, the tape's identity, and that group's bucket.
//
// The record is one line: "tgpush v=3 offset=N dev=D ino=I sig=HEX
// siglen=L bucket=RFC3339 width=D after=K labels=NAME=VALUE,…
// sends=SHAPE zeroed=0|1 [from=RFC3339]". It holds no URL, header or secret. from= is the first
// run's --from TIME, kept so that every later run, after a kill too, skips
// the buckets before it. after= counts the marker-only groups pushed since
// the seal of bucket=, each a millisecond after that bucket's samples
// (tape.MarkerMs). labels= is the --label set the samples were pushed under,
// each value query-escaped (a comma or '=' in it is %2C, %3D): a run with
// other labels is refused. sends= is what the receiver was sent (Sends*:
// buckets, counters, otlp): a run that would send another shape is
// refused. zeroed=1 says that the zero samples before the new series of
// the group after offset were taken (--counters sends them first, and a
// re-send of a zero older than the series' newest sample would be refused
// as out of order). A v=1 cursor (before after= and labels=) reads as
// after=0 with its labels unknown, a v=2 (before sends=) as sends=buckets;
// the next save writes v=3. The file holds the record twice, in the two
// slots of package slotfile (each with seq= and sum= after it): a save a
// group costs one fdatasync, not a replaced file's two fsyncs and rename.
// A file of the record alone, as tgpush wrote before, is read as it is.
type Cursor struct {
	Offset int64
	ID     identity
	Bucket int64         // the last pushed group's bucket start (0 with Offset 0)
	Width  time.Duration // its width
	After  int           // marker-only groups pushed since that bucket's seal
	Labels []tape.Label  // the --label set pushed under, sorted by name
	Known  bool          // Labels is known (false for a v=1 cursor)
	From   int64         // buckets starting before it are never pushed (0: no bound)
	Sends  string        // the shape sent: SendsBuckets, SendsCounters, SendsOTLP
	Zeroed bool          // the zero samples of the group after Offset were taken (--counters)
}

// What a cursor's pushes sent (sends=).
const (
	SendsBuckets  = "buckets"  // remote write, a sample per bucket (the default)
	SendsCounters = "counters" // remote write, running totals (--counters)
	SendsOTLP     = "otlp"     // OTLP/HTTP, delta points (--protocol otlp)
)

// DefaultCursor is the cursor of pushes to url from the tally store in dir:
// beside its tape, one per URL.
func DefaultCursor(dir, url string) string {
	h := sha256.Sum256([]byte(url))
	return filepath.Join(dir, "tgpush."+hex.EncodeToString(h[:6])+".cursor")
}

// loadCursor reads the cursor at path; ok is false when there is none (a
// first run).
func loadCursor(path string) (c Cursor, ok bool, err error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return c, false, nil
	}
	if err != nil {
		return c, false, fmt.Errorf("tgpush: cannot read the cursor %s: %v", path, err)
	}
	rec, _, err := slotfile.Read(data)
	if err == nil {
		c, err = parseCursor(string(rec))
	}
	if err != nil {
		return c, false, fmt.Errorf("tgpush: the cursor %s is damaged (%v); fix it, or remove it and start again with --from (start re-sends what the receiver holds, which it takes as duplicates)", path, err)
	}
	return c, true, nil
}

var (
	cursorKeysV1 = []string{"v", "offset", "dev", "ino", "sig", "siglen", "bucket", "width"}
	cursorKeysV2 = []string{"v", "offset", "dev", "ino", "sig", "siglen", "bucket", "width", "after", "labels"}
	cursorKeys   = []string{"v", "offset", "dev", "ino", "sig", "siglen", "bucket", "width", "after", "labels", "sends", "zeroed"}
)

func parseCursor(text string) (Cursor, error) {
	s, from, err := cutFrom(text)
	if err != nil {
		return Cursor{}, err
	}
	var c Cursor
	line, ok := strings.CutSuffix(s, "\n")
	var w protocol.Words
	kind, err := protocol.SplitLine([]byte(line), &w)
	if !ok || strings.Contains(line, "\n") || err != nil || kind != "tgpush" {
		return c, errors.New(`want one line "tgpush v=3 offset=… dev=… ino=… sig=… siglen=… bucket=… width=… after=… labels=… sends=… zeroed=…"`)
	}
	v := func(k string) string { s, _ := w.Get(k); return s }
	keys := cursorKeys
	switch v("v") {
	case "1":
		keys = cursorKeysV1
	case "2":
		keys = cursorKeysV2
	case "3":
	default:
		return c, fmt.Errorf("v=%s is not a version this tgpush reads (1, 2 or 3)", v("v"))
	}
	if err := w.Want(keys...); err != nil {
		return c, err
	}
	// Want has made every key present, once.
	var errs []error
	num := func(k string, base, bits int) uint64 {
		n, err := strconv.ParseUint(v(k), base, bits)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s=%s is not a number", k, v(k)))
		}
		return n
	}
	c.Offset = int64(num("offset", 10, 63))
	c.ID = identity{Dev: num("dev", 10, 64), Ino: num("ino", 10, 64), Sig: uint32(num("sig", 16, 32)), SigLen: int64(num("siglen", 10, 63))}
	if c.Bucket, err = tape.ParseTime(v("bucket")); err != nil {
		errs = append(errs, err)
	}
	if c.Width, err = time.ParseDuration(v("width")); err != nil || c.Width < 0 {
		errs = append(errs, fmt.Errorf("width=%s is not a duration", v("width")))
	}
	c.Sends = SendsBuckets // all a v=1 or v=2 tgpush sent
	if v("v") == "3" {
		switch c.Sends = v("sends"); c.Sends {
		case SendsBuckets, SendsCounters, SendsOTLP:
		default:
			errs = append(errs, fmt.Errorf("sends=%s is not buckets, counters or otlp", c.Sends))
		}
		switch v("zeroed") {
		case "0", "1":
			c.Zeroed = v("zeroed") == "1"
		default:
			errs = append(errs, fmt.Errorf("zeroed=%s is not 0 or 1", v("zeroed")))
		}
	}
	if v("v") != "1" {
		c.Known = true
		after, err := strconv.Atoi(v("after"))
		if err != nil || after < 0 {
			errs = append(errs, fmt.Errorf("after=%s is not a count", v("after")))
		}
		c.After = after
		if c.Labels, err = parseCursorLabels(v("labels")); err != nil {
			errs = append(errs, err)
		}
	}
	if c.ID.SigLen > sigSpan {
		errs = append(errs, fmt.Errorf("siglen=%d is over %d", c.ID.SigLen, sigSpan))
	}
	c.From = from
	return c, errors.Join(errs...)
}

// cutFrom takes the optional last key of a cursor's line, from=TIME, off
// it; a line without one is returned as it is.
func cutFrom(s string) (string, int64, error) {
	i := strings.LastIndex(s, " from=")
	if i < 0 {
		return s, 0, nil
	}
	v, nl := strings.CutSuffix(s[i+len(" from="):], "\n")
	if !nl || strings.ContainsAny(v, " \n") {
		return s, 0, nil // not the last key of one line: the line's parser says what is wrong
	}
	t, err := tape.ParseTime(v)
	if err != nil || t == 0 {
		return s, 0, fmt.Errorf("from=%s is not a time", v)
	}
	return s[:i] + "\n", t, nil
}

// parseCursorLabels reads labels=NAME=VALUE,… (values query-escaped).
func parseCursorLabels(s string) ([]tape.Label, error) {
	if s == "" {
		return nil, nil
	}
	var out []tape.Label
	for _, kv := range strings.Split(s, ",") {
		k, ev, ok := strings.Cut(kv, "=")
		val, err := url.QueryUnescape(ev)
		if !ok || k == "" || err != nil {
			return nil, fmt.Errorf("labels=%s is not NAME=VALUE,… with escaped values", s)
		}
		out = append(out, tape.Label{Name: k, Value: val})
	}
	return out, nil
}

// appendCursorLabels appends a label set as labels= holds it.
func appendCursorLabels(b []byte, labels []tape.Label) []byte {
	for i, l := range labels {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, l.Name...)
		b = append(b, '=')
		b = append(b, url.QueryEscape(l.Value)...)
	}
	return b
}

func (c Cursor) format() []byte {
	b := fmt.Appendf(nil, "tgpush v=3 offset=%d dev=%d ino=%d sig=%08x siglen=%d bucket=", c.Offset, c.ID.Dev, c.ID.Ino, c.ID.Sig, c.ID.SigLen)
	b = tape.AppendTime(b, c.Bucket)
	b = append(b, " width="...)
	b = tape.AppendDuration(b, c.Width)
	b = fmt.Appendf(b, " after=%d labels=", c.After)
	b = appendCursorLabels(b, c.Labels)
	b = fmt.Appendf(b, " sends=%s zeroed=%d", cmp.Or(c.Sends, SendsBuckets), boolDigit(c.Zeroed))
	if c.From != 0 {
		b = append(b, " from="...)
		b = tape.AppendTime(b, c.From)
	}
	return append(b, '\n')
}

func boolDigit(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (c Cursor) save(w *slotfile.Writer) error {
	if err := w.Save(c.format()); err != nil {
		return fmt.Errorf("tgpush: cannot save the cursor %s: %v; nothing after it is lost: the next run re-sends from the last saved cursor", w.Path(), err)
	}
	return nil
}

// lock takes the lock beside the cursor without waiting: one tgpush per
// cursor; a refused second tgpush names the running one.
func lock(cursor string) (*os.File, error) {
	f, err := lockfile.Take(cursor+".lock", "tgpush")
	var held *lockfile.HeldError
	switch {
	case errors.As(err, &held):
		return nil, fmt.Errorf("tgpush: the cursor %s is in use by %s; one tgpush per tally store and receiver: stop that one first", cursor, held.Holder)
	case err != nil:
		return nil, fmt.Errorf("tgpush: cannot make the lock %s.lock: %v", cursor, command.Bare(err))
	}
	return f, nil
}
