package testscripts

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A receiver is a real remote-write server (Prometheus or VictoriaMetrics)
// on 127.0.0.1, with its data in a temporary directory, that a test can
// stop and start again on the same data and read back raw samples from.
type receiver struct {
	t      *testing.T
	kind   string // "prometheus" or "victoria-metrics"
	bin    string
	port   int
	data   string
	extra  []string // more flags (--web.config.file)
	config string   // prometheus: its configuration file's text (default: none)
	scrape bool     // prometheus: no remote-write receiver, only what config scrapes
	scheme string
	client *http.Client
	cmd    *exec.Cmd
	log    string
}

// needBinary returns the path of a server's binary, whose Debian package
// has its name (see tool).
func needBinary(t *testing.T, name string) string {
	t.Helper()
	return tool(t, name, name)
}

// newReceiver makes a receiver of kind: "prometheus" (Debian's 2.42),
// "prometheus3" (built by .ci/servers.sh) or "victoria-metrics".
func newReceiver(t *testing.T, kind string, extra ...string) *receiver {
	t.Helper()
	var bin string
	if kind == "prometheus3" {
		bin = builtServer(t, kind)
	} else {
		bin = needBinary(t, kind)
	}
	r := &receiver{t: t, kind: kind, bin: bin, port: freePort(t), data: t.TempDir(),
		extra: extra, scheme: "http", client: &http.Client{Timeout: 10 * time.Second}}
	r.log = filepath.Join(r.data, "server.log")
	t.Cleanup(r.stop)
	return r
}

// startedWithStore starts a receiver of kind and, in a fresh directory,
// makes a tally store (st) in one complete run from a pushLog of n lines
// at name.
func startedWithStore(t *testing.T, kind, name string, n int) (r *receiver, dir, log, st string) {
	t.Helper()
	r = newReceiver(t, kind)
	r.start()
	dir = t.TempDir()
	log = filepath.Join(dir, name)
	pushLog(t, log, n)
	return r, dir, log, pipeline(t, dir, log)
}

// freePort is a port on 127.0.0.1 that nothing listened on a moment ago.
func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func (r *receiver) base() string { return fmt.Sprintf("%s://127.0.0.1:%d", r.scheme, r.port) }

// writeURL is the receiver's remote-write endpoint.
func (r *receiver) writeURL() string { return r.base() + "/api/v1/write" }

// start runs the server and waits until it answers ready.
func (r *receiver) start() {
	r.t.Helper()
	addr := fmt.Sprintf("127.0.0.1:%d", r.port)
	var args []string
	switch r.kind {
	case "prometheus", "prometheus3":
		cfg := filepath.Join(r.data, "prometheus.yml")
		writeFile(r.t, cfg, []byte(cmp.Or(r.config, "global: {}\n")))
		args = []string{"--config.file=" + cfg, "--storage.tsdb.path=" + filepath.Join(r.data, "tsdb"),
			"--web.listen-address=" + addr}
		if !r.scrape {
			args = append(args, "--web.enable-remote-write-receiver")
		}
	case "victoria-metrics":
		// Deduplication makes a re-sent sample (after a kill) one sample,
		// as Prometheus does by itself (docs/tgpush.md says so).
		args = []string{"-storageDataPath=" + filepath.Join(r.data, "vm"), "-httpListenAddr=" + addr,
			"-dedup.minScrapeInterval=1ms", "-retentionPeriod=100y", "-search.latencyOffset=0s"}
	}
	log, err := os.OpenFile(r.log, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		r.t.Fatal(err)
	}
	defer log.Close()
	r.cmd = exec.Command(r.bin, append(args, r.extra...)...)
	r.cmd.Stdout, r.cmd.Stderr = log, log
	if err := r.cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
	ready := "/-/ready"
	if r.kind == "victoria-metrics" {
		ready = "/health"
	}
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		resp, err := r.client.Get(r.base() + ready)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusUnauthorized {
				return
			}
		}
		if time.Now().After(deadline) {
			data, _ := os.ReadFile(r.log)
			r.t.Fatalf("%s never became ready on %s: %v\n%s", r.kind, addr, err, tail(string(data), 20))
		}
	}
}

// stop ends the server (SIGTERM, so that it closes its data cleanly) and
// waits for it.
func (r *receiver) stop() {
	if r.cmd == nil || r.cmd.Process == nil {
		return
	}
	r.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { r.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		r.cmd.Process.Kill()
		<-done
	}
	r.cmd = nil
}

// samples returns every raw sample the receiver holds, one line each in
// the columns of tgread --format tsv (time, metric, labels k=v sorted,
// value), sorted; the basic auth user and password are given when set.
func (r *receiver) samples(user, pass string) []string {
	r.t.Helper()
	var lines []string
	switch r.kind {
	case "prometheus", "prometheus3":
		q := url.Values{"query": {`{__name__!=""}[100y]`}, "time": {strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10)}}
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
		r.getJSON("/api/v1/query?"+q.Encode(), user, pass, &res)
		if res.Status != "success" {
			r.t.Fatalf("prometheus query failed: %s", res.Error)
		}
		for _, s := range res.Data.Result {
			for _, v := range s.Values {
				lines = append(lines, sampleLine(s.Metric, int64(math.Round(v[0].(float64)*1000)), v[1].(string)))
			}
		}
	case "victoria-metrics":
		r.getJSON("/internal/force_flush", "", "", nil)
		resp := r.get("/api/v1/export?"+url.Values{"match[]": {`{__name__!=""}`}}.Encode(), "", "")
		defer resp.Body.Close()
		dec := json.NewDecoder(resp.Body)
		for dec.More() {
			var s struct {
				Metric     map[string]string
				Values     []float64
				Timestamps []int64
			}
			if err := dec.Decode(&s); err != nil {
				r.t.Fatal(err)
			}
			for i, v := range s.Values {
				lines = append(lines, sampleLine(s.Metric, s.Timestamps[i], strconv.FormatFloat(v, 'f', -1, 64)))
			}
		}
	}
	sort.Strings(lines)
	return lines
}

func (r *receiver) get(path, user, pass string) *http.Response {
	r.t.Helper()
	req, err := http.NewRequest(http.MethodGet, r.base()+path, nil)
	if err != nil {
		r.t.Fatal(err)
	}
	if user != "" {
		req.SetBasicAuth(user, pass)
	}
	resp, err := r.client.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	return resp
}

func (r *receiver) getJSON(path, user, pass string, v any) {
	r.t.Helper()
	resp := r.get(path, user, pass)
	defer resp.Body.Close()
	if v == nil {
		return
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		r.t.Fatalf("%s: %v", path, err)
	}
}

// sampleLine is a sample in tgread's tsv columns.
func sampleLine(metric map[string]string, ms int64, value string) string {
	var labels []string
	for k, v := range metric {
		if k != "__name__" {
			labels = append(labels, k+"="+v)
		}
	}
	slices.Sort(labels)
	ts := time.UnixMilli(ms).UTC().Format(stampFormat)
	return strings.Join([]string{ts, metric["__name__"], strings.Join(labels, ","), value}, "\t")
}
