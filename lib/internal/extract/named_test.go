package extract

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/timbertally/timbertally/lib/internal/doc"
	"github.com/timbertally/timbertally/lib/internal/synth"
)

// namedFixtures are the named formats' fixtures in testdata/formats (their
// sources: testdata/formats/SOURCES.md), each with its format line.
var namedFixtures = []struct{ format, file string }{
	{"combined", "varnishncsa.log"}, {"common", "common.log"}, {"vcombined", "vcombined.log"}, {"vcommon", "vcommon.log"},
	{"varnishncsa", "varnishncsa.log"}, {"traefikclf", "traefikclf.log"}, {"awselb", "awselb.log"}, {"awsalb", "awsalb.log"},
	{"awss3", "awss3.log"}, {"cloudstorage", "cloudstorage.log"}, {"cloudfront", "cloudfront.log"}, {"w3c", "w3c.log"},
	{"squid", "squid.log"}, {"caddy", "caddy.log"}, {"haproxy httplog", "haproxy-httplog.log"},
	{"haproxy tcplog", "haproxy-tcplog.log"}, {"haproxy httpslog", "haproxy-httpslog.log"}, {"envoy", "envoy.log"},
}

// pyLine is one line of independent.py's output.
type pyLine struct {
	N      int                `json:"n"`
	Header bool               `json:"header"`
	Drop   string             `json:"drop"`
	Time   int64              `json:"time"`
	Fields map[string]string  `json:"fields"`
	Num    map[string]float64 `json:"num"`
}

func namedExtractor(t testing.TB, format string) *Extractor {
	t.Helper()
	d, err := doc.Parse("t", []byte("format "+format+"\nwindow 1s\nmetric r count\n"))
	if err != nil {
		t.Fatal(err)
	}
	x, err := New(d)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func fixtureLines(t testing.TB, file string) [][]byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "formats", file))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(b, []byte("\n"))
	return lines[:len(lines)-1]
}

// TestEveryNamedFormatAgreesWithAnIndependentPythonParser extracts each
// fixture line and compares every field, the time and every drop reason
// with testdata/formats/independent.py, a parser written from the formats'
// own documentation with regular expressions.
func TestEveryNamedFormatAgreesWithAnIndependentPythonParser(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("python3 is not installed")
		}
		t.Skip("python3 is not installed (apt-get install python3)")
	}
	values := 0
	for _, c := range namedFixtures {
		out, err := exec.Command("python3", filepath.Join("testdata", "formats", "independent.py"), c.format,
			filepath.Join("testdata", "formats", c.file)).Output()
		if err != nil {
			t.Fatalf("%s: independent.py: %v", c.format, err)
		}
		x := namedExtractor(t, c.format)
		x.CutRequests()
		lines := fixtureLines(t, c.file)
		dec := json.NewDecoder(bytes.NewReader(out))
		var e Entry
		for i, line := range lines {
			var py pyLine
			if err := dec.Decode(&py); err != nil || py.N != i+1 {
				t.Fatalf("%s %s:%d: independent.py said %+v, %v", c.format, c.file, i+1, py, err)
			}
			where := c.format + " " + c.file + ":" + strconv.Itoa(i+1)
			reason := x.Extract(line, &e)
			switch {
			case py.Header:
				if reason != ReasonHeader && reason != ReasonLayout {
					t.Errorf("%s: a header line, extracted with reason %q", where, reason)
				}
				continue
			case py.Drop != "":
				if reason != py.Drop {
					t.Errorf("%s: dropped for %q by the independent parser, %q here", where, py.Drop, reason)
				}
				continue
			case reason != "":
				t.Errorf("%s: dropped (%s); the independent parser reads it", where, reason)
				continue
			}
			if e.Time != py.Time {
				t.Errorf("%s: time %d, the independent parser's %d", where, e.Time, py.Time)
			}
			for k, name := range x.names {
				got := string(e.Fields[k])
				if want, ok := py.Fields[name]; ok {
					if got != want {
						t.Errorf("%s: field %s = %q, the independent parser's %q", where, name, got, want)
					}
					values++
					continue
				}
				if want, ok := py.Num[name]; ok {
					if v, isNum := e.Number(k); !isNum || v != want {
						t.Errorf("%s: field %s = %v (%q), the independent parser's %v", where, name, v, got, want)
					}
					values++
					continue
				}
				if got != "" {
					t.Errorf("%s: field %s = %q, which the independent parser does not have", where, name, got)
				}
			}
			for name := range py.Fields {
				if x.Field(name) < 0 {
					t.Errorf("%s: the independent parser has field %s, which the format does not", where, name)
				}
			}
		}
	}
	if values < 500 {
		t.Errorf("only %d values compared; the fixtures hold more", values)
	}
	t.Logf("%d values equal", values)
}

// TestEveryFormatOffersTheCommonNames parses a document reading the common
// names against every format that has their quantities.
func TestEveryFormatOffersTheCommonNames(t *testing.T) {
	for _, c := range []struct{ format, names string }{
		{"apache-combined", "time status bytes method path"},
		{`apache "%h %l %u %t \"%r\" %>s %b %D"`, "time status bytes method path duration"},
		{"nginx combined", "time status bytes method path"},
		{`nginx '$remote_addr [$time_iso8601] "$request" $status $bytes_sent $request_time'`, "time status bytes method path duration"},
		{"combined", "time status bytes method path"}, {"vcombined", "time status bytes method path"},
		{"traefikclf", "time status bytes method path duration"}, {"awselb", "time status bytes method path"},
		{"awsalb", "time status bytes method path"}, {"awss3", "time status bytes method path duration"},
		{"cloudstorage", "time status bytes method path duration"}, {"cloudfront", "time status bytes method path duration"},
		{"w3c", "time status bytes method path duration"}, {"squid", "time status bytes method path duration"},
		{"caddy", "time status bytes method path duration"}, {"haproxy httplog", "time status bytes method path duration"},
		{"haproxy tcplog", "time bytes duration"}, {"haproxy httpslog", "time status bytes method path duration"},
		{"envoy", "time status bytes method path duration"},
		{"varnishncsa", "time status bytes method path"},
	} {
		var text strings.Builder
		text.WriteString("format " + c.format + "\nwindow 1s\n")
		for _, n := range strings.Fields(c.names) {
			if n == "time" {
				text.WriteString("metric n_" + n + " count by=time\n")
				continue
			}
			text.WriteString("metric n_" + n + " count by=" + n + "\n")
		}
		if _, err := doc.Parse("t", []byte(text.String())); err != nil {
			t.Errorf("format %s: %v", c.format, err)
		}
	}
}

// TestExtractingTheNamedFormatsAllocatesNothing runs every fixture line
// through its format, common names read, and counts allocations.
func TestExtractingTheNamedFormatsAllocatesNothing(t *testing.T) {
	for _, c := range namedFixtures {
		if c.format == "squid" {
			continue // below: its first padded line grows the scratch buffer once
		}
		d, err := doc.Parse("t", []byte("format "+c.format+"\nwindow 1s\nmetric r count\n"))
		if err != nil {
			t.Fatal(err)
		}
		x, _ := New(d)
		x.CutRequests() // every common name worked out, duration's seconds formatted
		lines := fixtureLines(t, c.file)
		var e Entry
		for _, l := range lines {
			x.Extract(l, &e)
		}
		if n := testing.AllocsPerRun(20, func() {
			for _, l := range lines {
				x.Extract(l, &e)
			}
		}); n != 0 && c.format != "caddy" && c.format != "w3c" && c.format != "cloudfront" {
			t.Errorf("format %s: %v allocations per run of %d lines", c.format, n, len(lines))
		}
	}
	// The header-driven formats allocate at a #Fields line (its columns),
	// never per entry; caddy's JSON, as format json, none per entry.
	for _, c := range []struct{ format, file string }{{"w3c", "w3c.log"}, {"cloudfront", "cloudfront.log"}, {"caddy", "caddy.log"}, {"squid", "squid.log"}} {
		x := namedExtractor(t, c.format)
		x.CutRequests()
		var entries [][]byte
		for _, l := range fixtureLines(t, c.file) {
			if l[0] != '#' {
				entries = append(entries, l)
			}
		}
		var e Entry
		for _, l := range entries {
			x.Extract(l, &e)
		}
		if n := testing.AllocsPerRun(20, func() {
			for _, l := range entries {
				x.Extract(l, &e)
			}
		}); n != 0 {
			t.Errorf("format %s: %v allocations per run of %d entries", c.format, n, len(entries))
		}
	}
}

// synthRow extracts lib/internal/synth's varied combined lines, each after
// prefix, with the document text.
func synthRow(b *testing.B, text, prefix string) {
	g, err := synth.New(synth.Config{Seed: 1, N: 4096, Format: synth.FormatCombined})
	if err != nil {
		b.Fatal(err)
	}
	x := newExtractor(b, text)
	var lines [][]byte
	size := 0
	var e Entry
	for range 4096 {
		l := g.Next([]byte(prefix))
		l = l[:len(l)-1]
		if r := x.Extract(l, &e); r != "" {
			b.Fatalf("%s: %s", r, l)
		}
		lines = append(lines, l)
		size += len(l) + 1
	}
	extractLoop(b, x, lines, size)
}

// extractLoop extracts lines in turn, b.N of them, each an entry: the
// benchmark's bytes are their mean length (size bytes in all).
func extractLoop(b *testing.B, x *Extractor, lines [][]byte, size int) {
	var e Entry
	b.SetBytes(int64(size / len(lines)))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if x.Extract(lines[i], &e) != "" {
			b.Fatalf("%q: not extracted", lines[i])
		}
		if i++; i == len(lines) {
			i = 0
		}
	}
}

// BenchmarkNamedFormats extracts each named format's fixture lines (the
// entries, cycled to 4096) with a document counting requests and summing
// bytes by status in the common names, the built-in apache-combined over
// the combined fixture first: their MB/s, taken in one invocation, are
// the ratios bench/README.md reports (goal: each >= 0.8x the built-in's).
func BenchmarkNamedFormats(b *testing.B) {
	const metrics = "\nwindow 10s\nmetric requests count by=status\nmetric bytes sum=bytes by=status\n"
	// the built-in over lib/internal/synth's varied combined lines, as ExtractGenerated
	b.Run("builtin-synth", func(b *testing.B) { synthRow(b, "format apache-combined"+metrics, "") })
	// the same lines with a vhost:port in front: vhost_combined's own cost
	// on the same content (the fixtures' lines are half as long)
	b.Run("vcombined-synth", func(b *testing.B) { synthRow(b, "format vcombined"+metrics, "www.example.com:443 ") })
	for _, c := range append([]struct{ format, file string }{{"apache-combined", "varnishncsa.log"}}, namedFixtures...) {
		if c.format == "combined" {
			continue // the same lines as the built-in, by the LogFormat cutter
		}
		b.Run(strings.ReplaceAll(c.format, " ", "-"), func(b *testing.B) {
			x := newExtractor(b, namedRowDoc(c.format))
			var entries [][]byte
			var e Entry
			for _, l := range fixtureLines(b, c.file) {
				if x.Extract(l, &e) == "" {
					entries = append(entries, l)
				}
			}
			// A log keeps to one form: each entry 16 times in a row (a
			// w3c file's under its last #Fields only).
			var lines [][]byte
			size := 0
			for len(lines) < 4096 {
				l := entries[len(lines)/16%len(entries)]
				if x.Extract(l, &e) != "" {
					entries = slices.Delete(entries, len(lines)/16%len(entries), len(lines)/16%len(entries)+1)
					continue
				}
				lines = append(lines, l)
				size += len(l) + 1
			}
			extractLoop(b, x, lines, size)
		})
	}
	// HAProxy's and Envoy's lines as busy servers write them (variedLines).
	for _, f := range []string{"haproxy httplog", "haproxy tcplog", "envoy"} {
		b.Run(strings.ReplaceAll(f, " ", "-")+"-varied", func(b *testing.B) {
			lines, size := variedLines(f, 4096), 0
			for _, l := range lines {
				size += len(l) + 1
			}
			extractLoop(b, newExtractor(b, namedRowDoc(f)), lines, size)
		})
	}
}

// namedRowDoc is BenchmarkNamedFormats' document for format: requests
// counted and bytes summed by status (by termination state for tcplog,
// which has no status).
func namedRowDoc(format string) string {
	by := "status"
	if format == "haproxy tcplog" {
		by = "termination_state"
	}
	return "format " + format + "\nwindow 10s\nmetric requests count by=" + by + "\nmetric bytes sum=bytes by=" + by + "\n"
}

// TestHAProxyAndEnvoyFormatStringsCompileAsTheirServersWriteThem compiles
// Istio's Envoy format and a custom HAProxy log-format (a sample fetch, a
// quoted field, the config line pasted whole) and reads their lines.
func TestHAProxyAndEnvoyFormatStringsCompileAsTheirServersWriteThem(t *testing.T) {
	istio := `format envoy '[%START_TIME%] "%REQ(:METHOD)% %REQ(X-ENVOY-ORIGINAL-PATH?:PATH)% %PROTOCOL%" %RESPONSE_CODE% %RESPONSE_FLAGS% %RESPONSE_CODE_DETAILS% %CONNECTION_TERMINATION_DETAILS% "%UPSTREAM_TRANSPORT_FAILURE_REASON%" %BYTES_RECEIVED% %BYTES_SENT% %DURATION% %RESP(X-ENVOY-UPSTREAM-SERVICE-TIME)% "%REQ(X-FORWARDED-FOR)%" "%REQ(USER-AGENT)%" "%REQ(X-REQUEST-ID)%" "%REQ(:AUTHORITY)%" "%UPSTREAM_HOST%" %UPSTREAM_CLUSTER% %UPSTREAM_LOCAL_ADDRESS% %DOWNSTREAM_LOCAL_ADDRESS% %DOWNSTREAM_REMOTE_ADDRESS% %REQUESTED_SERVER_NAME% %ROUTE_NAME%\n'`
	haproxy := `format haproxy log-format "%ci:%cp [%tr] %ft %b/%s %TR/%Tw/%Tc/%Tr/%Ta %ST %B %tsc %[ssl_fc_sni] %{+Q}HU"`
	for _, c := range []struct {
		format string
		line   string
		want   map[string]string
		dur    float64
	}{
		{istio, string(fixtureLines(t, "istio.log")[0]), map[string]string{"response_code": "418", "status": "418", "response_code_details": "via_upstream",
			"upstream_cluster": "outbound|8000||httpbin.foo.svc.cluster.local", "route_name": "default", "method": "GET", "path": "/status/418",
			"duration_ms": "4", "bytes": "135", "req_authority": "httpbin:8000"}, 0.004},
		{haproxy, `Dec  5 02:00:00 lb haproxy[7]: 192.0.2.4:5123 [05/Dec/2026:02:00:00.250] https~ app/a1 0/0/1/30/31 200 1024 ---- example.com "/x?y=1"`,
			map[string]string{"ssl_fc_sni": "example.com", "http_uri": "/x?y=1", "path": "/x?y=1", "status": "200", "termination_state": "----",
				"request_date": "05/Dec/2026:02:00:00.250", "time": "05/Dec/2026:02:00:00.250"}, 0.031},
	} {
		d, err := doc.Parse("t", []byte(c.format+"\nwindow 1s\nmetric r count by=status\nmetric s sum=duration by=path\n"))
		if err != nil {
			t.Fatalf("%s: %v", c.format, err)
		}
		x, _ := New(d)
		x.CutRequests() // every common name set, as tally --try --fields shows them
		var e Entry
		if r := x.Extract([]byte(c.line), &e); r != "" {
			t.Fatalf("%s: %q dropped (%s)", c.format, c.line, r)
		}
		for n, v := range c.want {
			if i := x.Field(n); i < 0 || string(e.Fields[i]) != v {
				t.Errorf("%s: field %s = %q, want %q (fields %v)", c.format[:20], n, fieldOr(x, &e, i), v, x.names)
			}
		}
		if v, ok := e.Number(x.Field("duration")); !ok || v != c.dur {
			t.Errorf("%s: duration %v, want %v seconds", c.format[:20], v, c.dur)
		}
	}
}

func fieldOr(x *Extractor, e *Entry, i int) string {
	if i < 0 {
		return "(no such field)"
	}
	return string(e.Fields[i])
}

// TestNamedFormatMistakesAreRefusedWithTheFix: what a format line gets
// wrong is refused with what to write instead.
func TestNamedFormatMistakesAreRefusedWithTheFix(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{"format haproxy", "wants httplog, httpslog, tcplog or the log-format string"},
		{"format haproxy '%ci %zz'", "is not a log-format variable this reader knows"},
		{"format envoy '%START_TIME %X%'", "not an Envoy command operator"},
		{"format w3c 'date time'", "its columns are the file's #Fields header's"},
		{"format awsalb extra", "takes nothing after it"},
		{"format haproxy tcplog\nwindow 1s\nmetric r count by=status", `names field "status", which the format does not have`},
	} {
		text := c.line
		if !strings.Contains(text, "metric") {
			text += "\nwindow 1s\nmetric r count\n"
		}
		_, err := doc.Parse("t", []byte(text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error saying %q", c.line, err, c.want)
		}
	}
}

// TestEverySyslogHeaderHAProxyWritesIsPassedOver: HAProxy's log formats
// (src/log.c: local, rfc3164, rfc5424, priority, short, timed, iso, raw)
// and the headers syslog daemons and journalctl write before a message
// are taken off, so the access line after them reads as one without: its
// client_ip is the address, not the header's <PRI> or time.
func TestEverySyslogHeaderHAProxyWritesIsPassedOver(t *testing.T) {
	const msg = `10.0.1.2:33317 [06/Feb/2009:12:14:14.655] http-in static/srv1 10/0/30/69/109 200 2750 - - ---- 1/1/1/1/0 0/0 "GET /index.html HTTP/1.1"`
	x := namedExtractor(t, "haproxy httplog")
	for _, head := range []string{
		"",                                      // raw
		"<134>Feb  6 12:14:14 haproxy[14389]: ", // local
		"<134>Feb  6 12:14:14 lb1 haproxy[14389]: ",                                                      // rfc3164
		"<134>1 2009-02-06T12:14:14.655123+01:00 lb1 haproxy 14389 - - ",                                 // rfc5424
		`<134>1 2009-02-06T12:14:14.655123+01:00 - haproxy 14389 - [sd@1 a="x y" b="\"]\\"][sd@2 c=""] `, // rfc5424, log-format-sd
		"<134>",                                // priority
		"<6>",                                  // short
		"<6>2009-02-06T12:14:14.655123+01:00 ", // timed
		"2009-02-06T12:14:14.655123+01:00 ",    // iso
		"Feb  6 12:14:14 lb1 haproxy[14389]: ", // rsyslog's traditional file format
		"2009-02-06T12:14:14.655123+01:00 lb1 haproxy[14389]: ", // rsyslog's RSYSLOG_FileFormat
		"Feb 06 12:14:14.655123 lb1 haproxy[14389]: ",           // journalctl -o short-precise, syslog-ng's frac-digits(6)
		"Feb  6 12:14:14 ", // rsyslog's "%timegenerated%%msg%" template (goaccess issue 824): the time, no TAG
		" ",                // rsyslog's "%msg%\n" template: msg keeps the space after the TAG
		"<134>1 2009-02-06T12:14:14.655+01:00 lb1 haproxy 14389 - -  ", // rsyslog's RSYSLOG_SyslogProtocol23Format: "%STRUCTURED-DATA% %msg%"
	} {
		var e Entry
		if r := x.Extract([]byte(head+msg), &e); r != "" {
			t.Errorf("%q: dropped (%s)", head, r)
			continue
		}
		if ip := string(e.Fields[x.Field("client_ip")]); ip != "10.0.1.2" {
			t.Errorf("%q: client_ip %q, want 10.0.1.2", head, ip)
		}
	}
	for _, head := range []string{ // not a whole header: left to the format, which refuses it
		`<134>1 2009-02-06T12:14:14.655123+01:00 - haproxy 14389 - [sd@1 a="x] `,
		"Feb  6 12:14:14. lb1 haproxy[14389]: ",
	} {
		var e Entry
		if r := x.Extract([]byte(head+msg), &e); r == "" {
			t.Errorf("%q: read, client_ip %q; want a drop", head, e.Fields[x.Field("client_ip")])
		}
	}
}

// TestAnS3BatchDeleteWithItsBareDashesIsAnEntry: S3 writes a batch
// delete's Request-URI, Referer and User-Agent as a bare -, without the
// quotes its other lines have; the line is an entry (status 204, its
// key), in the newest form and an older one, and the request's parts are
// "-".
func TestAnS3BatchDeleteWithItsBareDashesIsAnEntry(t *testing.T) {
	x := namedExtractor(t, "awss3")
	x.CutRequests()
	for form, line := range []string{
		`aaa test.bucket [13/Feb/2023:15:08:28 +0000] 1.1.1.1 arn:aws:iam::111:user/user AAA BATCH.DELETE.OBJECT test.js - 204 - - 1 - - - - - AAA SigV4 ECDHE-RSA-AES128-GCM-SHA256 AuthHeader s3.us-east-2.amazonaws.com TLSv1.2 - -`,
		`aaa test.bucket [13/Feb/2023:15:08:28 +0000] 1.1.1.1 arn:aws:iam::111:user/user AAA BATCH.DELETE.OBJECT test.js - 204 - - 1 - - - - - AAA SigV4 ECDHE-RSA-AES128-GCM-SHA256 AuthHeader s3.us-east-2.amazonaws.com TLSv1.2`,
	} {
		var e Entry
		if r := x.Extract([]byte(line), &e); r != "" {
			t.Fatalf("%q: dropped (%s)", line, r)
		}
		for n, v := range map[string]string{"status": "204", "key": "test.js", "request_uri": "-", "method": "-", "path": "-",
			"referer": "-", "user_agent": "-", "host_header": "s3.us-east-2.amazonaws.com", "tls_version": "TLSv1.2", "acl_required": "-"} {
			if got := fieldOr(x, &e, x.Field(n)); got != v {
				t.Errorf("form %d: %s = %q, want %q", form, n, got, v)
			}
		}
	}
}

// TestAQuotedS3LineReadsTheSameAfterABatchDelete: the batch-delete form's
// bare fields are the literal "-", not any word, so a quoted line whose
// quoted values have no space ("-", as a lifecycle action's may) is not
// read in that form, with its quotes, after a batch delete's line made it
// the form tried first.
func TestAQuotedS3LineReadsTheSameAfterABatchDelete(t *testing.T) {
	x := namedExtractor(t, "awss3")
	const bare = `aaa test.bucket [13/Feb/2023:15:08:28 +0000] 1.1.1.1 arn:aws:iam::111:user/user AAA BATCH.DELETE.OBJECT test.js - 204 - - 1 - - - - - AAA SigV4 ECDHE-RSA-AES128-GCM-SHA256 AuthHeader s3.us-east-2.amazonaws.com TLSv1.2 - -`
	const quoted = `aaa test.bucket [13/Feb/2023:15:08:29 +0000] 1.1.1.1 AmazonS3 AAB S3.EXPIRE.OBJECT test.js "-" 204 - - 1 - - "-" "-" - AAA SigV4 ECDHE-RSA-AES128-GCM-SHA256 AuthHeader s3.us-east-2.amazonaws.com TLSv1.2 - -`
	var e Entry
	for _, line := range []string{bare, quoted} {
		if r := x.Extract([]byte(line), &e); r != "" {
			t.Fatalf("%q: dropped (%s)", line, r)
		}
	}
	for _, n := range []string{"request_uri", "referer", "user_agent"} {
		if got := fieldOr(x, &e, x.Field(n)); got != "-" {
			t.Errorf("%s = %q, want -", n, got)
		}
	}
}
