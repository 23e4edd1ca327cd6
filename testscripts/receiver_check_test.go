package testscripts

import (
	"bytes"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	prompb "buf.build/gen/go/prometheus/prometheus/protocolbuffers/go"
	"github.com/klauspost/compress/snappy"
	"golang.org/x/crypto/bcrypt"
	"google.golang.org/protobuf/proto"
)

// tgcheckReceiver runs tgcheck with args and returns its stdout and stderr
// together, and its exit status.
func tgcheckReceiver(t *testing.T, args ...string) (string, int) {
	t.Helper()
	out, err := exec.Command("tgcheck", args...).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return string(out), ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(out), 0
}

// mustHold fails unless tgcheck --receiver says the receiver holds every
// one of n samples and exits 0.
func mustHold(t *testing.T, n int, args ...string) {
	t.Helper()
	out, code := tgcheckReceiver(t, args...)
	want := fmt.Sprintf("holds every one of the tape's %d samples", n)
	if code != 0 || !strings.Contains(out, want) {
		t.Fatalf("tgcheck %s: exit %d, want 0 and %q:\n%s", strings.Join(args, " "), code, want, out)
	}
	t.Logf("tgcheck %s: %s", strings.Join(args, " "), strings.TrimSpace(out))
}

// queryRaw reads every raw sample of the series selector matches from a
// query API (base: http://host:port or …/prometheus), the last two hours
// of them, in tsv rows as receiver.samples gives them: the test's own
// reading, sharing no code with tgcheck.
func queryRaw(t *testing.T, base, selector string) []string {
	t.Helper()
	q := url.Values{"query": {selector + "[2h]"}, "time": {strconv.FormatInt(time.Now().Add(time.Minute).Unix(), 10)}}
	resp, err := http.Get(base + "/api/v1/query?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var res struct {
		Status string
		Error  string
		Data   struct {
			Result []struct {
				Metric map[string]string
				Values [][2]any
			}
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&res); err != nil || res.Status != "success" {
		t.Fatalf("query %s: %v %s", selector, err, res.Error)
	}
	var lines []string
	for _, s := range res.Data.Result {
		for _, v := range s.Values {
			lines = append(lines, sampleLine(s.Metric, int64(v[0].(float64)*1000+0.5), v[1].(string)))
		}
	}
	sort.Strings(lines)
	return lines
}

func TestTgcheckReceiverHoldsWhenPrometheus2Prometheus3AndVictoriaMetricsHoldTheTapeEachOnce(t *testing.T) {
	for _, kind := range []string{"prometheus", "prometheus3", "victoria-metrics"} {
		t.Run(kind, func(t *testing.T) {
			var r *receiver
			if kind == "prometheus3" {
				bin := builtServer(t, "prometheus3")
				r = newReceiver(t, "prometheus")
				r.bin = bin
			} else {
				r = newReceiver(t, kind)
			}
			r.start()
			dir := t.TempDir()
			log := filepath.Join(dir, "access.log")
			pushLog(t, log, 1500)
			st := pipeline(t, dir, log)
			// Small requests: the push crosses many request boundaries,
			// and the 20000-sample windows of the check are crossed by the
			// query time range of each name anyway.
			mustRun(t, dir, "tgpush", "--once", "-q", "--max-samples", "100", "--url", r.writeURL(), st)
			all := r.samples("", "")
			series, quality := splitQuality(all)
			sameRows(t, series, tapeRows(t, st))
			checkQuality(t, quality, log, st)
			mustHold(t, len(all), "--receiver", r.base(), st)
			// In windows of 37 samples: dozens of windows, each group in
			// one, the same answer.
			mustHold(t, len(all), "--receiver", r.base(), "--query-samples", "37", st)
			// --from a bucket on: the samples stamped at or after its start
			// (a bucket's are at its last millisecond).
			from := firstAfter(t, all, 10, storeWidth(t, st))
			n := 0
			for _, row := range all {
				if stampOf(t, row).Compare(from) >= 0 {
					n++
				}
			}
			mustHold(t, n, "--receiver", r.base(), "--from", from.Format(time.RFC3339), st)
			mustHold(t, len(all)-n, "--receiver", r.base(), "--to", from.Format(time.RFC3339), st)
			if kind == "prometheus" {
				progressOnATerminal(t, r.base(), st, len(all))
			}
			// With --against, one command proves log → tape → receiver.
			out, code := tgcheckReceiver(t, "--against", log, "--receiver", r.base(), st)
			if code != 0 || !strings.Contains(out, "0 differences") || !strings.Contains(out, "holds every one") {
				t.Errorf("tgcheck --against --receiver: exit %d:\n%s", code, out)
			}
		})
	}
}

// progressOnATerminal runs tgcheck --receiver on a terminal (script(1)
// gives it one) in windows of 100 samples and finds its progress line
// rewritten as it reads, ending with all n samples, and cleared.
func progressOnATerminal(t *testing.T, base, st string, n int) {
	t.Helper()
	scriptBin, err := exec.LookPath("script")
	if err != nil {
		t.Fatalf("script(1) is missing (apt-get install bsdutils): %v", err)
	}
	tg, err := exec.LookPath("tgcheck")
	if err != nil {
		t.Fatal(err)
	}
	cmd := fmt.Sprintf("%s --receiver %s --query-samples 100 %s", tg, base, st)
	out, err := exec.Command(scriptBin, "-qec", cmd, "/dev/null").CombinedOutput()
	if err != nil {
		t.Fatalf("%s on a terminal: %v\n%s", cmd, err, out)
	}
	lines := regexp.MustCompile(`\r\x1b\[Ktgcheck: receiver: (\d+) samples read back`).FindAllStringSubmatch(string(out), -1)
	if len(lines) < 3 || lines[len(lines)-1][1] != strconv.Itoa(n) || !strings.Contains(string(out), "\r\x1b[K") {
		t.Fatalf("want a progress line a window, the last at %d samples, then cleared:\n%q", n, out)
	}
}

// firstAfter is the start of the bucket of the k-th distinct stamp of the
// receiver's rows.
func firstAfter(t *testing.T, rows []string, k int, width time.Duration) time.Time {
	t.Helper()
	var stamps []int64
	for _, r := range rows {
		stamps = append(stamps, stampOf(t, r).UnixMilli())
	}
	slices.Sort(stamps)
	stamps = slices.Compact(stamps)
	if len(stamps) <= k {
		t.Fatalf("%d stamps, fewer than %d", len(stamps), k+1)
	}
	return time.UnixMilli(stamps[k]).Add(time.Millisecond - width).UTC()
}

// stampOf is a tsv row's time.
func stampOf(t *testing.T, row string) time.Time {
	t.Helper()
	ts, _, _ := strings.Cut(row, "\t")
	at, err := time.Parse(stampFormat, ts)
	if err != nil {
		t.Fatal(err)
	}
	return at
}

// dropProxy stands before a receiver's remote-write endpoint and answers
// 204 to every third request without forwarding it, recording what it
// dropped: the samples' (series, millisecond) and the requests' stamps.
type dropProxy struct {
	target  string
	n       atomic.Int64
	mu      sync.Mutex
	dropped map[string]bool // tsv row without its value: time, metric, labels
	stamps  [][]int64       // each dropped request's stamps
	sealed  []bool          // whether the dropped request is a bucket's (it has timbertally_entries)
	kept    [][]int64       // each forwarded sealed request's stamps
	// drop says which requests are answered 204 and not forwarded (the
	// n-th, from 1; sealed: a bucket's); nil: every third.
	drop func(n int64, sealed bool) bool
}

func (p *dropProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	raw, err := snappy.Decode(nil, body)
	var req prompb.WriteRequest
	if err == nil {
		err = proto.Unmarshal(raw, &req)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var stamps []int64
	sealed := false
	rows := []string{}
	for _, ts := range req.Timeseries {
		m := map[string]string{}
		for _, l := range ts.Labels {
			m[l.Name] = l.Value
		}
		sealed = sealed || m["__name__"] == "timbertally_entries"
		for _, s := range ts.Samples {
			stamps = append(stamps, s.Timestamp)
			row := sampleLine(m, s.Timestamp, "")
			rows = append(rows, strings.TrimSuffix(row, "\t"))
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	n := p.n.Add(1)
	if p.drop == nil && n%3 == 0 || p.drop != nil && p.drop(n, sealed) {
		for _, r := range rows {
			p.dropped[r] = true
		}
		p.stamps = append(p.stamps, stamps)
		p.sealed = append(p.sealed, sealed)
		w.WriteHeader(http.StatusNoContent)
		return
	}
	fw, err := http.NewRequest(http.MethodPost, p.target, bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	fw.Header = r.Header.Clone()
	resp, err := http.DefaultClient.Do(fw)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	if sealed && resp.StatusCode/100 == 2 {
		p.kept = append(p.kept, stamps)
	}
	w.WriteHeader(resp.StatusCode)
	io.Copy(w, resp.Body)
}

// bucketOf is the start of the bucket a stamp of tgpush's belongs to: a
// bucket's samples are at its last millisecond, and the markers of a run
// that sealed nothing after it one millisecond later (a complete one-run
// tape has at most one such group), so 2 ms before either is inside it.
func bucketOf(ms int64, width time.Duration) time.Time {
	w := width.Milliseconds()
	return time.UnixMilli((ms - 2) / w * w).UTC()
}

func TestTgcheckReceiverNamesTheGroupsAProxyAnswered204WithoutStoring(t *testing.T) {
	prom := newReceiver(t, "prometheus")
	prom.start()
	proxy := &dropProxy{target: prom.writeURL(), dropped: map[string]bool{}}
	srv := httptest.NewServer(proxy)
	defer srv.Close()
	dir := t.TempDir()
	log := filepath.Join(dir, "access.log")
	pushLog(t, log, 1500)
	st := pipeline(t, dir, log)
	mustRun(t, dir, "tgpush", "--once", "-q", "--url", srv.URL+"/api/v1/write", st)
	if len(proxy.stamps) < 5 {
		t.Fatalf("the proxy dropped %d requests: too few to prove anything", len(proxy.stamps))
	}

	// The test's own reading: the receiver holds none of what the proxy
	// dropped, and the rest.
	held := prom.samples("", "")
	for _, r := range held {
		if proxy.dropped[r[:strings.LastIndexByte(r, '\t')]] {
			t.Fatalf("the receiver holds a sample the proxy dropped: %s", r)
		}
	}
	width := storeWidth(t, st)
	out, code := tgcheckReceiver(t, "--receiver", prom.base(), st)
	if code != 1 {
		t.Fatalf("tgcheck exit %d, want 1:\n%s", code, out)
	}
	total := len(held) + len(proxy.dropped)
	want := fmt.Sprintf("does not hold the tape: of its %d samples", total)
	if !strings.Contains(out, want) || !strings.Contains(out, fmt.Sprintf(") %d missing (in %d groups), 0 doubled, 0 different; 0 extra", len(proxy.dropped), len(proxy.stamps))) {
		t.Errorf("want %q and %d missing in %d groups:\n%s", want, len(proxy.dropped), len(proxy.stamps), out)
	}
	// The missing groups are named by their buckets, the first ten of
	// them, each whole.
	named := regexp.MustCompile(`(?m)^receiver: missing +(\S+): (\d+) of the (\d+) samples`).FindAllStringSubmatch(out, -1)
	if strings.Contains(out, "buckets merged") {
		t.Errorf("requests lost whole are taken for a dedup window:\n%s", out)
	}
	if len(named) != min(10, len(proxy.stamps)) {
		t.Fatalf("%d missing groups named, want %d:\n%s", len(named), min(10, len(proxy.stamps)), out)
	}
	for i, m := range named {
		at := bucketOf(proxy.stamps[i][0], width).Format(time.RFC3339)
		if m[1] != at || m[2] != strconv.Itoa(len(proxy.stamps[i])) || m[2] != m[3] {
			t.Errorf("missing group %d named %q, want the bucket at %s with all its %d samples", i, m[0], at, len(proxy.stamps[i]))
		}
	}
	// Where the receiver's copy ends: the newest bucket it holds whole, the
	// last sealed request forwarded.
	last := proxy.kept[len(proxy.kept)-1][0]
	ends := fmt.Sprintf("its copy ends at the bucket at %s, the newest it holds whole; tgpush --from %s resumes after it",
		bucketOf(last, width).Format(time.RFC3339), bucketOf(last, width).Add(width).Format(time.RFC3339))
	if !strings.Contains(out, ends) {
		t.Errorf("want %q:\n%s", ends, out)
	}
	t.Logf("the proxy dropped %d of %d requests, %d samples; tgcheck:\n%s", len(proxy.stamps), proxy.n.Load(), len(proxy.dropped), out)

	// Read in windows of 41 samples, the findings are the same.
	small, _ := tgcheckReceiver(t, "--receiver", prom.base(), "--query-samples", "41", st)
	if small != out {
		t.Errorf("in windows of 41 samples:\n%s\nin one window:\n%s", small, out)
	}

	// A sample of another writer, of a tape's metric in the tape's time
	// range, is extra.
	at := bucketOf(proxy.kept[0][0], width).Add(time.Second)
	extra := &prompb.WriteRequest{Timeseries: []*prompb.TimeSeries{{
		Labels:  []*prompb.Label{{Name: "__name__", Value: "requests"}, {Name: "status", Value: "999"}},
		Samples: []*prompb.Sample{{Value: 7, Timestamp: at.UnixMilli()}},
	}}}
	raw, _ := proto.Marshal(extra)
	resp, err := http.Post(prom.writeURL(), "application/x-protobuf", bytes.NewReader(snappy.Encode(nil, raw)))
	if err != nil || resp.StatusCode/100 != 2 {
		t.Fatalf("writing the extra sample: %v %v", err, resp)
	}
	resp.Body.Close()
	out, _ = tgcheckReceiver(t, "--receiver", prom.base(), st)
	wantExtra := fmt.Sprintf(`receiver: extra     %s requests{status="999"} = 7: the tape has no such sample`, at.Format(time.RFC3339))
	if !strings.Contains(out, wantExtra) || !strings.Contains(out, "0 different; 1 extra") {
		t.Errorf("want %q and 1 extra:\n%s", wantExtra, out)
	}
}

func TestTgcheckReceiverNamesEverySampleVictoriaMetricsWithoutDedupKeptTwice(t *testing.T) {
	vm := newReceiver(t, "victoria-metrics", "-dedup.minScrapeInterval=0s")
	vm.start()
	dir := t.TempDir()
	log := filepath.Join(dir, "access.log")
	pushLog(t, log, 900)
	st := pipeline(t, dir, log)
	for _, c := range []string{"c1", "c2"} { // a lost cursor: the whole tape again
		mustRun(t, dir, "tgpush", "--once", "-q", "--cursor", filepath.Join(dir, c), "--url", vm.writeURL(), st)
	}
	all := vm.samples("", "")
	twice := 0
	for i := 1; i < len(all); i++ {
		if all[i] == all[i-1] {
			twice++
		}
	}
	if twice == 0 || twice*2 != len(all) {
		t.Fatalf("VictoriaMetrics holds %d samples, %d of them twice: this VictoriaMetrics deduplicates, the test proves nothing", len(all), twice)
	}
	out, code := tgcheckReceiver(t, "--receiver", vm.base(), st)
	want := fmt.Sprintf("of its %d samples", twice)
	if code != 1 || !strings.Contains(out, want) || !strings.Contains(out, fmt.Sprintf("0 missing (in 0 groups), %d doubled, 0 different; 0 extra", twice)) ||
		!strings.Contains(out, "receiver: doubled ") || !strings.Contains(out, "-dedup.minScrapeInterval=1ms") {
		t.Fatalf("exit %d, want 1, %q and %d doubled:\n%s", code, want, twice, out)
	}
}

// cortexNode is one Cortex process of a three-node cluster: distributor,
// ingester, querier and store-gateway, its rings on memberlist, blocks on
// a filesystem shared by the cluster.
type cortexNode struct {
	http, grpc, gossip int
	cmd                *exec.Cmd
	log                string
}

func (n *cortexNode) base() string { return fmt.Sprintf("http://127.0.0.1:%d", n.http) }

// startCortex starts three nodes with replication factor 3: the first,
// ready, then the two that join it.
func startCortex(t *testing.T) []*cortexNode {
	t.Helper()
	bin := builtServer(t, "cortex")
	data := t.TempDir()
	var nodes []*cortexNode
	for i := range 3 {
		n := &cortexNode{http: freePort(t), grpc: freePort(t), gossip: freePort(t), log: filepath.Join(data, fmt.Sprintf("node%d.log", i+1))}
		id := fmt.Sprintf("node%d", i+1)
		dir := filepath.Join(data, id)
		args := []string{"-target=distributor,ingester,querier,store-gateway", "-auth.enabled=false",
			"-server.http-listen-address=127.0.0.1", fmt.Sprintf("-server.http-listen-port=%d", n.http),
			"-server.grpc-listen-address=127.0.0.1", fmt.Sprintf("-server.grpc-listen-port=%d", n.grpc),
			"-memberlist.bind-addr=127.0.0.1", fmt.Sprintf("-memberlist.bind-port=%d", n.gossip), "-memberlist.abort-if-join-fails=false",
			"-ring.store=memberlist", "-distributor.ring.store=memberlist", "-store-gateway.sharding-ring.store=memberlist",
			"-store-gateway.sharding-enabled=true", "-store-gateway.sharding-ring.wait-stability-min-duration=0s",
			"-distributor.replication-factor=3", "-distributor.shard-by-all-labels=true",
			"-ingester.lifecycler.ID=" + id, "-ingester.lifecycler.addr=127.0.0.1",
			"-distributor.ring.instance-addr=127.0.0.1", "-distributor.ring.instance-id=" + id,
			"-store-gateway.sharding-ring.instance-addr=127.0.0.1", "-store-gateway.sharding-ring.instance-id=" + id,
			"-ingester.join-after=0s", "-ingester.min-ready-duration=0s", "-ingester.final-sleep=0s",
			"-blocks-storage.backend=filesystem", "-blocks-storage.filesystem.dir=" + filepath.Join(data, "blocks"),
			"-blocks-storage.tsdb.dir=" + filepath.Join(dir, "tsdb"), "-blocks-storage.bucket-store.sync-dir=" + filepath.Join(dir, "sync")}
		if i > 0 {
			args = append(args, fmt.Sprintf("-memberlist.join=127.0.0.1:%d", nodes[0].gossip))
		}
		f, err := os.Create(n.log)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		n.cmd = exec.Command(bin, args...)
		n.cmd.Dir = dir // its querier's active-query-tracker/ goes there
		n.cmd.Stdout, n.cmd.Stderr = f, f
		if err := n.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		f.Close()
		t.Cleanup(func() {
			if n.cmd.ProcessState == nil {
				n.cmd.Process.Signal(syscall.SIGTERM)
				n.cmd.Wait()
			}
		})
		nodes = append(nodes, n)
		if i == 0 {
			n.waitReady(t) // a node that joins before its peer listens stays apart
		}
	}
	for _, n := range nodes[1:] {
		n.waitReady(t)
	}
	// Every node sees all three ingesters ACTIVE.
	waitUntil(t, "three ACTIVE ingesters in every node's ring", func() bool {
		for _, n := range nodes {
			req, _ := http.NewRequest(http.MethodGet, n.base()+"/ingester/ring", nil)
			req.Header.Set("Accept", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				return false
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if strings.Count(string(b), `"state":"ACTIVE"`) != 3 {
				return false
			}
		}
		return true
	})
	return nodes
}

func (n *cortexNode) waitReady(t *testing.T) {
	t.Helper()
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		resp, err := http.Get(n.base() + "/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			data, _ := os.ReadFile(n.log)
			t.Fatalf("cortex on %d never became ready: %v\n%s", n.http, err, tail(string(data), 20))
		}
	}
}

func TestTgcheckReceiverHoldsALiveFeedAndAFleetPushedIntoACortexClusterThroughAThirdNodeWhileAnotherIsKilled(t *testing.T) {
	nodes := startCortex(t)
	write := nodes[0].base() + "/api/v1/push"
	query := nodes[2].base() + "/prometheus"

	// A live feed → tally --run → tgpush into node 1, node 2 killed -9
	// mid-run.
	dir := t.TempDir()
	log := filepath.Join(dir, "access.log")
	docPath := filepath.Join(dir, "live.tally")
	writeFile(t, docPath, []byte(liveDoc))
	st := filepath.Join(dir, "st")
	mustRun(t, dir, "tally", "--provision", "--doc", docPath, st)
	w := startWriter(t, log)
	waitUntil(t, "the writer's first lines", func() bool { return w.lines.Load() > 0 })
	feed := startCmd(t, dir, "feed.err", "feed", "-q", "--follow", "--idle-tick", "100ms", "--cursor", "feed.cursor", log, "--", "tally", "--run", st)
	cursor := filepath.Join(dir, "push.cursor")
	push := startCmd(t, dir, "push.err", "tgpush", "--label", "host=live", "--url", write, "--cursor", cursor, "--poll", "20ms", "--max-samples", "40", st)
	waitUntil(t, "tgpush to push 20 buckets", func() bool {
		seals, _, _, _, _ := tapeAccounts(t, st)
		return seals >= 20 && cursorOffset(cursor) > 0
	})
	kills := 0
	if err := nodes[1].cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	nodes[1].cmd.Wait()
	kills++
	before := cursorOffset(cursor)
	waitUntil(t, "tgpush to push more after the kill", func() bool {
		seals, _, _, _, _ := tapeAccounts(t, st)
		return seals >= 60 && cursorOffset(cursor) > before
	})
	written := w.halt()
	waitUntil(t, "the tape to account for every line", func() bool {
		_, entries, late, dropped, _ := tapeAccounts(t, st)
		return entries+late+dropped == float64(written)
	})
	feed.Process.Signal(syscall.SIGTERM)
	feed.Wait()
	_, _, _, _, lastSeal := tapeAccounts(t, st)
	waitUntil(t, "tgpush to reach the last seal", func() bool { return cursorOffset(cursor) >= lastSeal })
	push.Process.Signal(syscall.SIGTERM)
	if err := push.Wait(); err != nil {
		notes, _ := os.ReadFile(filepath.Join(dir, "push.err"))
		t.Fatalf("tgpush: %v\n%s", err, notes)
	}
	if kills != 1 {
		t.Fatalf("%d kills, want 1", kills)
	}
	all := queryRaw(t, query, `{host="live"}`)
	series, quality := splitQuality(all)
	sameRows(t, series, withLabel(tapeRows(t, st), "live"))
	checkQualityAgainstTape(t, quality, st)
	mustHold(t, len(all), "--receiver", query, "--label", "host=live", st)
	// The one command of the README: log → tape → TSDB, on a store whose
	// feed ran --follow.
	out, code := tgcheckReceiver(t, "--open", "--against", log, "--receiver", query, "--label", "host=live", st)
	if code != 0 || !strings.Contains(out, " 0 differences") || !strings.Contains(out, fmt.Sprintf("holds every one of the tape's %d samples", len(all))) {
		t.Errorf("tgcheck --open --against --receiver: exit %d:\n%s", code, out)
	}
	t.Logf("%d lines written; node 2 killed -9 once mid-run; node 3 answers %d samples", written, len(all))

	// A fleet of two hosts, into node 1 (node 2 still down), each checked
	// through node 3 by its --label.
	var stores []string
	for _, name := range []string{"web1", "web2"} {
		dir := filepath.Join(t.TempDir(), name)
		os.Mkdir(dir, 0o755)
		log := filepath.Join(dir, "access.log")
		pushLog(t, log, 600)
		if name == "web2" { // the same buckets, other counts: web2's 200s are 404s
			data, _ := os.ReadFile(log)
			writeFile(t, log, bytes.ReplaceAll(data, []byte(`" 200 `), []byte(`" 404 `)))
		}
		st := pipeline(t, dir, log)
		mustRun(t, dir, "tgpush", "--once", "-q", "--label", "host="+name, "--url", write, st)
		stores = append(stores, st)
	}
	for i, name := range []string{"web1", "web2"} {
		all := queryRaw(t, query, `{host="`+name+`"}`)
		series, _ := splitQuality(all)
		sameRows(t, series, withLabel(tapeRows(t, stores[i]), name))
		mustHold(t, len(all), "--receiver", query, "--label", "host="+name, stores[i])
	}
	// Another host's label: the same buckets with other values, which the
	// check names.
	out, code = tgcheckReceiver(t, "--receiver", query, "--label", "host=web2", stores[0])
	if code != 1 || !strings.Contains(out, "receiver: different ") {
		t.Errorf("web1's tape against web2's series: exit %d, want 1 naming different samples:\n%s", code, out)
	}
}

func TestTgcheckReceiverNamesBucketsAVictoriaMetricsDedupWindowWiderThanABucketMerged(t *testing.T) {
	// The document's buckets are 10 s wide; a 30 s window keeps, of each
	// series, one sample of the buckets in it.
	vm := newReceiver(t, "victoria-metrics", "-dedup.minScrapeInterval=30s")
	vm.start()
	dir := t.TempDir()
	log := filepath.Join(dir, "access.log")
	pushLog(t, log, 900)
	st := pipeline(t, dir, log)
	mustRun(t, dir, "tgpush", "--once", "-q", "--url", vm.writeURL(), st)
	series, _ := splitQuality(vm.samples("", ""))
	want := tapeRows(t, st)
	if len(series) >= len(want) {
		t.Fatalf("VictoriaMetrics holds %d of the tape's %d rows: it merged nothing, the test proves nothing", len(series), len(want))
	}
	out, code := tgcheckReceiver(t, "--receiver", vm.base(), st)
	if code != 1 || !strings.Contains(out, "receiver: doubled   buckets merged") || !strings.Contains(out, "0 doubled, 0 different; 0 extra") {
		t.Fatalf("exit %d, want 1 naming the buckets merged:\n%s", code, out)
	}
	t.Logf("VictoriaMetrics holds %d of the tape's %d rows:\n%s", len(series), len(want), out)
}

func TestTheCopysEndAfterTheMarkersOfARunWereLostResumesWithTheirBucketAndThenHolds(t *testing.T) {
	prom, dir, log, st := startedWithStore(t, "prometheus", "access.log", 600)
	// A second run of only malformed lines: its !drop counts are a
	// marker-only group, sent after the last bucket's.
	f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("no Apache line\nnor this\n")
	f.Close()
	mustRun(t, dir, "feed", "-q", log, "--", "tally", "--run", st)
	proxy := &dropProxy{target: prom.writeURL(), dropped: map[string]bool{}, drop: func(_ int64, sealed bool) bool { return !sealed }}
	srv := httptest.NewServer(proxy)
	defer srv.Close()
	mustRun(t, dir, "tgpush", "--once", "-q", "--url", srv.URL+"/api/v1/write", st)
	if len(proxy.stamps) != 1 {
		t.Fatalf("the proxy dropped %d marker-only groups, want the one", len(proxy.stamps))
	}
	width := storeWidth(t, st)
	last := bucketOf(proxy.kept[len(proxy.kept)-1][0], width).Format(time.RFC3339)
	out, code := tgcheckReceiver(t, "--receiver", prom.base(), st)
	ends := fmt.Sprintf("its copy ends at the bucket at %s, the newest it holds whole, but not the data-quality counts of the runs after it; tgpush --from %s resumes with that bucket", last, last)
	if code != 1 || !strings.Contains(out, ends) || !strings.Contains(out, fmt.Sprintf("%d missing (in 1 groups)", len(proxy.dropped))) {
		t.Fatalf("exit %d, want 1, %d missing in 1 group and %q:\n%s", code, len(proxy.dropped), ends, out)
	}
	// The resume, run as printed (a cursor of its own: the old one is past
	// it), and the receiver holds the tape.
	mustRun(t, dir, "tgpush", "--once", "-q", "--cursor", filepath.Join(dir, "resume.cursor"), "--from", last, "--url", prom.writeURL(), st)
	all := prom.samples("", "")
	mustHold(t, len(all), "--receiver", prom.base(), st)
	_, quality := splitQuality(all)
	dropped := 0.0
	for _, q := range quality {
		if f := strings.Split(q, "\t"); f[1] == "timbertally_dropped_entries" {
			v, _ := strconv.ParseFloat(f[3], 64)
			dropped += v
		}
	}
	if want := tapeCounts(t, st, "!drop"); dropped != want {
		t.Errorf("Prometheus holds %v dropped entries, the tape's !drop markers %v", dropped, want)
	}
}

func TestTgcheckReceiverReadsAPrometheusBehindBasicAuthAndTLSWithTheCredentialsFromFilesAndNeverShowsThem(t *testing.T) {
	dir := t.TempDir()
	ca, caPEM := testCA(t, dir)
	const password = "correct horse"
	hash, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	web := filepath.Join(dir, "web.yml")
	writeFile(t, web, fmt.Appendf(nil, "tls_server_config:\n  cert_file: %s\n  key_file: %s\nbasic_auth_users:\n  web1: %s\n",
		filepath.Join(dir, "server.crt"), filepath.Join(dir, "server.key"), hash))
	prom := newReceiver(t, "prometheus", "--web.config.file="+web)
	prom.scheme = "https"
	prom.client.Transport = &http.Transport{TLSClientConfig: &tls.Config{RootCAs: ca}}
	prom.start()
	log := filepath.Join(dir, "access.log")
	pushLog(t, log, 600)
	st := pipeline(t, dir, log)
	right, wrong := filepath.Join(dir, "right"), filepath.Join(dir, "wrong")
	writeFile(t, right, []byte(password+"\n"))
	writeFile(t, wrong, []byte("Tr0ub4dor&3\n"))
	creds := func(pw string) []string {
		return []string{"--ca-file", caPEM, "--basic-auth-user", "web1", "--basic-auth-password-file", pw}
	}
	mustRun(t, dir, append(append([]string{"tgpush", "--once", "-q", "--url", prom.writeURL()}, creds(right)...), st)...)

	out, code := tgcheckReceiver(t, append(append([]string{"--receiver", prom.base()}, creds(wrong)...), st)...)
	if code != 1 || !strings.Contains(out, "it refused the credentials (401 Unauthorized)") || strings.Contains(out, "Tr0ub4dor") {
		t.Errorf("a wrong password: exit %d:\n%s", code, out)
	}
	out, code = tgcheckReceiver(t, "--receiver", prom.base(), "--basic-auth-user", "web1", "--basic-auth-password-file", right, st)
	if code != 1 || !strings.Contains(out, "--ca-file") || strings.Contains(out, password) {
		t.Errorf("no --ca-file: exit %d:\n%s", code, out)
	}
	all := prom.samples("web1", password)
	series, _ := splitQuality(all)
	sameRows(t, series, tapeRows(t, st))
	mustHold(t, len(all), append(append([]string{"--receiver", prom.base()}, creds(right)...), st)...)
}
