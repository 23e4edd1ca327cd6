package push

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/timbertally/timbertally/lib/internal/testkit"

	prompb "buf.build/gen/go/prometheus/prometheus/protocolbuffers/go"
	"github.com/klauspost/compress/snappy"
	"google.golang.org/protobuf/proto"
)

// fakeReceiver decodes remote-write requests and answers each with the
// status its answer function picks (200 when nil). It is no stand-in for
// the real servers (testscripts pushes to those); it lets a test script
// the faults.
type fakeReceiver struct {
	t       testing.TB
	srv     *httptest.Server
	mu      sync.Mutex
	answer  func(n int, req *prompb.WriteRequest, h http.Header) int
	n       int
	samples []string // "metric{labels} ms value" of every request answered 2xx
	headers []http.Header
	text    map[int]string // what an answer of a status says after "answer N" (set before the first request)
	header  http.Header    // headers every answer carries (set before the first request)
	// requests being answered now, and the most at once
	inflight, maxInflight atomic.Int32
	// the sample stamps of the requests being answered now; mixed: two
	// requests of different stamps (two groups') were answered at once
	stampMu sync.Mutex
	stamps  map[int64]int
	mixed   bool
	delay   time.Duration // how long each answer takes (set before the first request)
}

func newFake(t testing.TB, answer func(n int, req *prompb.WriteRequest, h http.Header) int) *fakeReceiver {
	f := &fakeReceiver{t: t, answer: answer}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeReceiver) url() string { return f.srv.URL + "/api/v1/write" }

func (f *fakeReceiver) serve(w http.ResponseWriter, r *http.Request) {
	n := f.inflight.Add(1)
	defer f.inflight.Add(-1)
	for m := f.maxInflight.Load(); n > m && !f.maxInflight.CompareAndSwap(m, n); m = f.maxInflight.Load() {
	}
	body, _ := io.ReadAll(r.Body)
	if r.Header.Get("Content-Encoding") != "snappy" || r.Header.Get("X-Prometheus-Remote-Write-Version") != "0.1.0" {
		http.Error(w, "not remote write 1.0", http.StatusBadRequest)
		return
	}
	raw, err := snappy.Decode(nil, body)
	var req prompb.WriteRequest
	if err == nil {
		err = proto.Unmarshal(raw, &req)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	defer f.answering(&req)()
	time.Sleep(f.delay)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n++
	f.headers = append(f.headers, r.Header.Clone())
	status := http.StatusNoContent
	if f.answer != nil {
		status = f.answer(f.n, &req, r.Header)
	}
	if status/100 == 2 {
		for _, ts := range req.Timeseries {
			for _, s := range ts.Samples {
				f.samples = append(f.samples, fmt.Sprintf("%s %d %v", seriesText(ts.Labels), s.Timestamp, s.Value))
			}
		}
	}
	for k, v := range f.header {
		w.Header()[k] = v
	}
	w.WriteHeader(status)
	fmt.Fprintf(w, "answer %d%s", status, f.text[status])
}

// answering records req's stamps as being answered, and returns the
// function that records it answered.
func (f *fakeReceiver) answering(req *prompb.WriteRequest) func() {
	var stamp int64
	if len(req.Timeseries) > 0 && len(req.Timeseries[0].Samples) > 0 {
		stamp = req.Timeseries[0].Samples[0].Timestamp
	}
	f.stampMu.Lock()
	defer f.stampMu.Unlock()
	if f.stamps == nil {
		f.stamps = map[int64]int{}
	}
	if f.stamps[stamp]++; len(f.stamps) > 1 {
		f.mixed = true
	}
	return func() {
		f.stampMu.Lock()
		defer f.stampMu.Unlock()
		if f.stamps[stamp]--; f.stamps[stamp] == 0 {
			delete(f.stamps, stamp)
		}
	}
}

// syncBuffer is the buffer tgpush writes while the test reads it.
type syncBuffer = testkit.SyncBuffer

func seriesText(ls []*prompb.Label) string {
	var parts []string
	for _, l := range ls {
		parts = append(parts, l.Name+"="+l.Value)
	}
	return strings.Join(parts, ",")
}

// got returns the samples taken, sorted, without duplicates (as a TSDB
// keeps them).
func (f *fakeReceiver) got() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := slices.Clone(f.samples)
	slices.Sort(s)
	return slices.Compact(s)
}

// store makes a tally store whose tape is text.
func store(t testing.TB, text string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "document"), []byte("format apache-combined\nwindow 10s\nmetric requests count by=status\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tape"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func appendTape(t *testing.T, dir, text string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, "tape"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

// tgpush runs the command line in-process until it exits or ctx is done.
func tgpush(ctx context.Context, args ...string) (code int, stderr string) {
	var out, errb bytes.Buffer
	code = run(ctx, append([]string{"tgpush", "--retry-max", "20ms", "--poll", "5ms"}, args...), &out, &errb, false)
	return code, errb.String()
}

// The buckets of the tapes below, in milliseconds.
// The buckets' samples are stamped at their last millisecond.
const (
	b1 = 1796121339999 // 2026-12-01T10:35:39.999Z, the last ms of the bucket at 10:35:30
	b2 = b1 + 10000
	b3 = b2 + 10000
)

const threeGroups = `2026-12-01T10:35:30Z requests{status="200"} 4
2026-12-01T10:35:30Z requests{status="404"} 1
seal 2026-12-01T10:35:30Z width=10s entries=5 at=web:500
!late 2026-12-01T10:35:30Z id=web offset=500 end=600 count=2
!drop id=web offset=600 end=700 count=1 reason=no-time
2026-12-01T10:35:40Z requests{status="200"} 7
!cap 2026-12-01T10:35:40Z metric=requests id=web offset=700 end=800 count=3
seal 2026-12-01T10:35:40Z width=10s entries=10 at=web:900
2026-12-01T10:35:50Z requests{status="500"} 2
seal 2026-12-01T10:35:50Z width=10s entries=2 at=web:1000
`

// threeGroupsSamples is what threeGroups holds, worked out by hand from
// the tape above.
var threeGroupsSamples = []string{
	fmt.Sprintf("__name__=requests,status=200 %d 4", b1),
	fmt.Sprintf("__name__=requests,status=200 %d 7", b2),
	fmt.Sprintf("__name__=requests,status=404 %d 1", b1),
	fmt.Sprintf("__name__=requests,status=500 %d 2", b3),
	fmt.Sprintf("__name__=timbertally_capped_entries,metric=requests %d 3", b2),
	fmt.Sprintf("__name__=timbertally_dropped_entries,reason=no-time %d 1", b2),
	fmt.Sprintf("__name__=timbertally_entries %d 5", b1),
	fmt.Sprintf("__name__=timbertally_entries %d 10", b2),
	fmt.Sprintf("__name__=timbertally_entries %d 2", b3),
	fmt.Sprintf("__name__=timbertally_late_entries %d 0", b1),
	fmt.Sprintf("__name__=timbertally_late_entries %d 2", b2),
	fmt.Sprintf("__name__=timbertally_late_entries %d 0", b3),
}

func sameSamples(t *testing.T, got, want []string) {
	t.Helper()
	want = slices.Sorted(slices.Values(want))
	if !slices.Equal(got, want) {
		t.Fatalf("the receiver took\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestEachGroupIsPushedAtItsBucketsLastMillisecondWithItsDataQualitySeries(t *testing.T) {
	f := newFake(t, nil)
	dir := store(t, threeGroups)
	if code, stderr := tgpush(context.Background(), "--once", "--url", f.url(), dir); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	sameSamples(t, f.got(), threeGroupsSamples)
}

func TestAGroupsRequestsGoAtOnceAndItIsBuiltWhileTheOneBeforeIsSentButTwoGroupsRequestsAreNeverInFlightAtOnce(t *testing.T) {
	f := newFake(t, nil)
	f.delay = 3 * time.Millisecond // each answer slow enough that a second request would overlap it
	var tape strings.Builder
	var want []string
	for k := range 40 {
		start := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC).Add(time.Duration(k) * 10 * time.Second)
		ts := start.Format(time.RFC3339)
		ms := start.UnixMilli() + 9999
		for s := range 3 {
			fmt.Fprintf(&tape, "%s requests{status=\"%d\"} %d\n", ts, 200+s, k+s)
			want = append(want, fmt.Sprintf("__name__=requests,status=%d %d %d", 200+s, ms, k+s))
		}
		fmt.Fprintf(&tape, "seal %s width=10s entries=%d at=web:%d\n", ts, 3*k+3, 100*(k+1))
		want = append(want, fmt.Sprintf("__name__=timbertally_entries %d %d", ms, 3*k+3), fmt.Sprintf("__name__=timbertally_late_entries %d 0", ms))
	}
	dir := store(t, tape.String())
	if code, stderr := tgpush(context.Background(), "--once", "--max-samples", "2", "--url", f.url(), dir); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	sameSamples(t, f.got(), want)
	if m := f.maxInflight.Load(); m != Inflight {
		t.Errorf("at most %d requests were in flight at once, want %d: a group's requests go at once", m, Inflight)
	}
	if f.mixed {
		t.Error("requests of two groups were in flight at once: a group's requests go only after the group before it was taken")
	}
	if f.n != 40*3 { // five samples a group, two a request
		t.Errorf("%d requests, want 120", f.n)
	}
}

func TestAFailingOrBusyReceiverIsRetriedWithOneNotePerChangeOfState(t *testing.T) {
	// Three 503s, two 429s, then 2xx, then two more 503s for the next request.
	answers := map[int]int{1: 503, 2: 503, 3: 503, 4: 429, 5: 429, 7: 503, 8: 503}
	f := newFake(t, func(n int, _ *prompb.WriteRequest, _ http.Header) int {
		if a, ok := answers[n]; ok {
			return a
		}
		return 204
	})
	dir := store(t, threeGroups)
	// One group a request: the second request meets the second outage.
	code, stderr := tgpush(context.Background(), "--once", "--url", f.url(), dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	sameSamples(t, f.got(), threeGroupsSamples)
	want := "tgpush: note: the receiver fails (503 Service Unavailable); retrying with backoff until it answers, nothing is dropped\n" +
		"tgpush: note: the receiver is rate-limiting (429 Too Many Requests); retrying with backoff until it answers, nothing is dropped\n" +
		"tgpush: note: the receiver takes samples again; nothing was lost\n" +
		"tgpush: note: the receiver fails (503 Service Unavailable); retrying with backoff until it answers, nothing is dropped\n" +
		"tgpush: note: the receiver takes samples again; nothing was lost\n"
	if stderr != want {
		t.Errorf("stderr\n%s\nwant\n%s", stderr, want)
	}
}

func TestAnUnreachableReceiverIsRetriedUntilItListens(t *testing.T) {
	f := newFake(t, nil)
	addr := f.srv.Listener.Addr().String()
	f.srv.Close() // nothing listens there now
	dir := store(t, threeGroups)
	var errb syncBuffer
	done := make(chan struct{})
	go func() {
		run(context.Background(), []string{"tgpush", "--retry-max", "20ms", "--once", "--url", "http://" + addr + "/api/v1/write", dir}, io.Discard, &errb, false)
		close(done)
	}()
	testkit.Poll(t, "tgpush to say the receiver cannot be reached", func() bool { return strings.Contains(errb.String(), "cannot be reached") })
	if _, err := os.Stat(DefaultCursor(dir, "http://"+addr+"/api/v1/write")); err == nil {
		t.Fatal("a cursor was saved while the receiver was down")
	}
	g := newFakeAt(t, addr)
	<-done
	stderr := errb.String()
	sameSamples(t, g.got(), threeGroupsSamples)
	if n := strings.Count(stderr, "cannot be reached"); n != 1 {
		t.Errorf("%d notes of the outage, want 1:\n%s", n, stderr)
	}
}

// newFakeAt starts a fake receiver on addr (a port just freed).
func newFakeAt(t *testing.T, addr string) *fakeReceiver {
	f := &fakeReceiver{t: t}
	f.srv = httptest.NewUnstartedServer(http.HandlerFunc(f.serve))
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		l, err := netListen(addr)
		if err == nil {
			f.srv.Listener.Close()
			f.srv.Listener = l
			break
		}
		if time.Now().After(deadline) {
			t.Fatal(err)
		}
	}
	f.srv.Start()
	t.Cleanup(f.srv.Close)
	return f
}

func TestARefusedBucketStopsTgpushNamingItWithTheBucketsBeforeItPushed(t *testing.T) {
	f := newFake(t, func(_ int, req *prompb.WriteRequest, _ http.Header) int {
		for _, ts := range req.Timeseries {
			for _, s := range ts.Samples {
				if s.Timestamp == b2 {
					return http.StatusBadRequest // out of bounds, say
				}
			}
		}
		return 200
	})
	f.text = map[int]string{400: ": out of bounds"}
	dir := store(t, threeGroups)
	code, stderr := tgpush(context.Background(), "--once", "--label", "host=web 1", "--label", "dc=eu", "--url", f.url(), dir)
	if code != 1 {
		t.Fatalf("exit %d, want 1: %s", code, stderr)
	}
	for _, want := range []string{"refused the bucket at 2026-12-01T10:35:40Z", "answer 400: out of bounds", "the next run resumes after the bucket at 2026-12-01T10:35:30Z",
		"tgread --format openmetrics --from 2026-12-01T10:35:40Z --to T --label dc=eu --label 'host=web 1' " + dir + " > backfill.om", "tgpush --from T"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	got := f.got()
	if len(got) != 4 || !strings.HasSuffix(got[0], fmt.Sprintf("%d 4", b1)) {
		t.Errorf("the receiver took %q, want the first bucket's 4 samples", got)
	}
	c, ok, err := loadCursor(DefaultCursor(dir, f.url()))
	if err != nil || !ok || c.Bucket != (b1-9999)*1e6 {
		t.Errorf("cursor %+v %v %v, want it after the first bucket", c, ok, err)
	}
}

func TestRefusedCredentialsStopTgpushNamingTheFlagAndNeverTheSecret(t *testing.T) {
	f := newFake(t, func(_ int, _ *prompb.WriteRequest, h http.Header) int {
		if u, p, ok := (&http.Request{Header: h}).BasicAuth(); ok && u == "web1" && p == "right horse" {
			return 200
		}
		return http.StatusUnauthorized
	})
	dir := store(t, threeGroups)
	pw := filepath.Join(t.TempDir(), "password")
	os.WriteFile(pw, []byte("wrong staple\n"), 0o600)
	code, stderr := tgpush(context.Background(), "--once", "--basic-auth-user", "web1", "--basic-auth-password-file", pw, "--url", f.url(), dir)
	if code != 1 || !strings.Contains(stderr, "refused the credentials (401 Unauthorized)") || !strings.Contains(stderr, "--basic-auth-password-file "+pw) {
		t.Errorf("exit %d, stderr %s", code, stderr)
	}
	if strings.Contains(stderr, "staple") {
		t.Errorf("the password is in the message: %s", stderr)
	}
	os.WriteFile(pw, []byte("right horse\n"), 0o600)
	code, stderr = tgpush(context.Background(), "--once", "--header", "X-Scope-OrgID=web", "--basic-auth-user", "web1", "--basic-auth-password-file", pw, "--url", f.url(), dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	sameSamples(t, f.got(), threeGroupsSamples)
	if h := f.headers[len(f.headers)-1]; h.Get("X-Scope-OrgID") != "web" {
		t.Errorf("headers %v lack X-Scope-OrgID: web", h)
	}
}

func TestABearerTokenIsSentFromItsFile(t *testing.T) {
	f := newFake(t, func(_ int, _ *prompb.WriteRequest, h http.Header) int {
		if h.Get("Authorization") == "Bearer s3cret" {
			return 200
		}
		return http.StatusForbidden
	})
	dir := store(t, threeGroups)
	tok := filepath.Join(t.TempDir(), "token")
	os.WriteFile(tok, []byte("s3cret\n"), 0o600)
	if code, stderr := tgpush(context.Background(), "--once", "--bearer-token-file", tok, "--url", f.url(), dir); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	sameSamples(t, f.got(), threeGroupsSamples)
	os.WriteFile(tok, []byte("stale\n"), 0o600)
	os.Remove(DefaultCursor(dir, f.url()))
	code, stderr := tgpush(context.Background(), "--once", "--bearer-token-file", tok, "--url", f.url(), dir)
	if code != 1 || !strings.Contains(stderr, "(403 Forbidden)") || !strings.Contains(stderr, "--bearer-token-file "+tok) || strings.Contains(stderr, "stale") {
		t.Errorf("exit %d, stderr %s", code, stderr)
	}
}

func TestSecretsAreNeverTakenOnTheCommandLine(t *testing.T) {
	dir := store(t, threeGroups)
	for _, args := range [][]string{
		{"--url", "http://web1:pw@127.0.0.1:1/api/v1/write", dir},
		{"--header", "Authorization=Bearer x", dir},
		{"--basic-auth-user", "web1", dir},
	} {
		if code, stderr := tgpush(context.Background(), args...); code != 2 || strings.Contains(stderr, "pw@") {
			t.Errorf("%q: exit %d, want 2 (usage): %s", args, code, stderr)
		}
	}
}

func TestOnlyWholeGroupsArePushedAndTheRestWaitsForItsSeal(t *testing.T) {
	f := newFake(t, nil)
	// The second group has no seal yet and its last line is torn.
	dir := store(t, threeGroups[:strings.Index(threeGroups, "seal 2026-12-01T10:35:40Z")]+"seal 2026-12-01T10:35:4")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int)
	go func() { code, _ := tgpush(ctx, "--url", f.url(), dir); done <- code }()
	waitSamples(t, f, 4)
	appendTape(t, dir, threeGroups[strings.Index(threeGroups, "0Z width=10s entries=10"):])
	waitSamples(t, f, len(threeGroupsSamples))
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d after a signal, want 0", code)
	}
	sameSamples(t, f.got(), threeGroupsSamples)
}

func waitSamples(t *testing.T, f *fakeReceiver, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); len(f.got()) < n; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the receiver took %d samples, want %d: %q", len(f.got()), n, f.got())
		}
	}
}

func TestRecordKindsAddedLaterArePassedOverWithOneNote(t *testing.T) {
	f := newFake(t, nil)
	dir := store(t, "identity id=web dev=1 ino=2\n"+threeGroups+"identity id=web dev=1 ino=3\n")
	code, stderr := tgpush(context.Background(), "--once", "--url", f.url(), dir)
	if code != 0 || strings.Count(stderr, `"identity"`) != 1 {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	sameSamples(t, f.got(), threeGroupsSamples)
}

func TestADamagedKnownRecordStopsTgpush(t *testing.T) {
	f := newFake(t, nil)
	dir := store(t, strings.Replace(threeGroups, "width=10s entries=10", "widht=10s entries=10", 1))
	code, stderr := tgpush(context.Background(), "--once", "--url", f.url(), dir)
	if code != 1 || !strings.Contains(stderr, "damaged") {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	if len(f.got()) != 4 {
		t.Errorf("took %d samples, want the first group's 4", len(f.got()))
	}
}

// Each run that seals nothing (feed without --follow, only malformed or
// late lines) ends in a marker-only group; each gets its own millisecond
// after the last bucket's samples, so none collides with another, across
// runs of tgpush --once too.
func TestEachMarkerOnlyGroupHasItsOwnMillisecondAfterTheLastBucketsSamples(t *testing.T) {
	f := newFake(t, nil)
	dir := store(t, threeGroups+"!drop id=web offset=1000 end=1100 count=4 reason=no-time\nend at=web:1100\n")
	if code, stderr := tgpush(context.Background(), "--once", "--url", f.url(), dir); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	appendTape(t, dir, "!drop id=web offset=1100 end=1200 count=3 reason=no-time\n!late 2026-12-01T10:35:30Z id=web offset=1200 end=1300 count=5\nend at=web:1300\n")
	if code, stderr := tgpush(context.Background(), "--once", "--url", f.url(), dir); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	appendTape(t, dir, "2026-12-01T10:36:00Z requests{status=\"200\"} 1\n!drop id=web offset=1300 end=1400 count=1 reason=no-time\nseal 2026-12-01T10:36:00Z width=10s entries=1 at=web:1400\n")
	if code, stderr := tgpush(context.Background(), "--once", "--url", f.url(), dir); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := append(slices.Clone(threeGroupsSamples),
		fmt.Sprintf("__name__=timbertally_dropped_entries,reason=no-time %d 4", b3+1),
		fmt.Sprintf("__name__=timbertally_dropped_entries,reason=no-time %d 3", b3+2),
		fmt.Sprintf("__name__=timbertally_late_entries %d 5", b3+2),
		fmt.Sprintf("__name__=requests,status=200 %d 1", b3+10000),
		fmt.Sprintf("__name__=timbertally_entries %d 1", b3+10000),
		fmt.Sprintf("__name__=timbertally_late_entries %d 0", b3+10000),
		fmt.Sprintf("__name__=timbertally_dropped_entries,reason=no-time %d 1", b3+10000))
	sameSamples(t, f.got(), want)
}

func TestFromEndPushesOnlyBucketsSealedLaterAndFromTimeThoseFromIt(t *testing.T) {
	f := newFake(t, nil)
	dir := store(t, threeGroups)
	if code, stderr := tgpush(context.Background(), "--once", "--from", "end", "--url", f.url(), dir); code != 0 || len(f.got()) != 0 {
		t.Fatalf("exit %d, took %q: %s", code, f.got(), stderr)
	}
	appendTape(t, dir, "2026-12-01T10:36:00Z requests 9\nseal 2026-12-01T10:36:00Z width=10s entries=9\n")
	if code, stderr := tgpush(context.Background(), "--once", "--url", f.url(), dir); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b4 := b3 + 10000
	sameSamples(t, f.got(), []string{fmt.Sprintf("__name__=requests %d 9", b4), fmt.Sprintf("__name__=timbertally_entries %d 9", b4), fmt.Sprintf("__name__=timbertally_late_entries %d 0", b4)})

	g := newFake(t, nil)
	if code, stderr := tgpush(context.Background(), "--once", "--from", "2026-12-01T10:35:50Z", "--url", g.url(), dir); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got := g.got()
	for _, s := range got {
		if !strings.Contains(s, fmt.Sprint(b3)) && !strings.Contains(s, fmt.Sprint(b4)) {
			got = nil
		}
	}
	if len(got) != 6 {
		t.Errorf("--from took %q, want the last two buckets' 6 samples", g.got())
	}
	code, stderr := tgpush(context.Background(), "--once", "--from", "start", "--url", g.url(), dir)
	if code != 2 || !strings.Contains(stderr, "--from is for a first run") {
		t.Errorf("--from with a cursor: exit %d, %s", code, stderr)
	}
}

func TestASecondTgpushOnOneCursorIsRefused(t *testing.T) {
	f := newFake(t, nil)
	dir := store(t, threeGroups)
	l, err := lock(DefaultCursor(dir, f.url()))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	code, stderr := tgpush(context.Background(), "--once", "--url", f.url(), dir)
	if code != 1 || !strings.Contains(stderr, "is in use by tgpush pid") || len(f.got()) != 0 {
		t.Errorf("exit %d, %s", code, stderr)
	}
}

func TestATapeReplacedUnderTgpushStopsItSayingHowToPushTheNewOne(t *testing.T) {
	f := newFake(t, nil)
	dir := store(t, threeGroups)
	done := make(chan string)
	go func() { _, stderr := tgpush(context.Background(), "--url", f.url(), dir); done <- stderr }()
	waitSamples(t, f, len(threeGroupsSamples))
	// tally sealed one more bucket, and began another, before the replace.
	appendTape(t, dir, "2026-12-01T10:36:00Z requests 9\nseal 2026-12-01T10:36:00Z width=10s entries=9\n2026-12-01T10:36:10Z requests 1")
	tp := filepath.Join(dir, "tape")
	if err := os.Rename(tp, tp+".replaced.2026-12-01T10:40:00Z"); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(tp, nil, 0o644)
	stderr := <-done
	if !strings.Contains(stderr, "was replaced") || !strings.Contains(stderr, "tgpush --from 2026-12-01T10:36:10Z") {
		t.Errorf("stderr %s", stderr)
	}
	if n := len(f.got()); n != len(threeGroupsSamples)+3 {
		t.Errorf("the receiver took %d samples, want the old tape's %d", n, len(threeGroupsSamples)+3)
	}
	// Started again on the new tape, it refuses as well.
	code, stderr := tgpush(context.Background(), "--once", "--url", f.url(), dir)
	if code != 1 || !strings.Contains(stderr, "was replaced") {
		t.Errorf("exit %d, %s", code, stderr)
	}
}

func TestATerminalShowsProgressAndAPipeOrQuietShowsNone(t *testing.T) {
	f := newFake(t, nil)
	for _, c := range []struct {
		tty   bool
		quiet bool
		want  bool
	}{{true, false, true}, {false, false, false}, {true, true, false}} {
		dir := store(t, threeGroups)
		var errb bytes.Buffer
		args := []string{"tgpush", "--once", "--url", f.url(), dir}
		if c.quiet {
			args = append(args, "-q")
		}
		if code := run(context.Background(), args, io.Discard, &errb, c.tty); code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
		if got := strings.Contains(errb.String(), "buckets pushed"); got != c.want {
			t.Errorf("tty %v, -q %v: progress shown %v, want %v: %q", c.tty, c.quiet, got, c.want, errb.String())
		}
	}
}

func TestARequestTooLargeStopsTgpushNamingMaxSamples(t *testing.T) {
	f := newFake(t, func(_ int, req *prompb.WriteRequest, _ http.Header) int {
		if len(req.Timeseries) > 2 {
			return http.StatusRequestEntityTooLarge
		}
		return 200
	})
	dir := store(t, threeGroups)
	code, stderr := tgpush(context.Background(), "--once", "--url", f.url(), dir)
	if code != 1 || !strings.Contains(stderr, "lower --max-samples (now 5000)") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if code, stderr := tgpush(context.Background(), "--once", "--max-samples", "2", "--url", f.url(), dir); code != 0 {
		t.Fatalf("--max-samples 2: exit %d: %s", code, stderr)
	}
	sameSamples(t, f.got(), threeGroupsSamples)
}

func TestADamagedLineInsideAGroupStopsTgpushBeforeThatGroupNamingItsByte(t *testing.T) {
	for _, bad := range []string{"garbage here", "\x00\x00\x00\x00\x00\x00"} {
		f := newFake(t, nil)
		// The damaged line sits inside the second group, after its first series.
		at := strings.Index(threeGroups, "!cap 2026-12-01T10:35:40Z")
		dir := store(t, threeGroups[:at]+bad+"\n"+threeGroups[at:])
		code, stderr := tgpush(context.Background(), "--once", "--url", f.url(), dir)
		if code != 1 {
			t.Fatalf("%q: exit %d, want 1: %s", bad, code, stderr)
		}
		for _, want := range []string{fmt.Sprintf("the line at byte %d:", at), "tgcheck --scan " + dir, "tgread and tgcheck refuse it too", "tally --provision --replace --doc " + filepath.Join(dir, "document") + " " + dir + " (the old tape"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("%q: stderr lacks %q: %s", bad, want, stderr)
			}
		}
		if strings.Contains(stderr, "passed over") {
			t.Errorf("%q: passed over as a later kind: %s", bad, stderr)
		}
		var first []string // the whole first group, and nothing of the damaged one
		for _, s := range threeGroupsSamples {
			if strings.Contains(s, fmt.Sprintf(" %d ", b1)) {
				first = append(first, s)
			}
		}
		sameSamples(t, f.got(), first)
	}
}

func TestFromTimeIsKeptInTheCursorSoEveryLaterRunSkipsTheBucketsBeforeIt(t *testing.T) {
	// A first run with --from whose receiver never takes a sample, stopped
	// before it pushed anything (as a kill would).
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	down := newFake(t, func(int, *prompb.WriteRequest, http.Header) int { cancel(); return http.StatusServiceUnavailable })
	dir := store(t, threeGroups)
	cursor := filepath.Join(t.TempDir(), "c")
	if code, stderr := tgpush(ctx, "--cursor", cursor, "--from", "2026-12-01T10:35:40Z", "--url", down.url(), dir); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	f := newFake(t, nil)
	if code, stderr := tgpush(context.Background(), "--once", "--cursor", cursor, "--url", f.url(), dir); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var want []string // the buckets from 10:35:40 on, and none before
	for _, s := range threeGroupsSamples {
		if !strings.Contains(s, fmt.Sprintf(" %d ", b1)) {
			want = append(want, s)
		}
	}
	sameSamples(t, f.got(), want)

	// A first run from a time after the whole tape pushes nothing, and a
	// later run does not push the buckets before that time appended since.
	g := newFake(t, nil)
	if code, stderr := tgpush(context.Background(), "--once", "--from", "2030-01-01T00:00:00Z", "--url", g.url(), dir); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	appendTape(t, dir, "2026-12-01T10:36:00Z requests 9\nseal 2026-12-01T10:36:00Z width=10s entries=9\n")
	code, stderr := tgpush(context.Background(), "--once", "--url", g.url(), dir)
	if code != 0 || len(g.got()) != 0 {
		t.Fatalf("exit %d, took %q: %s", code, g.got(), stderr)
	}
	if c, ok, err := loadCursor(DefaultCursor(dir, g.url())); err != nil || !ok || c.From != 1893456000*1e9 {
		t.Errorf("cursor %+v %v %v, want from=2030-01-01T00:00:00Z", c, ok, err)
	}
	// Repeating the first run's --from changes nothing and is not refused.
	if code, stderr := tgpush(context.Background(), "--once", "--from", "2030-01-01T00:00:00Z", "--url", g.url(), dir); code != 0 || len(g.got()) != 0 {
		t.Fatalf("exit %d, took %q: %s", code, g.got(), stderr)
	}
}

// refusal runs tgpush --once against a receiver and returns its exit
// status and stderr, failing the test when tgpush retries past a few
// seconds (an answer it should have stopped on).
func refusal(t *testing.T, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	code, stderr := tgpush(ctx, append([]string{"--once"}, args...)...)
	if ctx.Err() != nil {
		t.Fatalf("%q still retried after 5s: %s", args, stderr)
	}
	return code, stderr
}

func TestAnHTTPSURLToAPlainHTTPReceiverStopsTgpushAdvisingAnHTTPURL(t *testing.T) {
	f := newFake(t, nil)
	dir := store(t, threeGroups)
	u := strings.Replace(f.url(), "http://", "https://", 1)
	code, stderr := refusal(t, "--url", u, dir)
	if code != 1 || !strings.Contains(stderr, "speaks plain http, not https") || !strings.Contains(stderr, "give an http:// --url ("+f.url()+")") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

func TestEachRefusalNamesItsOwnFix(t *testing.T) {
	for _, c := range []struct {
		status int
		text   string
		want   []string
		not    string
	}{
		{404, "", []string{"no remote-write endpoint at --url", "(404 Not Found)", "/api/v1/write for Prometheus", "/api/v1/push for Mimir"}, "backfill"},
		{405, "", []string{"(405 Method Not Allowed)", "check --url's path"}, "backfill"},
		{400, ": sample timestamp too old", []string{"older than it takes", "tgread --format openmetrics"}, "fix what it names"},
		{400, ": label name too long", []string{"(400 Bad Request): answer 400: label name too long; fix what it names"}, "backfill"},
		{422, ": unprocessable", []string{"(422 Unprocessable Entity)", "answer 422: unprocessable; fix what it names"}, "backfill"},
		{501, ": no remote write here", []string{"does not implement what remote write needs (501 Not Implemented)", "no remote write here"}, "retrying"},
		{505, "", []string{"(505 HTTP Version Not Supported)"}, "retrying"},
	} {
		f := newFake(t, func(int, *prompb.WriteRequest, http.Header) int { return c.status })
		f.text = map[int]string{c.status: c.text}
		code, stderr := refusal(t, "--url", f.url(), store(t, threeGroups))
		if code != 1 || strings.Contains(stderr, c.not) {
			t.Errorf("%d: exit %d, and %q in: %s", c.status, code, c.not, stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%d: stderr lacks %q: %s", c.status, w, stderr)
			}
		}
		if f.n != 1 {
			t.Errorf("%d: %d requests, want 1 (no retry)", c.status, f.n)
		}
	}
}

func TestARedirectStopsTgpushNamingTheLocationAndIsNotFollowed(t *testing.T) {
	f := newFake(t, func(int, *prompb.WriteRequest, http.Header) int { return http.StatusFound })
	f.header = http.Header{"Location": {"/login?next=/api/v1/write"}}
	code, stderr := refusal(t, "--url", f.url(), store(t, threeGroups))
	want := "(302 Found) to " + f.srv.URL + "/login?…, which tgpush does not follow"
	if code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stderr lacks %q: %s", code, want, stderr)
	}
	if f.n != 1 || len(f.got()) != 0 {
		t.Errorf("%d requests, %d samples taken, want one request and none", f.n, len(f.got()))
	}
}

func TestABucketTheTapeHasAfterALaterOneIsNamedAsTheTapesOwnOrder(t *testing.T) {
	// Fragments: a second group for the first bucket after the third, and
	// for the third right after it.
	for _, frag := range []struct{ bucket, text string }{{"2026-12-01T10:35:30Z", "out of order sample"}, {"2026-12-01T10:35:50Z", "duplicate sample for timestamp"}} {
		var newest int64 // of the requests taken before
		f := newFake(t, func(_ int, req *prompb.WriteRequest, _ http.Header) int {
			latest := newest
			for _, ts := range req.Timeseries {
				for _, s := range ts.Samples {
					if s.Timestamp <= newest {
						return http.StatusBadRequest
					}
					latest = max(latest, s.Timestamp)
				}
			}
			newest = latest
			return 200
		})
		f.text = map[int]string{400: ": " + frag.text}
		dir := store(t, threeGroups+frag.bucket+" requests{status=\"200\"} 1\nseal "+frag.bucket+" width=10s entries=1 at=web:1100\n")
		code, stderr := refusal(t, "--url", f.url(), dir)
		for _, w := range []string{"refused the bucket at " + frag.bucket, frag.text, "the tape itself has this bucket again after the bucket at 2026-12-01T10:35:50Z, pushed before it", "tgcheck --scan " + dir} {
			if code != 1 || !strings.Contains(stderr, w) {
				t.Errorf("exit %d, stderr lacks %q: %s", code, w, stderr)
			}
		}
		if strings.Contains(stderr, "another store") {
			t.Errorf("blames another store: %s", stderr)
		}
	}
}

func TestHeadersThatHTTPCannotCarryOrThatCarryASecretAreUsageErrors(t *testing.T) {
	dir := store(t, threeGroups)
	for _, h := range []string{"X-Scope-OrgID=a\nb", "X-Scope-OrgID=a\x01", "X-Scope-OrgID=a\x7f", "X Scope=a", "=a", "X-Scope-OrgID",
		"Authorization=Bearer hunter2", "Proxy-Authorization=Basic hunter2", "X-Api-Key: hunter2", "X-Api-Key hunter2", "X-Api-Key=hunter2", "X-Auth-Token=hunter2", "x-secret=hunter2", "X-Password=hunter2"} {
		code, stderr := refusal(t, "--header", h, "--url", "http://127.0.0.1:1/api/v1/write", dir)
		if code != 2 || strings.Contains(stderr, "hunter2") || !strings.Contains(stderr, "tgpush: --header") {
			t.Errorf("--header %q: exit %d, want 2: %s", h, code, stderr)
		}
	}
	if _, err := os.Stat(DefaultCursor(dir, "http://127.0.0.1:1/api/v1/write")); err == nil {
		t.Error("a refused command line left a cursor")
	}
}

func TestASecretHeaderIsSentFromItsFileAndNeverPrinted(t *testing.T) {
	f := newFake(t, func(_ int, _ *prompb.WriteRequest, h http.Header) int {
		if h.Get("X-Api-Key") == "hunter2" {
			return 200
		}
		return http.StatusUnauthorized
	})
	key := filepath.Join(t.TempDir(), "key")
	os.WriteFile(key, []byte("hunter2\n"), 0o600)
	dir := store(t, threeGroups)
	if code, stderr := tgpush(context.Background(), "--once", "--header-file", "X-Api-Key="+key, "--url", f.url(), dir); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	sameSamples(t, f.got(), threeGroupsSamples)
	os.WriteFile(key, []byte("hunter2\nhunter3\n"), 0o600)
	code, stderr := tgpush(context.Background(), "--once", "--header-file", "X-Api-Key="+key, "--url", f.url(), store(t, threeGroups))
	if code != 1 || strings.Contains(stderr, "hunter") || !strings.Contains(stderr, "holds a control character") {
		t.Errorf("a two-line header file: exit %d: %s", code, stderr)
	}
}

func TestAURLsQueryIsNeverPrinted(t *testing.T) {
	f := httptest.NewUnstartedServer(http.NotFoundHandler()) // a certificate tgpush does not trust
	f.Config.ErrorLog = log.New(io.Discard, "", 0)
	f.StartTLS()
	t.Cleanup(f.Close)
	dir := store(t, threeGroups)
	for _, u := range []string{f.URL + "/api/v1/write?api_key=hunter2", strings.Replace(f.URL, "https", "http", 1) + "/api/v1/write?api_key=hunter2"} {
		code, stderr := refusal(t, "--url", u, dir)
		if code != 1 || strings.Contains(stderr, "hunter2") {
			t.Errorf("%s: exit %d: %s", u, code, stderr)
		}
	}
	if code, stderr := tgpush(context.Background(), "--url", "ftp://x/?api_key=hunter2", dir); code != 2 || strings.Contains(stderr, "hunter2") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

func TestALabelWithAnEmptyValueIsAUsageError(t *testing.T) {
	code, stderr := refusal(t, "--label", "host=", "--url", "http://127.0.0.1:1/api/v1/write", store(t, threeGroups))
	if code != 2 || !strings.Contains(stderr, "tgpush: --label host= has an empty value") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

func TestAnUnreadableSecretLeavesNoCursorSoTheFixedRunTakesItsFrom(t *testing.T) {
	f := newFake(t, nil)
	dir := store(t, threeGroups)
	tok := filepath.Join(t.TempDir(), "token")
	args := []string{"--from", "2026-12-01T10:35:40Z", "--bearer-token-file", tok, "--url", f.url(), dir}
	if code, stderr := refusal(t, args...); code != 1 || !strings.Contains(stderr, "--bearer-token-file: cannot read it") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(DefaultCursor(dir, f.url())); err == nil {
		t.Fatal("a run that could not read its secret saved a cursor")
	}
	os.WriteFile(tok, []byte("s3cret\n"), 0o600)
	if code, stderr := refusal(t, append([]string{"--from", "end"}, args[2:]...)...); code != 0 || len(f.got()) != 0 {
		t.Fatalf("exit %d, took %q: %s", code, f.got(), stderr)
	}
}

func TestARefusalInsideASplitGroupSaysHowMuchOfItTheReceiverTook(t *testing.T) {
	f := newFake(t, func(n int, _ *prompb.WriteRequest, _ http.Header) int {
		if n == 2 {
			return http.StatusBadRequest
		}
		return 200
	})
	code, stderr := refusal(t, "--max-samples", "2", "--url", f.url(), store(t, threeGroups))
	// The first group has 4 samples (2 series, entries, late): 2 requests.
	if code != 1 || !strings.Contains(stderr, "refused the bucket at 2026-12-01T10:35:30Z (the receiver took 2 of its 4 samples in its other requests") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	if len(f.got()) != 2 {
		t.Errorf("took %q, want the first request's 2 samples", f.got())
	}
}

// --from end finds the tape's last seal reading backwards: a well-formed
// line of a later kind after it (or before it) is passed over, as the
// forward follower passes it over, and the run starts just past that seal.
func TestFromEndPassesOverALaterKindsLineAsTheFollowerDoesAndStartsAfterTheLastSeal(t *testing.T) {
	b4 := b3 + 10000
	for tail, open := range map[string][]string{
		"identity id=web dev=1 ino=2\n": nil,
		// A group being written, with a later kind's line before it.
		"!mark at=web:1000 why=rotated\n2026-12-01T10:36:00Z requests{status=\"301\"} 5\n": {fmt.Sprintf("__name__=requests,status=301 %d 5", b4)},
	} {
		f := newFake(t, nil)
		dir := store(t, "identity id=web dev=1 ino=1\n"+threeGroups+tail)
		if code, stderr := tgpush(context.Background(), "--once", "--from", "end", "--url", f.url(), dir); code != 0 || len(f.got()) != 0 {
			t.Fatalf("%q: exit %d, took %q: %s", tail, code, f.got(), stderr)
		}
		c, ok, err := loadCursor(DefaultCursor(dir, f.url()))
		if err != nil || !ok || c.Offset != int64(len("identity id=web dev=1 ino=1\n"+threeGroups)) || c.Bucket != (b3-9999)*1e6 {
			t.Fatalf("%q: cursor %+v %v %v, want just past the last seal", tail, c, ok, err)
		}
		appendTape(t, dir, "2026-12-01T10:36:00Z requests 9\nseal 2026-12-01T10:36:00Z width=10s entries=9\n")
		if code, stderr := tgpush(context.Background(), "--once", "--url", f.url(), dir); code != 0 {
			t.Fatalf("%q: exit %d: %s", tail, code, stderr)
		}
		// What the forward follower pushes of the group after the last seal
		// when it reads the whole tape from the start.
		whole := newFake(t, nil)
		if code, stderr := tgpush(context.Background(), "--once", "--url", whole.url(), dir); code != 0 {
			t.Fatalf("%q: exit %d: %s", tail, code, stderr)
		}
		want := append([]string{fmt.Sprintf("__name__=requests %d 9", b4), fmt.Sprintf("__name__=timbertally_entries %d 9", b4), fmt.Sprintf("__name__=timbertally_late_entries %d 0", b4)}, open...)
		sameSamples(t, f.got(), want)
		sameSamples(t, whole.got(), append(slices.Clone(threeGroupsSamples), want...))
	}
}

// A damaged line after the last seal stops --from end as it stops the
// follower: naming its byte, tgcheck --scan and how to re-make the tape,
// and saving no cursor.
func TestFromEndStopsAtADamagedLineAfterTheLastSealNamingItsByteAndTheFix(t *testing.T) {
	f := newFake(t, nil)
	dir := store(t, threeGroups+"garbage here\n")
	code, stderr := tgpush(context.Background(), "--once", "--from", "end", "--url", f.url(), dir)
	if code != 1 {
		t.Fatalf("exit %d, want 1: %s", code, stderr)
	}
	for _, want := range []string{fmt.Sprintf("the line at byte %d:", len(threeGroups)), `"garbage here"`, "tgcheck --scan " + dir, "tally --provision --replace --doc " + filepath.Join(dir, "document") + " " + dir + " (the old tape is kept beside it), then feed --reset --cursor FILE STORE... -- tally --run " + dir} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q: %s", want, stderr)
		}
	}
	if _, ok, _ := loadCursor(DefaultCursor(dir, f.url())); ok || len(f.got()) != 0 {
		t.Errorf("a cursor was saved or samples pushed (%q)", f.got())
	}
}

// A later kind's line inside a group (between its series, between a series
// and its !cap, before its seal) is passed over without splitting the
// group: each bucket is pushed whole, with exactly the samples it has
// without the line.
func TestALaterKindsLineInsideAGroupIsPassedOverAndTheGroupPushedWhole(t *testing.T) {
	tp := strings.Replace(threeGroups, "2026-12-01T10:35:30Z requests{status=\"404\"}", "!mark at=web:1\n2026-12-01T10:35:30Z requests{status=\"404\"}", 1)
	tp = strings.Replace(tp, "!cap ", "!mark at=web:2\n!cap ", 1)
	tp = strings.Replace(tp, "seal 2026-12-01T10:35:50Z", "identity id=web\nseal 2026-12-01T10:35:50Z", 1)
	f := newFake(t, nil)
	code, stderr := tgpush(context.Background(), "--once", "--url", f.url(), store(t, tp))
	if code != 0 || strings.Count(stderr, "does not know") != 2 {
		t.Fatalf("exit %d, want 0 and a note for each of the two kinds: %s", code, stderr)
	}
	sameSamples(t, f.got(), threeGroupsSamples)
}

// TestACutOrSlowAnswerIsRetriedLikeAnOutageWithOneNotePerChangeOfState
// answers the first requests with a body cut short (a 200 and a 503, the
// connection closed mid-body) and one that dribbles past --timeout: each
// is a fault, retried, never a refusal.
func TestACutOrSlowAnswerIsRetriedLikeAnOutageWithOneNotePerChangeOfState(t *testing.T) {
	f := newFake(t, nil)
	inner := f.srv.Config.Handler
	var n int
	var mu sync.Mutex
	f.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		k := n
		mu.Unlock()
		cut := func(status string) {
			io.ReadAll(r.Body)
			conn, buf, err := w.(http.Hijacker).Hijack()
			if err != nil {
				t.Error(err)
				return
			}
			buf.WriteString("HTTP/1.1 " + status + "\r\nContent-Length: 100\r\n\r\nonly part")
			buf.Flush()
			conn.Close()
		}
		switch k {
		case 1, 2:
			cut("200 OK")
		case 3:
			cut("503 Service Unavailable")
		case 4: // a body slower than --timeout
			io.ReadAll(r.Body)
			w.Header().Set("Content-Length", "100")
			w.WriteHeader(200)
			for i := 0; i < 20 && r.Context().Err() == nil; i++ {
				w.Write([]byte("x"))
				w.(http.Flusher).Flush()
				time.Sleep(100 * time.Millisecond)
			}
		default:
			inner.ServeHTTP(w, r)
		}
	})
	code, stderr := tgpush(context.Background(), "--once", "--timeout", "500ms", "--retry-max", "50ms", "--url", f.url(), store(t, threeGroups))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	sameSamples(t, f.got(), threeGroupsSamples)
	want := "tgpush: note: the receiver's answer (200 OK) was cut (unexpected EOF); retrying with backoff until it answers, nothing is dropped\n" +
		"tgpush: note: the receiver's answer (503 Service Unavailable) was cut (unexpected EOF); retrying with backoff until it answers, nothing is dropped\n" +
		"tgpush: note: the receiver's answer (200 OK) did not arrive whole within --timeout; retrying with backoff until it answers, nothing is dropped\n" +
		"tgpush: note: the receiver takes samples again; nothing was lost\n"
	if stderr != want {
		t.Errorf("stderr\n%s\nwant\n%s", stderr, want)
	}
}

// A --label the document's series have too (by=status here) is refused
// before anything is sent, naming the label, the metric and the field; so
// are the data-quality series' own reason and metric.
func TestALabelTheTapesSeriesHaveIsRefusedBeforeAnySampleNamingItsMetricAndField(t *testing.T) {
	for label, want := range map[string]string{
		"status=web1": "the tape's metric requests has the label status already (the document's by=status: the log field status)",
		"reason=x":    "tgpush's own series timbertally_dropped_entries has the label reason already",
		"metric=x":    "tgpush's own series timbertally_capped_entries has the label metric already",
	} {
		f := newFake(t, nil)
		dir := store(t, threeGroups)
		code, stderr := tgpush(context.Background(), "--once", "--label", label, "--url", f.url(), dir)
		if code != 2 || !strings.Contains(stderr, want) || !strings.Contains(stderr, "nothing was pushed: give the fleet label another name (--label node=") || f.n != 0 {
			t.Errorf("--label %s: exit %d, %d requests: %s", label, code, f.n, stderr)
		}
		if strings.Contains(stderr, "give each its own --label") {
			t.Errorf("--label %s: advises the --label already given: %s", label, stderr)
		}
	}
	// A tape written under another document (no by=status in this one)
	// is refused at its first clashing group, before it is sent.
	f := newFake(t, nil)
	dir := store(t, threeGroups)
	os.WriteFile(filepath.Join(dir, "document"), []byte("format apache-combined\nwindow 10s\nmetric requests count\n"), 0o644)
	code, stderr := tgpush(context.Background(), "--once", "--label", "status=web1", "--url", f.url(), dir)
	if code != 1 || !strings.Contains(stderr, "the series requests have a label status of their own") || f.n != 0 {
		t.Errorf("exit %d, %d requests: %s", code, f.n, stderr)
	}
}

// The cursor keeps the --label set; a later run with another is refused
// with the choices, and one with the same goes on.
func TestALabelSetChangedBetweenRunsIsRefusedWithTheChoices(t *testing.T) {
	f := newFake(t, nil)
	dir := store(t, threeGroups)
	if code, stderr := tgpush(context.Background(), "--once", "--label", "host=web1", "--url", f.url(), dir); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	data, _ := os.ReadFile(DefaultCursor(dir, f.url()))
	if !strings.Contains(string(data), " labels=host=web1") || strings.Contains(string(data), "127.0.0.1") {
		t.Errorf("cursor %q: want the labels and no URL", data)
	}
	appendTape(t, dir, "2026-12-01T10:36:00Z requests{status=\"200\"} 1\nseal 2026-12-01T10:36:00Z width=10s entries=1 at=web:1400\n")
	n := f.n
	for _, args := range [][]string{{"--label", "host=web2"}, {}, {"--label", "host=web1", "--label", "dc=eu"}} {
		code, stderr := tgpush(context.Background(), append(append([]string{"--once", "--url", f.url()}, args...), dir)...)
		for _, want := range []string{"was pushed under --label host=web1", "To go on as before, run tgpush with --label host=web1",
			"remove the cursor and run tgpush --from 2026-12-01T10:36:00Z", "count every bucket twice"} {
			if code != 1 || !strings.Contains(stderr, want) {
				t.Errorf("%q: exit %d, stderr lacks %q: %s", args, code, want, stderr)
			}
		}
	}
	if f.n != n {
		t.Errorf("%d requests after the refusals, want none", f.n-n)
	}
	if code, stderr := tgpush(context.Background(), "--once", "--label", "host=web1", "--url", f.url(), dir); code != 0 || f.n != n+1 {
		t.Errorf("the same labels: exit %d, %d requests: %s", code, f.n-n, stderr)
	}
}

// A canonical le leaves tgpush: Prometheus 3 writes a scraped histogram's
// bounds so, and only then do a scrape and a push of it join.
func TestAHistogramsBoundsLeaveInPrometheussCanonicalForm(t *testing.T) {
	f := newFake(t, nil)
	dir := store(t, `2026-12-01T10:35:30Z latency_bucket{le="0.005"} 1
2026-12-01T10:35:30Z latency_bucket{le="1"} 2
2026-12-01T10:35:30Z latency_bucket{le="10"} 3
2026-12-01T10:35:30Z latency_bucket{le="1000000"} 3
2026-12-01T10:35:30Z latency_bucket{le="+Inf"} 3
2026-12-01T10:35:30Z latency_sum 7.5
2026-12-01T10:35:30Z latency_count 3
seal 2026-12-01T10:35:30Z width=10s entries=3 at=web:500
`)
	if code, stderr := tgpush(context.Background(), "--once", "--url", f.url(), dir); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var les []string
	for _, s := range f.got() {
		if strings.HasPrefix(s, "__name__=latency_bucket") {
			les = append(les, strings.Fields(s)[0])
		}
	}
	want := []string{"__name__=latency_bucket,le=+Inf", "__name__=latency_bucket,le=0.005", "__name__=latency_bucket,le=1.0", "__name__=latency_bucket,le=10.0", "__name__=latency_bucket,le=1e+06"}
	if !slices.Equal(les, want) {
		t.Errorf("le %q, want %q", les, want)
	}
}

// A run without a cursor that meets newer samples of its series (a lost
// cursor) is told how to find where the receiver's copy ends and the
// --from that resumes after it, not to push the store again under new
// labels.
func TestARunWithoutACursorThatMeetsNewerSamplesIsToldHowToResumeAfterThem(t *testing.T) {
	f := newFake(t, func(int, *prompb.WriteRequest, http.Header) int { return 400 })
	f.text = map[int]string{400: ": out of order sample"}
	dir := store(t, threeGroups)
	code, stderr := tgpush(context.Background(), "--once", "--label", "host=web1", "--url", f.url(), dir)
	for _, want := range []string{"this run had no cursor", "tgcheck --receiver " + f.srv.URL + " --label host=web1 " + dir,
		"curl -s " + f.srv.URL + "/api/v1/query --data-urlencode 'query=max(max_over_time(timestamp(timbertally_entries{host=\"web1\"})[30d:1m])) + 0.001'",
		`tgpush --from "$(date -u -d "@$T" +%Y-%m-%dT%H:%M:%S.%3NZ)" --url ` + f.url() + " --once --label host=web1 " + dir,
		"another store pushes the same series under the same --label host=web1 (give each store its own value)"} {
		if code != 1 || !strings.Contains(stderr, want) {
			t.Errorf("exit %d, stderr lacks %q: %s", code, want, stderr)
		}
	}
	if strings.Contains(stderr, "give each its own --label") {
		t.Errorf("advises a --label when one was given: %s", stderr)
	}
}

// A 429 (or 503) with Retry-After is waited for as the receiver asks, up
// to --retry-max, not at the backoff's first 20 ms.
func TestARetryAfterIsWaitedForUpToRetryMax(t *testing.T) {
	f := newFake(t, func(n int, _ *prompb.WriteRequest, _ http.Header) int {
		if n == 1 {
			return http.StatusTooManyRequests
		}
		return 204
	})
	f.header = http.Header{"Retry-After": {"1"}}
	began := time.Now()
	code, stderr := tgpush(context.Background(), "--once", "--retry-max", "5s", "--url", f.url(), store(t, threeGroups))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if took := time.Since(began); took < time.Second {
		t.Errorf("the retry came after %v, before the Retry-After of 1s", took)
	}
	sameSamples(t, f.got(), threeGroupsSamples)
}

// A group larger than a read is sent in parts, a sample a series at the
// group's stamp; a refusal in a later part leaves the cursor before the
// group (the groups before it saved), saying how much of it was taken,
// and the next run sends it whole: the receiver holds exactly the tape.
func TestAGroupLargerThanAReadIsSentInPartsAndTheCursorPassesItOnlyWhenAllWereTaken(t *testing.T) {
	const n = 70000 // about 3.7 MB of series lines: two parts of readBytes
	text, bigStart, _ := bigTape(n)
	dir := store(t, text)
	ms := time.Date(2026, 12, 1, 10, 0, 10, 0, time.UTC).UnixMilli() + 9999
	want := []string{
		fmt.Sprintf("__name__=requests,status=200 %d 1", ms-10000),
		fmt.Sprintf("__name__=requests,status=200 %d 3", ms+10000),
		fmt.Sprintf("__name__=timbertally_capped_entries,metric=requests %d 3", ms),
		fmt.Sprintf("__name__=timbertally_dropped_entries,reason=format %d 2", ms),
	}
	for _, e := range [][2]int64{{ms - 10000, 1}, {ms, 7}, {ms + 10000, 3}} {
		want = append(want, fmt.Sprintf("__name__=timbertally_entries %d %d", e[0], e[1]), fmt.Sprintf("__name__=timbertally_late_entries %d 0", e[0]))
	}
	for s := range n {
		want = append(want, fmt.Sprintf("__name__=requests,path=/p/%06d %d %d", s, ms, s+1))
	}
	// Requests of 10 000 samples: the first group's, then the big
	// group's; the 6th is refused, in its second part (a part is about
	// 39 000 series: four requests).
	f := newFake(t, func(k int, _ *prompb.WriteRequest, _ http.Header) int {
		if k == 6 {
			return http.StatusBadRequest
		}
		return 200
	})
	cursor := filepath.Join(t.TempDir(), "c")
	// Not refusal's 5 s: 70 000 series take longer under -race.
	code, stderr := tgpush(context.Background(), "--once", "--max-samples", "10000", "--cursor", cursor, "--url", f.url(), dir)
	var took int
	if _, err := fmt.Sscanf(stderr[max(0, strings.Index(stderr, "(the receiver took ")):], "(the receiver took %d of its samples in its other requests", &took); code != 1 || err != nil || took <= 30000 || took >= n {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if c, _, err := loadCursor(cursor); err != nil || c.Offset != int64(bigStart) {
		t.Fatalf("the cursor is at %d (%v), want %d: before the group refused in its second part", c.Offset, err, bigStart)
	}
	f.answer = nil
	if code, stderr := tgpush(context.Background(), "--once", "--max-samples", "10000", "--cursor", cursor, "--url", f.url(), dir); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	sameSamples(t, f.got(), want)
	if f.mixed {
		t.Error("requests of two groups (or parts) were in flight at once")
	}
}

// A refused request ends the push though the request beside it is being
// retried: that one's try in flight is answered, but it is not retried.
func TestARefusalCallsOffTheRetriesOfTheRequestSentBesideIt(t *testing.T) {
	f := newFake(t, func(_ int, req *prompb.WriteRequest, _ http.Header) int {
		for _, ts := range req.Timeseries {
			if strings.Contains(seriesText(ts.Labels), "status=404") {
				return http.StatusBadRequest
			}
		}
		return http.StatusServiceUnavailable // forever
	})
	f.delay = 20 * time.Millisecond
	code, stderr := refusal(t, "--max-samples", "2", "--url", f.url(), store(t, threeGroups))
	if code != 1 || !strings.Contains(stderr, "refused the bucket at 2026-12-01T10:35:30Z") || !strings.Contains(stderr, "answer 400") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	if len(f.got()) != 0 {
		t.Errorf("took %q, want nothing", f.got())
	}
}

// A group of more than --max-samples samples goes as requests Inflight
// at a time.
// A group of more than twice minPerRequest samples but fewer than
// --max-samples goes as two requests at once (the receiver stores them on
// two cores); a small group stays one request.
func TestAGroupOfSomeThousandSamplesGoesAsTwoRequestsAtOnceBelowMaxSamples(t *testing.T) {
	pushInRequests(t, 4) // the small groups a request each, the big one (3 004 samples) two
}

func TestAGroupOfMoreThanMaxSamplesGoesAsRequestsTwoAtATime(t *testing.T) {
	pushInRequests(t, 6, "--max-samples", "1000") // the big one four
}

// pushInRequests pushes a tape of two small groups around one of 3 004
// samples to a receiver answering in 30 ms, and checks that it took
// every sample in want requests, two at most and never two groups' at
// once.
func pushInRequests(t *testing.T, want int, flags ...string) {
	t.Helper()
	text, _, _ := bigTape(3000)
	f := newFake(t, nil)
	f.delay = 30 * time.Millisecond
	args := append(append([]string{"--once"}, flags...), "--url", f.url(), store(t, text))
	if code, stderr := tgpush(context.Background(), args...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if f.n != want || f.maxInflight.Load() != 2 || f.mixed {
		t.Errorf("%d requests, at most %d at once (two groups' at once: %v); want %d, 2 and no", f.n, f.maxInflight.Load(), f.mixed, want)
	}
	if got := len(f.got()); got != 3000+10 {
		t.Errorf("took %d samples, want 3010", got)
	}
}

// While one of a group's two requests in flight is retried, the other
// taken is no recovery: one note for the fault, however many retries, and
// one when the receiver takes samples again.
func TestARequestRetriedBesideOneTakenGetsOneNoteForItsFaultAndOneForTheRecovery(t *testing.T) {
	text, _, _ := bigTape(3000)
	tries := 0
	f := newFake(t, func(_ int, req *prompb.WriteRequest, _ http.Header) int {
		for _, ts := range req.Timeseries {
			if strings.Contains(seriesText(ts.Labels), "/p/000000") && tries < 6 {
				tries++
				return http.StatusServiceUnavailable
			}
		}
		return 200
	})
	f.delay = 5 * time.Millisecond
	code, stderr := tgpush(context.Background(), "--once", "--max-samples", "200", "--url", f.url(), store(t, text))
	want := "tgpush: note: the receiver fails (503 Service Unavailable); retrying with backoff until it answers, nothing is dropped\n" +
		"tgpush: note: the receiver takes samples again; nothing was lost\n"
	if code != 0 || stderr != want || tries != 6 {
		t.Errorf("exit %d, %d faults, stderr\n%s\nwant\n%s", code, tries, stderr, want)
	}
	if got := len(f.got()); got != 3010 {
		t.Errorf("took %d samples, want 3010", got)
	}
}

// The progress line counts a group sent in parts whole: every part's
// samples, not the last part's.
func TestProgressCountsEveryPartOfABigGroup(t *testing.T) {
	text, _, _ := bigTape(70000)
	f := newFake(t, nil)
	var errb bytes.Buffer
	if code := run(context.Background(), []string{"tgpush", "--once", "--url", f.url(), store(t, text)}, io.Discard, &errb, true); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	// The line's last redraw: three buckets, the big one's 70 004 samples
	// with the small ones' 3 each.
	if !strings.Contains(errb.String(), "3 buckets pushed") || !strings.Contains(errb.String(), ", 70010 samples; ~0 samples behind") {
		t.Errorf("progress %q, want 3 buckets and 70010 samples at the end", errb.String())
	}
}
