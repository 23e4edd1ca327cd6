package testscripts

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// liveDoc has one-second buckets, so that a live run of a few seconds
// seals many of them.
const liveDoc = `format apache-combined
window 1s grace=0s
metric requests count by=status
metric bytes sum=bytes by=status
`

// writer appends Apache lines to a log until stopped, and counts them. Its
// log clock starts ten minutes ago and runs 50 times faster than the wall
// clock (50 ms of log time a line, a line a millisecond), so that a run of
// seconds seals a hundred buckets, every one within a Prometheus head.
type writer struct {
	path  string
	lines atomic.Int64
	stop  chan struct{}
	done  chan struct{}
}

func startWriter(t *testing.T, path string) *writer {
	w := &writer{path: path, stop: make(chan struct{}), done: make(chan struct{})}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(w.done)
		defer f.Close()
		statuses := []int{200, 200, 200, 304, 404, 500}
		clock := time.Now().UTC().Add(-10 * time.Minute)
		for i := 0; ; i++ {
			stopped := false
			select {
			case <-w.stop:
				stopped = true // one more line, an entry
			case <-time.After(time.Millisecond):
			}
			clock = clock.Add(50 * time.Millisecond)
			now := clock.Format("02/Jan/2006:15:04:05 -0700")
			line := fmt.Sprintf("10.0.0.%d - - [%s] \"GET /p%d HTTP/1.1\" %d %d \"-\" \"live\"\n", i%7, now, i%5, statuses[i%len(statuses)], 100+i%900)
			if i%50 == 49 && !stopped {
				line = "a line that is no Apache line\n"
			}
			if _, err := f.WriteString(line); err != nil {
				return
			}
			w.lines.Add(1)
			if stopped {
				return
			}
		}
	}()
	return w
}

// halt stops the writer. Its last line is an entry, so that no !drop run
// is left open in tally (an interrupted tally writes no open run).
func (w *writer) halt() int64 {
	close(w.stop)
	<-w.done
	return w.lines.Load()
}

// tapeAccounts counts, from the tape's text, what tgpush's data-quality
// series must add up to: the seals' entries=, and the !late and !drop
// counts before the last seal (what follows it waits for the next seal).
func tapeAccounts(t *testing.T, st string) (seals int, entries, late, dropped float64, lastSealEnd int64) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(st, "tape"))
	if err != nil {
		t.Fatal(err)
	}
	count := regexp.MustCompile(`count=(\d+)`)
	var pendLate, pendDrop float64
	var off int64
	for _, line := range strings.SplitAfter(string(data), "\n") {
		off += int64(len(line))
		f := strings.Fields(line)
		if len(f) == 0 || !strings.HasSuffix(line, "\n") {
			continue
		}
		switch f[0] {
		case "seal":
			seals++
			n, _ := strconv.Atoi(strings.TrimPrefix(f[3], "entries="))
			entries += float64(n)
			late, dropped, pendLate, pendDrop = late+pendLate, dropped+pendDrop, 0, 0
			lastSealEnd = off
		case "!late", "!drop":
			n, _ := strconv.Atoi(count.FindStringSubmatch(line)[1])
			if f[0] == "!late" {
				pendLate += float64(n)
			} else {
				pendDrop += float64(n)
			}
		}
	}
	return seals, entries, late, dropped, lastSealEnd
}

// checkQualityAgainstTape compares the data-quality samples with the
// tape's own counts (tapeAccounts).
func checkQualityAgainstTape(t *testing.T, quality []string, st string) {
	t.Helper()
	seals, entries, late, dropped, _ := tapeAccounts(t, st)
	sums, n := map[string]float64{}, map[string]int{}
	for _, q := range quality {
		f := strings.Split(q, "\t")
		v, _ := strconv.ParseFloat(f[3], 64)
		sums[f[1]] += v
		n[f[1]]++
	}
	if n["timbertally_entries"] != seals || sums["timbertally_entries"] != entries || sums["timbertally_late_entries"] != late || sums["timbertally_dropped_entries"] != dropped {
		t.Errorf("receiver: %d entries samples, entries %v late %v dropped %v; tape: %d seals, entries %v late %v dropped %v",
			n["timbertally_entries"], sums["timbertally_entries"], sums["timbertally_late_entries"], sums["timbertally_dropped_entries"], seals, entries, late, dropped)
	}
}

// cursorOffset reads the offset of a tgpush cursor file (-1 when there
// is none yet).
func cursorOffset(path string) int64 {
	data, err := os.ReadFile(path)
	if err != nil {
		return -1
	}
	m := regexp.MustCompile(` offset=(\d+)`).FindStringSubmatch(cursorLine(data))
	if m == nil {
		return -1
	}
	n, _ := strconv.ParseInt(m[1], 10, 64)
	return n
}

// cursorLine is the test's own reading of a tgpush cursor: of its two
// slots (each "RECORD seq=N sum=HEX", padded), the record of the higher
// seq=; a file of one line (an earlier tgpush's) as it is.
func cursorLine(data []byte) string {
	best, bestSeq := "", int64(-1)
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		m := regexp.MustCompile(`^(.*) seq=(\d+) sum=[0-9a-f]{8} *$`).FindStringSubmatch(l)
		if m == nil {
			return strings.TrimSpace(string(data))
		}
		if seq, _ := strconv.ParseInt(m[2], 10, 64); seq > bestSeq {
			best, bestSeq = m[1], seq
		}
	}
	return best
}

func startCmd(t *testing.T, dir, stderrFile string, argv ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	f, err := os.OpenFile(filepath.Join(dir, stderrFile), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd.Stderr = f
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return cmd
}

func TestTgpushKilledAtRandomMomentsWhileFollowingALiveStoreLosesAndDoublesNothing(t *testing.T) {
	prom := newReceiver(t, "prometheus")
	prom.start()
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
	push := []string{"tgpush", "--url", prom.writeURL(), "--cursor", cursor, "--poll", "20ms", "--max-samples", "40"}

	seed := uint64(time.Now().UnixNano())
	rng := mrand.New(mrand.NewPCG(seed, 16))
	kills := 0
	for range 10 {
		p := startCmd(t, dir, "push.err", append(push, st)...)
		time.Sleep(time.Duration(20+rng.IntN(300)) * time.Millisecond) // a random moment: the point of the test
		p.Process.Kill()
		// A kill counts when it found tgpush running (it follows until
		// stopped): one that had exited by itself killed nothing.
		if err := p.Wait(); err != nil && strings.Contains(err.Error(), "killed") {
			kills++
		}
	}
	killFloor(t, 10, 10, kills, 10)
	written := w.halt()
	// Wait until the tape accounts for every line written: idle seals the
	// last bucket.
	waitUntil(t, "the tape to account for every line", func() bool {
		_, entries, late, dropped, _ := tapeAccounts(t, st)
		return entries+late+dropped == float64(written)
	})
	feed.Process.Signal(syscall.SIGTERM)
	feed.Wait()
	p := startCmd(t, dir, "push.err", append(push, st)...)
	_, _, _, _, lastSeal := tapeAccounts(t, st)
	began := time.Now()
	waitUntil(t, "tgpush to reach the last seal", func() bool {
		if p.ProcessState != nil || cursorOffset(cursor) > lastSeal || time.Since(began) > 20*time.Second {
			c, _ := os.ReadFile(cursor)
			tp, _ := os.ReadFile(filepath.Join(st, "tape"))
			t.Logf("cursor %s; tape size %d; around the cursor: %q", c, len(tp), tp[max(0, cursorOffset(cursor)-300):min(int64(len(tp)), cursorOffset(cursor)+300)])
			notes, _ := os.ReadFile(filepath.Join(dir, "push.err"))
			t.Fatalf("tgpush exited or went past the last seal at %d (cursor %d):\n%s", lastSeal, cursorOffset(cursor), notes)
		}
		return cursorOffset(cursor) == lastSeal
	})
	p.Process.Signal(syscall.SIGTERM)
	if err := p.Wait(); err != nil {
		t.Fatalf("tgpush stopped by SIGTERM: %v", err)
	}
	series, quality := splitQuality(prom.samples("", ""))
	sameRows(t, series, tapeRows(t, st))
	checkQualityAgainstTape(t, quality, st)
	_, entries, late, dropped, _ := tapeAccounts(t, st)
	t.Logf("seed %d: %d lines written, %d kills -9 of tgpush; tape: %v entries, %v late, %v dropped", seed, written, kills, entries, late, dropped)
}

func fileSize(t *testing.T, path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

func TestAReceiverStoppedAndStartedAgainOnItsDataGetsEverySampleOnce(t *testing.T) {
	prom := newReceiver(t, "prometheus")
	prom.start()
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole.log")
	pushLog(t, whole, 1500)
	data, _ := os.ReadFile(whole)
	half := strings.Index(string(data[len(data)/2:]), "\n") + len(data)/2 + 1
	log := filepath.Join(dir, "access.log")
	writeFile(t, log, data[:half])
	st := pipeline(t, dir, log)
	cursor := filepath.Join(dir, "push.cursor")
	p := startCmd(t, dir, "push.err", "tgpush", "--url", prom.writeURL(), "--cursor", cursor, "--retry-max", "200ms", "--poll", "20ms", st)
	waitUntil(t, "the first half pushed", func() bool { return cursorOffset(cursor) == fileSize(t, filepath.Join(st, "tape")) })

	prom.stop()
	writeFile(t, log, data) // the second half arrives while the receiver is down
	mustRun(t, dir, "feed", "-q", log, "--", "tally", "--run", st)
	waitfor(t, filepath.Join(dir, "push.err"), "cannot be reached")
	prom.start()
	waitUntil(t, "the second half pushed", func() bool { return cursorOffset(cursor) == fileSize(t, filepath.Join(st, "tape")) })
	p.Process.Signal(syscall.SIGTERM)
	p.Wait()

	series, quality := splitQuality(prom.samples("", ""))
	sameRows(t, series, tapeRows(t, st))
	checkQuality(t, quality, log, st)
	notes, _ := os.ReadFile(filepath.Join(dir, "push.err"))
	if strings.Count(string(notes), "cannot be reached") != 1 || strings.Count(string(notes), "takes samples again") != 1 {
		t.Errorf("want one note for the outage and one for its end:\n%s", notes)
	}
}

func TestSamplesTooOldForPrometheusStopTgpushNamingTheBucketAndTheBackfill(t *testing.T) {
	prom, dir, _, st := startedWithStore(t, "prometheus", "recent.log", 300)
	mustRun(t, dir, "tgpush", "--once", "-q", "--url", prom.writeURL(), st)

	// Buckets of October, far behind the head that the recent ones set.
	old := filepath.Join(dir, "old.log")
	synthFile(t, old, 300)
	oldSt := filepath.Join(dir, "old")
	mustRun(t, dir, "tally", "--provision", "--doc", "apache-combined", oldSt)
	mustRun(t, dir, "feed", "-q", old, "--", "tally", "--run", oldSt)
	stderr, code := run(t, dir, "tgpush", "--once", "--label", "host=old", "--url", prom.writeURL(), oldSt)
	if code != 1 {
		t.Fatalf("exit %d, want 1: %s", code, stderr)
	}
	for _, want := range []string{"refused the bucket at 2026-10-10T13:55:00Z", "out of bounds", "tgread --format openmetrics --from 2026-10-10T13:55:00Z --to T --label host=old", "run tgpush --from T"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	// Nothing of the old store went in, and the recent one is whole.
	series, _ := splitQuality(prom.samples("", ""))
	sameRows(t, series, tapeRows(t, st))

	// The backfill, run as the message says (T past the old tape's end),
	// gives a Prometheus the old tape's series with the label tgpush adds.
	m := regexp.MustCompile(`\(tgread (.+?) > backfill\.om; promtool tsdb create-blocks-from openmetrics backfill\.om DATA\)`).FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no backfill command in %s", stderr)
	}
	promtool := needBinary(t, "promtool")
	back := newReceiver(t, "prometheus", "--storage.tsdb.retention.time=100y")
	tgread := "tgread " + strings.Replace(m[1], "--to T ", "--to 2100-01-01T00:00:00Z ", 1) + " > backfill.om"
	if out, err := exec.Command("sh", "-c", "cd "+dir+" && "+tgread).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", tgread, err, out)
	}
	if out, err := exec.Command(promtool, "tsdb", "create-blocks-from", "openmetrics", filepath.Join(dir, "backfill.om"), filepath.Join(back.data, "tsdb")).CombinedOutput(); err != nil {
		t.Fatalf("promtool: %v\n%s", err, out)
	}
	back.start()
	// The backfill carries the data-quality series, stamped as tgpush would.
	backSeries, backQuality := splitQuality(back.samples("", ""))
	sameRows(t, backSeries, withLabel(tapeRows(t, oldSt), "old"))
	checkQualityAgainstTape(t, backQuality, oldSt)
}

func TestPrometheusWithBasicAuthAndTLSTakesTheRightCredentialsAndRefusesTheRest(t *testing.T) {
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
	tgpush := func(url string, args ...string) (string, int) {
		return run(t, dir, append(append([]string{"tgpush", "--once", "--url", url}, args...), st)...)
	}
	creds := func(pw string) []string {
		return []string{"--ca-file", caPEM, "--basic-auth-user", "web1", "--basic-auth-password-file", pw}
	}

	stderr, code := tgpush(prom.writeURL(), creds(wrong)...)
	if code != 1 || !strings.Contains(stderr, "refused the credentials (401 Unauthorized)") || !strings.Contains(stderr, "--basic-auth-password-file "+wrong) || strings.Contains(stderr, "Tr0ub4dor") {
		t.Errorf("a wrong password: exit %d, %s", code, stderr)
	}
	plain := strings.Replace(prom.writeURL(), "https://", "http://", 1)
	if stderr, code := tgpush(plain, creds(right)...); code != 1 || !strings.Contains(stderr, "speaks https") {
		t.Errorf("plain http: exit %d, %s", code, stderr)
	}
	if stderr, code := tgpush(prom.writeURL(), "--basic-auth-user", "web1", "--basic-auth-password-file", right); code != 1 || !strings.Contains(stderr, "--ca-file") {
		t.Errorf("no --ca-file: exit %d, %s", code, stderr)
	}
	if stderr, code := tgpush(prom.writeURL(), creds(right)...); code != 0 {
		t.Fatalf("the right credentials: exit %d, %s", code, stderr)
	}
	series, quality := splitQuality(prom.samples("web1", password))
	sameRows(t, series, tapeRows(t, st))
	checkQuality(t, quality, log, st)
}

// testCA makes a CA and a certificate for 127.0.0.1 signed by it, writes
// server.crt, server.key and ca.crt in dir, and returns the CA's pool and
// its file.
func testCA(t *testing.T, dir string) (*x509.CertPool, string) {
	t.Helper()
	key := func() *ecdsa.PrivateKey {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	caKey, srvKey := key(), key()
	now := time.Now()
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "timbertally test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	srvTmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour), IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	srvDER, err := x509.CreateCertificate(rand.Reader, srvTmpl, caCert, &srvKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	srvKeyDER, err := x509.MarshalECPrivateKey(srvKey)
	if err != nil {
		t.Fatal(err)
	}
	writePEM := func(name, kind string, der []byte) string {
		p := filepath.Join(dir, name)
		writeFile(t, p, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}))
		return p
	}
	writePEM("server.crt", "CERTIFICATE", srvDER)
	writePEM("server.key", "EC PRIVATE KEY", srvKeyDER)
	pool := x509.NewCertPool()
	pool.AddCert(caCert)
	return pool, writePEM("ca.crt", "CERTIFICATE", caDER)
}

// A first run's --from TIME is in the cursor before anything is pushed:
// tgpush killed -9 while the receiver is down, then run again without
// --from (which the cursor refuses), pushes only the buckets from TIME.
func TestFromTimeOutlivesAKillAndNoLaterRunPushesABucketBeforeIt(t *testing.T) {
	prom := newReceiver(t, "prometheus") // not started yet: down
	dir := t.TempDir()
	recent := filepath.Join(dir, "recent.log")
	pushLog(t, recent, 300)
	st := pipeline(t, dir, recent)
	rows := tapeRows(t, st)
	var starts []string
	for _, r := range tsvRows(t, st) {
		if ts := strings.SplitN(r, "\t", 2)[0]; !slices.Contains(starts, ts) {
			starts = append(starts, ts)
		}
	}
	slices.Sort(starts)
	if len(starts) < 3 {
		t.Fatalf("the tape has %d buckets: the test proves nothing", len(starts))
	}
	from := starts[len(starts)/2]
	cursor := filepath.Join(dir, "push.cursor")
	p := startCmd(t, dir, "push.err", "tgpush", "--from", from, "--url", prom.writeURL(), "--cursor", cursor, "--retry-max", "50ms", st)
	waitUntil(t, "the first run's cursor", func() bool {
		data, _ := os.ReadFile(cursor)
		return strings.HasSuffix(cursorLine(data), " from="+from)
	})
	p.Process.Kill()
	p.Wait()
	prom.start()
	mustRun(t, dir, "tgpush", "--once", "-q", "--url", prom.writeURL(), "--cursor", cursor, st)
	var want []string
	for _, r := range rows {
		if r >= from { // RFC 3339 in UTC: ordered as text; a bucket's last ms is at or after from when it starts at or after it
			want = append(want, r)
		}
	}
	if len(want) == len(rows) {
		t.Fatal("no row is before --from: the test proves nothing")
	}
	series, _ := splitQuality(prom.samples("", ""))
	sameRows(t, series, want)
}
