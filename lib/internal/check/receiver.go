package check

import (
	"context"
	"fmt"
	"io"
	"maps"
	"math"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	prompb "buf.build/gen/go/prometheus/prometheus/protocolbuffers/go"
	"github.com/timbertally/timbertally/lib/internal/doc"
	"github.com/timbertally/timbertally/lib/internal/promapi"
	"github.com/timbertally/timbertally/lib/internal/push"
	"github.com/timbertally/timbertally/lib/internal/shell"
	"github.com/timbertally/timbertally/lib/internal/tape"
)

// The receiver check (tgcheck --receiver) reads back, through the query
// API, every sample tgpush sends for the tape (push.Sent: the one owner of
// what is sent, at which stamp) and compares it with what the receiver
// holds: each sample there exactly once with its value, and nothing else
// for the tape's metric names (with the --labels) inside the tape's time
// range. It reads in windows of at most WindowSamples expected samples (--query-samples),
// each asked for one metric name at a time, so its memory is one window's
// and no query asks a receiver for more than a window's samples of a name
// (far inside Prometheus' and Thanos' default --query.max-samples of
// 50 000 000, and Cortex's and Mimir's limits).

// WindowSamples is how many expected samples one window holds, at most,
// unless --query-samples says otherwise (a group is never split: a window
// may hold one group more).
const WindowSamples = 20000

// firstShown is how many differences of each kind are named.
const firstShown = 10

// receiverCheck is a parsed --receiver with its flags.
type receiverCheck struct {
	base     *url.URL // the query API's base, as given
	endpoint *url.URL // …/api/v1/query
	client   *push.Client
	labels   []*prompb.Label
	from, to int64     // Unix ns: the buckets checked start in [from, to); to 0: no end
	window   int       // expected samples a window holds, at most
	progress io.Writer // a terminal's progress line; nil: none
	res      *receiverResult
}

// expected is one sample the tape says the receiver holds.
type expected struct {
	value float64
	group int32 // in the window's groups
	seen  int32
	got   float64 // the receiver's value when it differs
}

// windowGroup is one group of a window.
type windowGroup struct {
	bucket  int64
	width   time.Duration
	sealed  bool
	samples int
	missing []string // the series missing
	lost    int      // how many missing
	wrong   bool     // a sample doubled or different
}

// window is the expected samples of consecutive groups, by series key
// and millisecond.
type window struct {
	groups []windowGroup
	want   map[string]map[int64]*expected
	shown  map[string]string // series key: its text
	names  map[string]bool
	n      int
	after  int64 // the samples asked for are after it (ms), up to last
	last   int64
}

// receiverResult is what the whole check found.
type receiverResult struct {
	samples, groups                    int
	firstBucket, lastBucket            int64
	missing, doubled, different, extra int
	missingGroups                      int
	lines                              []string // the first differences, named
	kinds                              map[string]int
	laterHeld                          int   // missing samples whose series holds a later sample of the window
	partialGroups                      int   // groups some of whose samples are missing, not all
	whole                              int64 // the newest sealed bucket held whole; -1: none
	wholeWidth                         time.Duration
	markersLost                        bool  // the marker-only groups after whole are not held whole
	firstBroken                        int64 // the oldest bucket not held whole; -1: none
	names                              map[string]bool
}

func (r *receiverResult) holds() bool {
	return r.missing+r.doubled+r.different+r.extra == 0
}

// name records a difference, the first firstShown of its kind.
func (r *receiverResult) name(kind, text string) {
	if r.kinds[kind] < firstShown {
		r.lines = append(r.lines, fmt.Sprintf("receiver: %-9s %s", kind, text))
	}
	r.kinds[kind]++
}

// run checks the receiver against the tally store dir's tape, printing
// its findings to w; it reports whether the receiver holds the tape.
func (rc *receiverCheck) run(ctx context.Context, dir string, w io.Writer) (bool, error) {
	res := &receiverResult{kinds: map[string]int{}, whole: -1, firstBroken: -1, firstBucket: -1, names: map[string]bool{}}
	for _, n := range []string{tape.EntriesSeries, tape.LateSeries, tape.DroppedSeries, tape.CappedSeries} {
		res.names[n] = true
	}
	win := newWindow(-1)
	err := push.Sent(dir, rc.labels, func(g push.SentGroup) error {
		if g.Bucket < rc.from || (rc.to != 0 && g.Bucket >= rc.to) {
			return nil
		}
		if win.n == 0 && win.after < 0 {
			win.after = g.Bucket/int64(time.Millisecond) - 1 // the range checked starts with its first bucket
		}
		win.add(g)
		if win.n >= rc.window {
			if err := rc.flush(ctx, win, res); err != nil {
				return err
			}
			win = newWindow(win.last)
		}
		return nil
	})
	if err == nil && len(win.groups) > 0 {
		err = rc.flush(ctx, win, res)
	}
	if rc.progress != nil {
		fmt.Fprint(rc.progress, "\r\033[K")
	}
	if err != nil {
		return false, fmt.Errorf("tgcheck: --receiver %s: %v", redact(rc.base), err)
	}
	rc.res = res
	rc.print(w, res)
	return res.holds() && res.samples > 0, nil
}

func newWindow(after int64) *window {
	return &window{want: map[string]map[int64]*expected{}, shown: map[string]string{}, names: map[string]bool{}, after: after}
}

// add puts a group's samples in the window.
func (win *window) add(g push.SentGroup) {
	gi := int32(len(win.groups))
	wg := windowGroup{bucket: g.Bucket, width: g.Width, sealed: g.Sealed}
	for _, ts := range g.Series {
		key, name := sentKey(ts.Labels)
		win.names[name] = true
		byMs := win.want[key]
		if byMs == nil {
			byMs = map[int64]*expected{}
			win.want[key] = byMs
			win.shown[key] = sentText(ts.Labels)
		}
		for _, s := range ts.Samples {
			byMs[s.Timestamp] = &expected{value: s.Value, group: gi}
			win.last = max(win.last, s.Timestamp)
			wg.samples++
			win.n++
		}
	}
	win.groups = append(win.groups, wg)
}

// flush reads the window's time range back, metric name by metric name,
// and compares.
func (rc *receiverCheck) flush(ctx context.Context, win *window, res *receiverResult) error {
	maps.Copy(res.names, win.names)
	for _, name := range slices.Sorted(maps.Keys(res.names)) {
		series, err := promapi.Range(ctx, rc.client, rc.endpoint, rc.selector(name), win.after, win.last)
		if err != nil {
			return err
		}
		for _, s := range series {
			rc.compareSeries(win, res, s)
		}
	}
	for _, key := range slices.Sorted(maps.Keys(win.want)) {
		byMs := win.want[key]
		stamps := slices.Sorted(maps.Keys(byMs))
		laterHeld := false // a later sample of the series is held
		for i := len(stamps) - 1; i >= 0; i-- {
			e := byMs[stamps[i]]
			if e.seen > 0 {
				laterHeld = true
				continue
			}
			g := &win.groups[e.group]
			g.missing = append(g.missing, win.shown[key])
			g.lost++
			res.missing++
			if laterHeld {
				res.laterHeld++
			}
		}
	}
	for _, g := range win.groups {
		rc.account(res, g)
	}
	if rc.progress != nil {
		fmt.Fprintf(rc.progress, "\r\033[Ktgcheck: receiver: %d samples read back, through the bucket at %s", res.samples, tape.AppendTime(nil, res.lastBucket))
	}
	return nil
}

// compareSeries compares one series the receiver holds with the window.
func (rc *receiverCheck) compareSeries(win *window, res *receiverResult, s promapi.Series) {
	key := mapKey(s.Labels)
	byMs := win.want[key]
	for _, smp := range s.Samples {
		e := byMs[smp.Ms]
		if e == nil {
			res.extra++
			res.name("extra", fmt.Sprintf("%s %s = %s: the tape has no such sample (another writer, a re-derived tape pushed over the old one, or a --label shared by two stores)", msText(smp.Ms), mapText(s.Labels), value(smp.Value)))
			continue
		}
		e.seen++
		g := &win.groups[e.group]
		switch {
		case e.seen == 2:
			g.wrong = true
			res.doubled++
			res.name("doubled", fmt.Sprintf("%s %s: two samples at one timestamp (%s and %s); the tape has one", msText(smp.Ms), win.shown[key], value(e.got), value(smp.Value)))
		case e.seen > 2:
		case !sameValue(e.value, smp.Value):
			g.wrong = true
			res.different++
			res.name("different", fmt.Sprintf("%s %s: tape %s, receiver %s", msText(smp.Ms), win.shown[key], value(e.value), value(smp.Value)))
		}
		e.got = smp.Value
	}
}

// account adds a group's outcome to the result.
func (rc *receiverCheck) account(res *receiverResult, g windowGroup) {
	res.samples += g.samples
	res.groups++
	if res.firstBucket < 0 {
		res.firstBucket = g.bucket
	}
	res.lastBucket = g.bucket
	if g.lost > 0 && g.lost < g.samples {
		res.partialGroups++
	}
	if g.lost > 0 {
		res.missingGroups++
		what := "the bucket's group"
		if !g.sealed {
			what = "the data-quality counts of a run that sealed nothing after the bucket"
		}
		all := ""
		if g.lost == g.samples {
			all = " (all of it: the request carrying it was never stored)"
		}
		slices.Sort(g.missing)
		res.name("missing", fmt.Sprintf("%s: %d of the %d samples of %s%s, e.g. %s", tape.AppendTime(nil, g.bucket), g.lost, g.samples, what, all, strings.Join(g.missing[:min(3, len(g.missing))], ", ")))
	}
	whole := g.lost == 0 && !g.wrong
	if !whole && res.firstBroken < 0 {
		res.firstBroken = g.bucket
	}
	switch {
	case whole && g.sealed:
		res.whole, res.wholeWidth, res.markersLost = g.bucket, g.width, false
	case !whole && !g.sealed && g.bucket == res.whole:
		res.markersLost = true // the counts of a run after it: tgpush --from must send its bucket again
	}
}

// print writes the summary after the differences.
func (rc *receiverCheck) print(w io.Writer, res *receiverResult) {
	where := redact(rc.base)
	if res.samples == 0 {
		fmt.Fprintf(w, "receiver: the tape has no sealed bucket to check%s; nothing was read from %s\n", rc.rangeText(), where)
		return
	}
	for _, l := range res.lines {
		fmt.Fprintln(w, l)
	}
	span := fmt.Sprintf("the buckets from %s to %s", tape.AppendTime(nil, res.firstBucket), tape.AppendTime(nil, res.lastBucket))
	if res.holds() {
		fmt.Fprintf(w, "receiver: %s holds every one of the tape's %d samples (%d groups, %s), each once with its value, and nothing else for those series\n", where, res.samples, res.groups, span)
		return
	}
	for _, k := range []string{"missing", "doubled", "different", "extra"} {
		if n := res.kinds[k]; n > firstShown {
			fmt.Fprintf(w, "receiver: … and %d more %s\n", n-firstShown, k)
		}
	}
	fmt.Fprintf(w, "receiver: %s does not hold the tape: of its %d samples (%d groups, %s) %d missing (in %d groups), %d doubled, %d different; %d extra\n",
		where, res.samples, res.groups, span, res.missing, res.missingGroups, res.doubled, res.different, res.extra)
	if res.merged() {
		fmt.Fprintln(w, "receiver: doubled   buckets merged: groups keep some of their samples and lose others, and each missing sample's series holds a later one: the signature of a deduplication window wider than a bucket (VictoriaMetrics -dedup.minScrapeInterval), which keeps one sample of each interval and so one bucket of several")
	}
	fmt.Fprintln(w, rc.copyEnds(res))
}

// merged reports the signature of a dedup window merging buckets: the
// receiver kept, of each series, the last sample of an interval, so a
// group loses the series that come again in a later bucket of the interval
// (every series of the first bucket, often) and keeps those that do not;
// each missing sample's series holds a later one. Lost requests lose their
// groups whole, never a part of one.
func (res *receiverResult) merged() bool {
	return res.missing > 0 && res.partialGroups > 0 && res.laterHeld == res.missing
}

// copyEnds says where the receiver's copy ends: the newest bucket it
// holds whole, and the tgpush --from that resumes after it.
func (rc *receiverCheck) copyEnds(res *receiverResult) string {
	if res.whole < 0 {
		return fmt.Sprintf("receiver: it holds no bucket of those checked whole: its copy ends before the bucket at %s; tgpush --from %s sends them all", tape.AppendTime(nil, res.firstBucket), tape.AppendTime(nil, res.firstBucket))
	}
	next := string(tape.AppendTime(nil, res.whole+int64(res.wholeWidth)))
	s := fmt.Sprintf("receiver: its copy ends at the bucket at %s, the newest it holds whole; tgpush --from %s resumes after it", tape.AppendTime(nil, res.whole), next)
	if res.markersLost {
		// tgpush sends a bucket's marker-only groups only with the bucket
		// (--from skips them with it): the bucket goes again, the same
		// samples, which a receiver takes as the ones it holds.
		at := string(tape.AppendTime(nil, res.whole))
		s = fmt.Sprintf("receiver: its copy ends at the bucket at %s, the newest it holds whole, but not the data-quality counts of the runs after it; tgpush --from %s resumes with that bucket (its samples again, the same ones)", at, at)
	}
	if res.firstBroken >= 0 && res.firstBroken < res.whole {
		s += fmt.Sprintf(" (but it does not hold the buckets before it whole either, from the bucket at %s on: see above)", tape.AppendTime(nil, res.firstBroken))
	}
	return s
}

func (rc *receiverCheck) rangeText() string {
	switch {
	case rc.from != 0 && rc.to != 0:
		return fmt.Sprintf(" from %s to %s", tape.AppendTime(nil, rc.from), tape.AppendTime(nil, rc.to))
	case rc.from != 0:
		return fmt.Sprintf(" from %s", tape.AppendTime(nil, rc.from))
	case rc.to != 0:
		return fmt.Sprintf(" before %s", tape.AppendTime(nil, rc.to))
	}
	return ""
}

// selector is the PromQL selector of a metric name's series with the
// --labels.
func (rc *receiverCheck) selector(name string) string {
	var b strings.Builder
	b.WriteString(`{__name__=`)
	b.WriteString(promapi.Quote(name))
	for _, l := range rc.labels {
		fmt.Fprintf(&b, ",%s=%s", l.Name, promapi.Quote(l.Value))
	}
	b.WriteString("}")
	return b.String()
}

// sentKey is a series' key from the labels tgpush sends (sorted by name),
// and its metric name; seriesKey makes the same from the receiver's.
func sentKey(labels []*prompb.Label) (key, name string) {
	var b strings.Builder
	for _, l := range labels {
		if l.Name == "__name__" {
			name = l.Value
		}
		keyLabel(&b, l.Name, l.Value)
	}
	return b.String(), name
}

func mapKey(m map[string]string) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(m)) {
		keyLabel(&b, k, m[k])
	}
	return b.String()
}

// keyLabel writes a label of a series key; a bound (le) is compared by its
// number, in Prometheus' canonical form (tape.CanonicalBound), whichever way the
// receiver spells it.
func keyLabel(b *strings.Builder, name, v string) {
	if name == doc.BoundLabel {
		v = tape.CanonicalBound(v)
	}
	b.WriteString(name)
	b.WriteByte(0)
	b.WriteString(v)
	b.WriteByte(0)
}

// sentText and mapText show a series as PromQL writes it.
func sentText(labels []*prompb.Label) string {
	m := make(map[string]string, len(labels))
	for _, l := range labels {
		m[l.Name] = l.Value
	}
	return mapText(m)
}

func mapText(m map[string]string) string {
	var b strings.Builder
	b.WriteString(m["__name__"])
	if len(m) == 1 {
		return b.String()
	}
	b.WriteByte('{')
	first := true
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if k == "__name__" {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		fmt.Fprintf(&b, "%s=%s", k, promapi.Quote(m[k]))
	}
	b.WriteByte('}')
	return b.String()
}

func sameValue(a, b float64) bool {
	return a == b || math.IsNaN(a) && math.IsNaN(b)
}

func value(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// msText is a sample's time as the tape writes times.
func msText(ms int64) string {
	return string(tape.AppendTime(nil, ms*int64(time.Millisecond)))
}

// redact is a receiver's URL for messages: no userinfo, no query.
func redact(u *url.URL) string {
	c := *u
	c.User, c.RawQuery, c.ForceQuery = nil, "", false
	return c.String()
}

// advice is the repair of what the check found, for tgcheck's last line.
func (rc *receiverCheck) advice(dir string) string {
	res := rc.res
	if res == nil || res.samples == 0 {
		return "tgcheck: the tape has no sealed bucket in the range checked, so the receiver cannot be shown to hold it; check again once tally has sealed one (or widen --from/--to)"
	}
	var fix []string
	labels := ""
	for _, l := range rc.labels {
		labels += " --label " + shell.Quote(l.Name+"="+l.Value)
	}
	if res.missing > 0 {
		fix = append(fix, fmt.Sprintf("missing samples are sent again from the oldest bucket not held whole, with a cursor of its own: tgpush --url WRITE-URL%s --cursor %s --from %s --once %s "+
			"(a receiver takes samples older than its newest only when it accepts out-of-order samples: Prometheus' out_of_order_time_window, Mimir's and Cortex's -ingester.out-of-order-time-window; VictoriaMetrics always; one it already holds it takes again as the same sample); "+
			"when only the tail is missing (a lost cursor), the --from the copy's end gives above resumes after it",
			labels, shell.Quote(filepath.Join(dir, "recheck.cursor")), tape.AppendTime(nil, res.firstBroken), shell.Quote(dir)))
	}
	if res.merged() {
		fix = append(fix, "buckets merged are a deduplication window wider than a bucket: run VictoriaMetrics with -dedup.minScrapeInterval=1ms, delete the series it merged (/api/v1/admin/tsdb/delete_series) and push the tape again")
	}
	if res.doubled > 0 {
		fix = append(fix, "doubled samples are a receiver that keeps a sample sent twice (VictoriaMetrics without -dedup.minScrapeInterval): start it with -dedup.minScrapeInterval=1ms, which keeps one of each and merges no buckets (an interval as wide as a bucket merges them)")
	}
	if res.different+res.extra > 0 {
		fix = append(fix, "different and extra samples are another writer's, or an older tape's: give each store its own --label (host=…), and after re-deriving a tape delete the old series from the receiver (Prometheus' admin API delete_series, VictoriaMetrics' /api/v1/admin/tsdb/delete_series) before pushing the new one")
	}
	return "tgcheck: the tape adds up but the receiver does not hold it (see above): " + strings.Join(fix, "; ")
}
