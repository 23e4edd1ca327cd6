package push

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/timbertally/timbertally/lib/internal/shell"
	"github.com/timbertally/timbertally/lib/internal/slotfile"
	"github.com/timbertally/timbertally/lib/internal/tallystore"

	prompb "buf.build/gen/go/prometheus/prometheus/protocolbuffers/go"
	"github.com/timbertally/timbertally/lib/internal/command"
	"github.com/timbertally/timbertally/lib/internal/cumulative"
	"github.com/timbertally/timbertally/lib/internal/tape"
)

// Options are a parsed tgpush command line.
type Options struct {
	Dir        string          // the tally store
	URL        *url.URL        // the receiver's remote-write endpoint
	Labels     []*prompb.Label // --label, sorted by name
	Cursor     string          // the cursor file
	From       string          // start, end or an RFC 3339 time; "" is start
	Once       bool            // push what is sealed now, then exit
	Auth       Auth
	Timeout    time.Duration // of one request
	Backoff    Backoff
	Poll       time.Duration // how often a followed tape is looked at
	MaxSamples int           // samples per request, at most (a bucket with more is split)
	Counters   bool          // send running totals (counters.go), not each bucket's values
	Protocol   string        // ProtocolRemoteWrite (the default) or ProtocolOTLP
	Quiet      bool
	Progress   bool // a progress line on stderr (a terminal)
	Stderr     io.Writer
}

// pusher is one run.
type pusher struct {
	o       *Options
	fl      *follower
	s       *sender
	cur     Cursor
	cw      *slotfile.Writer // the cursor's file, saved in place
	skip    int64            // groups whose bucket starts before it are not sent (--from TIME)
	limit   int64            // --once: the tape's length at start
	last    tape.Record      // the newest seal read (from the cursor at start)
	after   int              // marker-only groups pushed since last's seal (tape.MarkerMs)
	held    []Group          // marker-only groups with no millisecond left before the next bucket's: they go with its seal
	fresh   bool             // the run started without a cursor
	prog    *progress
	out     sync.Mutex // notes and progress: a group is built while the one before it is sent
	quirked tape.LaterKinds
	shape   shape   // what a group becomes on the wire (shape.go)
	taken   int     // samples of a group read in parts (Group.Part) the receiver took in the parts before
	spare   *batch  // a batch whose group was taken: the next batch's memory
	enc     encoder // the requests' bodies, made while the group before is sent
	direct  bool    // batches are written as wire bytes as they are built (batch.direct)
}

// Run pushes until ctx is done (a signal: nil), the tape is pushed up to
// its length at start (--once: nil), or a failure that retrying cannot
// mend.
func Run(ctx context.Context, o *Options) error {
	tuneGC()
	tapePath := tallystore.At(o.Dir).Tape()
	if _, err := os.Stat(tallystore.At(o.Dir).Document()); err != nil {
		return fmt.Errorf("tgpush: %s is not a tally store (%v); name the directory tally --provision made", o.Dir, command.Bare(err))
	}
	lk, err := lock(o.Cursor)
	if err != nil {
		return err
	}
	defer lk.Close()
	fl, err := openTape(tapePath)
	if err != nil {
		return fmt.Errorf("tgpush: cannot read the tape: %v", err)
	}
	defer fl.Close()
	p := &pusher{o: o, fl: fl, cw: slotfile.NewWriter(o.Cursor)}
	defer p.cw.Close()
	fl.quirks = p.quirk
	// The secrets are read before start saves a first run's cursor: a
	// missing token file must leave no cursor that refuses the --from of
	// the run that fixes it.
	if p.s, err = newSender(o.URL, &o.Auth, o.Timeout, o.Backoff, p.note); err != nil {
		return err
	}
	p.s.otlp = o.Protocol == ProtocolOTLP
	p.enc.otlp = p.s.otlp
	if err := checkLabelNames(o.Dir, o.Labels); err != nil {
		return command.Usage(err)
	}
	if p.shape, err = newShape(o); err != nil {
		return err
	}
	// A group larger than a read is sent in parts where a part's samples
	// are the same whichever part a series is in: a sample a series.
	// (--counters' zeros must precede a whole group's totals, and OTLP's
	// request is built from the whole group: both read it whole.)
	_, fl.stream = p.shape.(buckets)
	// The buckets' series are written as wire bytes as they are built
	// (every --label is UTF-8: label.ParseFlags refuses one that is not).
	p.direct = fl.stream
	if err := p.start(); err != nil {
		return err
	}
	if err := p.readBefore(); err != nil {
		return err
	}
	if o.Once {
		if p.limit, err = fl.size(); err != nil {
			return err
		}
	}
	if o.Progress {
		p.prog = newProgress(o.Stderr)
		defer p.prog.done()
	}
	err = p.loop(ctx)
	if errors.Is(err, context.Canceled) {
		p.note("stopped; the next run resumes " + p.resumes())
		return nil
	}
	return err
}

// start places the follower: at the cursor, or where --from says on a
// first run.
func (p *pusher) start() error {
	cur, ok, err := loadCursor(p.o.Cursor)
	if err != nil {
		return err
	}
	if ok {
		if p.o.From != "" && !p.sameFrom(cur) {
			return command.Usagef("tgpush: the cursor %s already says where to resume (%s); --from is for a first run: leave it out, or remove the cursor to start elsewhere", p.o.Cursor, p.resumesAt(cur))
		}
		same, err := p.fl.same(cur.ID)
		if err != nil {
			return fmt.Errorf("tgpush: cannot read the tape: %v", err)
		}
		size, err := p.fl.size()
		if err != nil {
			return err
		}
		if !same || size < cur.Offset {
			return p.replacedError(cur)
		}
		if now := tapeLabels(p.o.Labels); cur.Known && cur.Offset > 0 && !slices.Equal(cur.Labels, now) {
			return &LabelsChanged{Changed: p.changed(cur), Was: cur.Labels, Now: now}
		}
		if now := p.shape.sends(); cur.Offset > 0 && cur.Sends != now {
			return &ShapeChanged{Changed: p.changed(cur), Was: cur.Sends, Now: now}
		}
		p.cur, p.fl.off, p.skip, p.after = cur, cur.Offset, cur.From, cur.After
		if cur.Offset > 0 {
			p.last = tape.Record{Kind: tape.Seal, Start: cur.Bucket, Width: cur.Width}
		}
		return nil
	}
	p.fresh = true
	switch from := p.o.From; from {
	case "", "start":
	case "end":
		seal, end, err := lastSeal(p.fl)
		if err != nil || end == 0 {
			return err
		}
		// Saved now: a run that finds nothing new must not leave the
		// next to start from the tape's start.
		p.fl.off, p.last = end, seal
		p.cur = Cursor{Offset: end, ID: p.fl.id, Bucket: seal.Start, Width: seal.Width}
		return p.save()
	default:
		t, err := time.Parse(time.RFC3339Nano, from)
		if err != nil {
			return command.Usagef("tgpush: --from %s is not start, end or an RFC 3339 time (2026-10-10T13:55:30Z)", from)
		}
		// Saved now, before anything is pushed: a run killed before its
		// first push, or one that found nothing from t on, must leave the
		// next to skip the buckets before t too.
		p.skip = t.UnixNano()
		p.cur = Cursor{ID: p.fl.id, From: p.skip}
		return p.save()
	}
	return nil
}

// changed names the cursor cur for a refused change.
func (p *pusher) changed(cur Cursor) Changed {
	return Changed{Cursor: p.o.Cursor, Next: timeText(cur.Bucket + int64(cur.Width)), Dir: p.o.Dir}
}

// save writes the cursor, with the --label set its samples were pushed
// under.
func (p *pusher) save() error {
	p.cur.Labels, p.cur.Known, p.cur.Sends = tapeLabels(p.o.Labels), true, p.shape.sends()
	return p.cur.save(p.cw)
}

// sameFrom reports whether --from repeats the lower bound the cursor
// already keeps: a first run started again as it was, which changes
// nothing.
func (p *pusher) sameFrom(cur Cursor) bool {
	t, err := time.Parse(time.RFC3339Nano, p.o.From)
	return err == nil && cur.From != 0 && t.UnixNano() == cur.From
}

// lastSeal is the tape's last seal and the offset just past it (0 when it
// has none): --from end starts with the next group. It reads backwards
// with tape.ScanBack, which classifies lines as the forward follower does:
// a later kind's line is passed over, a damaged one stops it as it would
// stop the follower.
func lastSeal(fl *follower) (tape.Record, int64, error) {
	var seal tape.Record
	size, err := fl.size()
	if err != nil {
		return seal, 0, err
	}
	// Only whole lines are scanned: a torn last line is a group being written.
	whole := size
	if whole > 0 {
		buf := make([]byte, 1)
		for whole > 0 {
			if _, err := fl.f.ReadAt(buf, whole-1); err != nil {
				return seal, 0, err
			}
			if buf[0] == '\n' {
				break
			}
			whole--
		}
	}
	var end int64
	err = tape.ScanBack(fl.f, whole, func(rec *tape.Record, e int64) bool {
		if rec.Kind == tape.Seal {
			seal, end = *rec, e
			return false
		}
		return true
	})
	var damaged *tape.ByteError
	if errors.As(err, &damaged) {
		return seal, 0, fl.damage(damaged.At, damaged.Err, "it is after the tape's last seal, so --from end has no place to start: nothing was pushed and no cursor saved")
	}
	if err != nil {
		return seal, 0, fmt.Errorf("tgpush: cannot read %s: %v", fl.path, err)
	}
	return seal, end, nil
}

// drain pushes the groups the replaced tape gained since it was last read
// (what tally appended before the replace), then says it was replaced.
func (p *pusher) drain(ctx context.Context) error {
	for {
		size, err := p.fl.size()
		if err != nil {
			return err
		}
		groups, err := p.fl.read(size, readBytes)
		if err != nil {
			return err
		}
		if len(groups) == 0 {
			return p.replacedError(p.cur)
		}
		if err := p.push(ctx, groups); err != nil {
			return err
		}
	}
}

// readBytes bounds the tape bytes whose groups are read at once, and so
// the memory of a backlog: a group parsed and batched takes about eight
// times its tape bytes (bench/README.md, issue 29), so 2 MiB a read keeps
// tgpush well under 64 MiB whatever the backlog, while still reading
// hundreds of small groups at once. A single group larger than the bound is
// read in parts of about the bound (follower.stream).
const readBytes = 2 << 20

func (p *pusher) loop(ctx context.Context) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		size, err := p.fl.size()
		if err != nil {
			return fmt.Errorf("tgpush: cannot read the tape: %v", err)
		}
		limit := size
		if p.o.Once {
			limit = p.limit
		}
		groups, err := p.fl.read(limit, readBytes)
		if err != nil {
			if len(groups) > 0 { // the groups before a damaged line are the tape's
				err = errors.Join(p.push(ctx, groups), err)
			}
			return err
		}
		if len(groups) > 0 {
			if err := p.push(ctx, groups); err != nil {
				return err
			}
			continue
		}
		if p.o.Once {
			return nil
		}
		if gone, err := p.fl.replaced(); err != nil || gone {
			if err != nil {
				return fmt.Errorf("tgpush: cannot look at the tape: %v", err)
			}
			return p.drain(ctx)
		}
		if p.prog != nil {
			p.prog.show(p.behind(size))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(p.o.Poll):
		}
	}
}

// push sends the groups one at a time, saving the cursor after each the
// receiver took. One group a request is what makes a re-send after a kill
// harmless: the group in flight is the newest of every series in it, and a
// receiver takes a series' newest sample again as a duplicate, while an
// older one (a second group of the batch already taken) is "out of order"
// to Prometheus and Mimir, a refusal.
//
// A group's batch is built while the group before it is being sent (its
// requests encoded, posted, answered): the two halves of tgpush's work, and
// the receiver's, overlap. Two groups' sends never do: a group's first
// request goes only once every request of the group before it was taken
// and the cursor moved past it (a group's own requests go Inflight at a
// time). The building touches what sending does not (the
// groups' own state: the last seal, the marker count, the running totals)
// and sending what building does not (the cursor, the tape's identity).
//
// A batch whose group was taken is the next one's memory (p.spare): two
// batches serve a whole push.
func (p *pusher) push(ctx context.Context, groups []Group) error {
	var sending chan error // the group before's send, while this one is built
	var inFlight *batch
	sent := func() error {
		if sending == nil {
			return nil
		}
		err := <-sending
		sending = nil
		if err == nil {
			p.spare = inFlight
		}
		return err
	}
	for _, g := range groups {
		b := p.batch(g)
		if b != nil {
			p.encode(b)
		}
		if err := sent(); err != nil {
			return err
		}
		if b == nil {
			continue
		}
		sending, inFlight = make(chan error, 1), b
		go func() { sending <- p.send(ctx, b) }()
	}
	return sent()
}

// encode makes b's requests and their bodies: the marshalling and the
// compression are done while the group before is sent, not between its
// answer and this group's first request (bench/README.md, session 13).
func (p *pusher) encode(b *batch) {
	if b.clash != nil || b.fail != nil {
		return
	}
	b.reqs = p.shape.requests(b, p.o.MaxSamples)
	for i := range b.reqs {
		if i == len(b.bodies) {
			b.bodies = append(b.bodies, nil)
		}
		body, err := p.enc.encode(b.bodies[i], b.reqs[i])
		if err != nil {
			b.fail = err
			return
		}
		b.reqs[i].body, b.bodies[i] = body, body
	}
}

// newBatch returns an empty batch: the spare one if there is one.
func (p *pusher) newBatch() *batch {
	b := p.spare
	if b == nil {
		b = newBatch(p.o.Labels)
		b.direct = p.direct
		return b
	}
	p.spare = nil
	b.reset()
	return b
}

// batch is what push sends for group g, with the held groups before it;
// nil when g is held itself. Sent reads a tape through it too, so that
// tgcheck --receiver expects what push sends.
func (p *pusher) batch(g Group) *batch {
	if g.Part {
		return p.part(g)
	}
	if p.holds(g) {
		p.held = append(p.held, g) // the cursor stays before it until its seal's group is taken
		return nil
	}
	b := p.newBatch()
	for _, h := range p.held {
		b.groups = append(b.groups, placed{h, p.last.Start, false})
		if g.sealed() {
			g.Markers = append(slices.Clip(h.Markers), g.Markers...)
		}
	}
	p.held = nil
	p.add(b, g)
	b.after = p.after
	return b
}

// part is what push sends for a part of a group larger than a read: its
// series' samples, at the group's stamp; nil for a group --from TIME
// skips. The held groups and the data-quality samples go with the last
// part, which is sent as a group is, and only it moves the cursor.
func (p *pusher) part(g Group) *batch {
	if g.Seal.Start < p.skip {
		return nil
	}
	b := p.newBatch()
	b.part = true
	b.series(g.Series, tape.SampleMs(g.Seal.Start, g.Seal.Width))
	b.groups = append(b.groups, placed{g, g.Seal.Start, true})
	return b
}

// Inflight is how many requests of one group (a group of more than
// --max-samples samples, or of a few thousand: perRequest) are sent at
// once. They hold disjoint series, each series' one sample of the group,
// so their order does not matter to a receiver, one across a network
// answers two in one round trip's time, and one on this machine stores
// them on two cores. Requests of two groups are never in flight at once.
const Inflight = 2

// sendAtOnce sends reqs, Inflight at a time, and returns the samples the
// receiver took. The first refusal (or a stop) ends it: no request is
// started after it, and those in flight are called off: each one's try
// in flight is answered, and counted when taken, but not retried.
func (p *pusher) sendAtOnce(ctx context.Context, reqs []request) (int, error) {
	var (
		mu    sync.Mutex
		taken int
		first error
		wg    sync.WaitGroup
		slots = make(chan struct{}, Inflight)
		stop  = make(chan struct{})
	)
send:
	for _, r := range reqs {
		slots <- struct{}{}
		select {
		case <-stop: // one was refused: no more are started
			break send
		case <-ctx.Done():
			break send
		default:
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := p.s.sendUntil(ctx, stop, r.body)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				taken += r.samples
			case first == nil:
				first = err
				close(stop)
			}
			<-slots
		}()
	}
	wg.Wait()
	if first == nil && ctx.Err() != nil {
		first = ctx.Err()
	}
	return taken, first
}

// holds reports whether a marker-only group finds no millisecond of its
// own before the next bucket's samples (more marker-only groups since the
// last seal than the bucket has milliseconds): it then waits, and its
// markers are sent with the next sealed group's.
func (p *pusher) holds(g Group) bool {
	return !g.sealed() && p.pushes(g) && !tape.HasMarkerRoom(p.last.Width, p.after+1)
}

// pushes reports whether a marker-only group is pushed at all: it has
// markers, a sealed bucket before it to be stamped after, and that bucket
// is not one --from TIME skips (it belongs to that bucket).
func (p *pusher) pushes(g Group) bool {
	return len(g.Markers) > 0 && p.last.Kind == tape.Seal && p.last.Start >= p.skip
}

// add puts a group in a batch; a group --from TIME skips is there only for
// the cursor to move past it.
func (p *pusher) add(b *batch, g Group) {
	switch {
	case g.sealed():
		p.last, p.after = g.Seal, 0
		if g.Seal.Start >= p.skip {
			p.shape.add(b, g, g.Seal.Start, tape.SampleMs(g.Seal.Start, g.Seal.Width), 0)
			return
		}
	case p.pushes(g):
		p.after++
		p.shape.add(b, g, p.last.Start, tape.MarkerMs(p.last.Start, p.last.Width, p.after), p.after)
		return
	case p.last.Kind != tape.Seal && len(g.Markers) > 0:
		p.note(fmt.Sprintf("%d markers before the end record at byte %d go with no sealed bucket (this run sealed none), so they are not pushed; tgread --markers lists them", len(g.Markers), g.End))
	}
	p.shape.pass(b, g)
	b.groups = append(b.groups, placed{g, g.Seal.Start, false})
}

// send sends one group's batch, in requests of at most MaxSamples
// samples, and saves the cursor past it once the receiver took them all.
func (p *pusher) send(ctx context.Context, b *batch) error {
	if b.clash != nil {
		if p.cur.Offset > 0 {
			b.clash.Where = fmt.Sprintf("nothing from %s on was pushed (the buckets before it were, under the same --label: a tape an older document wrote)", b.span())
		}
		return b.clash
	}
	if b.fail != nil {
		return b.fail
	}
	taken := 0 // samples of this group the receiver took (a group split by --max-samples)
	reqs := b.reqs
	k, zeros := 0, false
	for ; k < len(reqs) && reqs[k].zeros; k++ {
		if p.cur.Zeroed {
			continue // taken before a kill: sent again, older than the values taken after them, they would be refused
		}
		if err := p.s.send(ctx, reqs[k].body); err != nil {
			return p.refusedError(err, b, p.taken+taken)
		}
		taken, zeros = taken+reqs[k].samples, true
	}
	if zeros && k < len(reqs) {
		if err := p.zeroed(); err != nil {
			return err
		}
	}
	n, err := p.sendAtOnce(ctx, reqs[k:])
	if taken += n; err != nil {
		return p.refusedError(err, b, p.taken+taken)
	}
	if b.part { // the cursor stays before the group until its last part is taken
		p.taken += taken
		return nil
	}
	samples := p.taken + b.samples // a group sent in parts: its parts' too
	p.taken = 0
	last := b.groups[len(b.groups)-1]
	from := p.cur.Offset
	id := p.fl.id
	if id.SigLen < sigSpan { // the tape was shorter at open: sign more of it now
		if fresh, err := fileIdentity(p.fl.f, sigSpan); err == nil {
			id, p.fl.id = fresh, fresh
		}
	}
	p.cur = Cursor{Offset: last.End, ID: id, Bucket: p.cur.Bucket, Width: p.cur.Width, From: p.skip, After: b.after}
	for _, g := range b.groups {
		if g.sealed() {
			p.cur.Bucket, p.cur.Width = g.Seal.Start, g.Seal.Width
		}
	}
	if err := p.save(); err != nil {
		return err
	}
	if p.prog != nil {
		size, _ := p.fl.size()
		p.out.Lock()
		p.prog.pushed(len(b.groups), samples, p.cur.Offset-from, p.behind(size))
		p.out.Unlock()
	}
	return nil
}

func (p *pusher) behind(size int64) int64 { return size - p.fl.off }

// resumes says where the next run starts, for notes.
func (p *pusher) resumes() string { return p.resumesAt(p.cur) }

func (p *pusher) resumesAt(c Cursor) string {
	from := ""
	if c.From != 0 {
		from = ", with the buckets from " + timeText(c.From)
	}
	if c.Offset == 0 {
		return "at the tape's start" + from
	}
	return "after the bucket at " + timeText(c.Bucket) + from
}

func (p *pusher) note(msg string) {
	if p.o.Quiet {
		return
	}
	p.out.Lock()
	defer p.out.Unlock()
	if p.prog != nil {
		p.prog.clear()
	}
	fmt.Fprintf(p.o.Stderr, "tgpush: note: %s\n", msg)
}

// quirk notes, once per kind, a record kind this tgpush does not know.
func (p *pusher) quirk(off int64, word string) {
	k, ok := p.quirked.Name(word, int(off))
	if !ok {
		return
	}
	p.note(fmt.Sprintf("the tape has records of a kind this tgpush does not know (%q at byte %d); they carry no sample and are passed over%s", word, off, k.Beyond()))
}

// replacedError says that the tape the cursor was taken on is gone, and how
// to push the one that replaced it without doubling what the receiver holds.
func (p *pusher) replacedError(c Cursor) error {
	pushed := "nothing of the old tape was pushed"
	how := fmt.Sprintf("remove the cursor %s and run tgpush again (--from start)", p.o.Cursor)
	if c.From != 0 {
		how = fmt.Sprintf("remove the cursor %s and run tgpush --from %s again", p.o.Cursor, timeText(c.From))
	}
	if c.Offset > 0 {
		next := timeText(c.Bucket + int64(c.Width))
		pushed = "the old one was pushed through the bucket at " + timeText(c.Bucket)
		how = fmt.Sprintf("the new tape re-derives buckets the receiver already holds, which it refuses when their values differ; to push the buckets after those, remove the cursor %s and run tgpush --from %s; to push the whole new tape, push it to a receiver (or tenant) that does not hold the old one, with --from start", p.o.Cursor, next)
	}
	return fmt.Errorf("tgpush: the tape of %s is not the one the cursor was taken on: it was replaced (tally --provision --replace keeps the old one as tape.replaced.*) or truncated; %s; %s", p.o.Dir, pushed, how)
}

// refusedError explains an answer that retrying cannot change.
func (p *pusher) refusedError(err error, b *batch, taken int) error {
	var ref *Refused
	if !errors.As(err, &ref) {
		return err
	}
	where := fmt.Sprintf("%s (nothing from it on was pushed; the next run resumes %s)", b.span(), p.resumes())
	if taken > 0 { // no request spans two groups, but a group may span requests
		of := fmt.Sprintf("%d of its %d samples", taken, b.samples)
		if b.part || p.taken > 0 {
			of = fmt.Sprintf("%d of its samples", taken) // a group sent in parts: its count is not held
		}
		where = fmt.Sprintf("%s (the receiver took %s in its other requests, the same values the next run sends again with the rest; nothing after it was pushed; the next run resumes %s)", b.span(), of, p.resumes())
	}
	text := clip(ref.Text)
	status := fmt.Sprintf("%d %s", ref.Status, http.StatusText(ref.Status))
	switch {
	case ref.Plain:
		return fmt.Errorf("tgpush: the receiver speaks plain http, not https, at %s; give an http:// --url (%s), or give the receiver TLS, and run tgpush again", where, httpURL(p.o.URL))
	case ref.Status == 0:
		return fmt.Errorf("tgpush: TLS with the receiver failed at %s: %s; for a certificate signed by your own CA give --ca-file, for a receiver that wants a client certificate --cert-file and --key-file, for one that speaks plain http an http:// --url", where, text)
	case ref.Status/100 == 3:
		loc := "no Location"
		if ref.Location != "" {
			loc = ref.Location
		}
		return fmt.Errorf("tgpush: the receiver redirected %s (%s) to %s, which tgpush does not follow (a redirected POST may lose its samples); if that is the receiver's remote-write endpoint, give it as --url and run tgpush again", where, status, loc)
	case ref.Status == http.StatusUnauthorized || ref.Status == http.StatusForbidden:
		return fmt.Errorf("tgpush: the receiver refused the credentials (%s) at %s; %s, then run tgpush again", status, where, p.credentialFix())
	case p.o.Protocol == ProtocolOTLP && (ref.Status == http.StatusNotFound || ref.Status == http.StatusMethodNotAllowed || ref.Status == http.StatusNotImplemented):
		return fmt.Errorf("tgpush: the receiver has no OTLP metrics endpoint at --url %s (%s) at %s: %s; check --url's path, e.g. /api/v1/otlp/v1/metrics for Prometheus 3 (run with --web.enable-otlp-receiver, and --enable-feature=otlp-native-delta-ingestion to take delta points), /v1/metrics on an OpenTelemetry Collector's port 4318, /otlp/v1/metrics for Mimir, then run tgpush again", redacted(p.o.URL), status, where, text)
	case ref.Status == http.StatusNotFound || ref.Status == http.StatusMethodNotAllowed:
		return fmt.Errorf("tgpush: the receiver has no remote-write endpoint at --url %s (%s) at %s: %s; check --url's path, e.g. /api/v1/write for Prometheus (run with --web.enable-remote-write-receiver) and for VictoriaMetrics, /api/v1/push for Mimir and Cortex, /api/v1/receive for Thanos Receive, then run tgpush again", redacted(p.o.URL), status, where, text)
	case ref.Status == http.StatusRequestEntityTooLarge:
		return fmt.Errorf("tgpush: the receiver refused %s as too large (413); give a lower --max-samples (now %d) and run tgpush again", where, p.o.MaxSamples)
	case ref.Status == http.StatusNotImplemented || ref.Status == http.StatusHTTPVersionNotSupported:
		return fmt.Errorf("tgpush: the receiver does not implement what remote write needs (%s) at %s: %s; check that --url names a remote-write receiver (Prometheus needs --web.enable-remote-write-receiver), then run tgpush again", status, where, text)
	case strings.Contains(ref.Text, "HTTP request to an HTTPS server"):
		return fmt.Errorf("tgpush: the receiver speaks https, not http, at %s; give --url https://… (with --ca-file for your own CA) and run tgpush again", where)
	case strings.Contains(ref.Text, "out of order") || strings.Contains(ref.Text, "duplicate sample"):
		return p.orderError(b, where, text)
	case ref.Status == http.StatusBadRequest && tooOld(ref.Text):
		return p.backfillError(b, where, text)
	}
	return fmt.Errorf("tgpush: the receiver refused %s (%s): %s; fix what it names and run tgpush again", where, status, text)
}

// tooOld reports whether a receiver's answer says the samples are older
// than it takes: Prometheus' "out of bounds", Mimir's "too old".
func tooOld(text string) bool {
	t := strings.ToLower(text)
	return strings.Contains(t, "out of bounds") || strings.Contains(t, "too old") || strings.Contains(t, "too far in the past")
}

// orderError explains an "out of order" or "duplicate sample": the tape's
// own order when it has this bucket after a later one (a fragment, the old
// defect), else another writer of the same series.
func (p *pusher) orderError(b *batch, where, text string) error {
	// The cursor is past the last bucket pushed, so a group at or before
	// it is the tape's own: a second group for a bucket it sealed already.
	if at := b.groups[0].at; p.cur.Offset > 0 && at <= p.cur.Bucket {
		return fmt.Errorf("tgpush: the receiver refused %s: %s; the tape itself has this bucket again after the bucket at %s, pushed before it: a fragment, the old defect of tapes written by an earlier tally, which a receiver that already holds the later samples refuses; tgcheck --scan %s names every fragment and what to do", where, text, timeText(p.cur.Bucket), shell.Quote(p.o.Dir))
	}
	other := "another store pushes the same series (give each its own --label, such as host=…)"
	if len(p.o.Labels) > 0 {
		other = fmt.Sprintf("another store pushes the same series under the same%s (give each store its own value)", labelFlags(tapeLabels(p.o.Labels), ""))
	}
	if p.fresh {
		return fmt.Errorf("tgpush: the receiver refused %s: %s; it holds newer samples of these series, and this run had no cursor (%s). If this store was pushed there before and its cursor is lost, resume after what the receiver holds, which pushes nothing twice: %s; or %s, fix that and run tgpush again",
			where, text, p.o.Cursor, p.resumeAdvice(), other)
	}
	return fmt.Errorf("tgpush: the receiver refused %s: %s; it holds other or newer samples of these series: %s, or this tape was pushed before under another cursor (--cursor, or another --url spelling); fix that and run tgpush again", where, text, other)
}

// resumeAdvice says how to find where the receiver's copy of the store
// ends and the --from that resumes after it: the newest
// timbertally_entries sample of the --label set is the last bucket pushed,
// at its last millisecond, so one millisecond later is the next bucket's
// start.
func (p *pusher) resumeAdvice() string {
	labels := tapeLabels(p.o.Labels)
	flags := labelFlags(labels, "")
	var sel strings.Builder
	for i, l := range labels {
		if i > 0 {
			sel.WriteByte(',')
		}
		fmt.Fprintf(&sel, "%s=%q", l.Name, l.Value)
	}
	// The next bucket's start: 1 ms after the newest sample. Any time
	// after the last pushed bucket's start, up to the next one's, resumes
	// alike, so a float's rounding in the last digit changes nothing.
	// The counters' entries are timbertally_entries_total at the same
	// stamp; OTLP's (named so by Prometheus) at the bucket's end, which is
	// the next bucket's start itself.
	entries, after := EntriesMetric, " + 0.001"
	switch p.shape.sends() {
	case SendsCounters:
		entries = cumulative.EntriesMetric + "_total"
	case SendsOTLP:
		entries, after = cumulative.EntriesMetric+"_total", ""
	}
	query := fmt.Sprintf("max(max_over_time(timestamp(%s{%s})[30d:1m]))%s", entries, sel.String(), after)
	base := *p.o.URL
	base.Path, base.RawQuery = "", ""
	rm := ""
	if _, err := os.Stat(p.o.Cursor); err == nil { // a first run's --from saved it
		rm = "rm " + shell.Quote(p.o.Cursor) + " && "
	}
	pushFlags := flags
	if sends := p.shape.sends(); sends != SendsBuckets {
		pushFlags = strings.TrimPrefix(shapeFlags(sends), " with") + pushFlags
	}
	if p.o.Once {
		pushFlags = " --once" + pushFlags
	}
	if p.o.Cursor != DefaultCursor(p.o.Dir, p.o.URL.String()) {
		pushFlags = " --cursor " + shell.Quote(p.o.Cursor) + pushFlags
	}
	curl := rm + fmt.Sprintf(`T=$(curl -s %s --data-urlencode %s | sed -n 's/.*"value":\[[^,]*,"\([0-9.]*\)".*/\1/p') && tgpush --from "$(date -u -d "@$T" +%%Y-%%m-%%dT%%H:%%M:%%S.%%3NZ)" --url %s%s %s`,
		shell.Quote(redacted(&base)+"/api/v1/query"), shell.Quote("query="+query), shell.Quote(redacted(p.o.URL)), pushFlags, shell.Quote(p.o.Dir))
	check := fmt.Sprintf("tgcheck --receiver %s%s %s says where its copy ends and the --from that resumes after it; or, by", redacted(&base), flags, shell.Quote(p.o.Dir))
	if p.shape.sends() != SendsBuckets { // tgcheck --receiver reads the buckets' shape only
		check = "By"
	}
	return fmt.Sprintf("%s the query API of a Prometheus (Mimir and Thanos: theirs, with the same query; VictoriaMetrics, with -dedup.minScrapeInterval, takes a re-sent sample as the same one and never refuses this) (the newest %s sample is the last pushed bucket's end; widen 30d for an older copy; give tgpush's other flags too): %s (the markers of runs that sealed nothing after that bucket go with it)",
		check, entries, curl)
}

// backfillError advises the OpenMetrics path for buckets older than the
// receiver takes; the backfill carries the --label labels, so its series
// are the ones tgpush pushes.
func (p *pusher) backfillError(b *batch, where, text string) error {
	restart := "run tgpush --from T"
	if _, err := os.Stat(p.o.Cursor); err == nil {
		restart = fmt.Sprintf("remove the cursor %s and run tgpush --from T", p.o.Cursor)
	}
	var labels strings.Builder
	for _, l := range p.o.Labels {
		labels.WriteString(" --label " + shell.Quote(l.Name+"="+l.Value))
	}
	return fmt.Errorf("tgpush: the receiver refused %s: %s; the samples are older than it takes: backfill those buckets another way (tgread --format openmetrics --from %s --to T%s %s > backfill.om; promtool tsdb create-blocks-from openmetrics backfill.om DATA) and push from T: %s, T being a bucket start the receiver takes",
		where, text, timeText(b.groups[0].at), labels.String(), shell.Quote(p.o.Dir), restart)
}

// httpURL is --url with http:// for https://, redacted.
func httpURL(u *url.URL) string {
	c := *u
	c.Scheme = "http"
	return redacted(&c)
}

// credentialFix names the flags that give the credentials tgpush sent.
func (p *pusher) credentialFix() string {
	a := &p.o.Auth
	switch {
	case a.BearerTokenFile != "":
		return "check the token in --bearer-token-file " + a.BearerTokenFile
	case a.BasicUser != "":
		return "check --basic-auth-user and the password in --basic-auth-password-file " + a.BasicPasswordFile
	case len(a.Headers) > 0:
		return "give credentials: --bearer-token-file, or --basic-auth-user with --basic-auth-password-file (and check the --header values)"
	}
	return "give credentials: --bearer-token-file, or --basic-auth-user with --basic-auth-password-file"
}

// clip bounds a receiver's answer quoted in a message.
func clip(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}
