package extract

import (
	"bytes"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/timbertally/timbertally/lib/internal/doc"
	"github.com/timbertally/timbertally/lib/internal/synth"
)

const (
	apacheCombinedLF = `format apache "%h %l %u %t \"%r\" %>s %b \"%{Referer}i\" \"%{User-Agent}i\""` + "\nwindow 10s\nmetric r count by=status\nmetric b sum=bytes by=status\n"
	apacheDurationLF = `format apache "%h %l %u %t \"%r\" %>s %b \"%{Referer}i\" \"%{User-Agent}i\" %D %v \"%{X-Forwarded-For}i\""` + "\nwindow 10s\nmetric r count by=status,vhost\nmetric d sum=duration_us\n"
	nginxLF          = `format nginx '$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" $request_time $upstream_response_time'` + "\nwindow 10s\nmetric r count by=method\nmetric t sum=upstream_response_time\n"
)

// A LogFormat of Apache's combined layout cuts every line as the
// hand-written built-in does: same fields, same drops, same reasons.
func TestTheCombinedLogFormatCutsLinesAsTheBuiltinDoes(t *testing.T) {
	lf := newExtractor(t, strings.Replace(apacheCombinedLF, "by=status\n", "by=method,path,proto\n", 1))
	builtin := newExtractor(t, combinedDoc)
	lines := []string{goodLine,
		`::1 - - [29/Feb/2000:23:59:59 +1400] "GET /a\"b HTTP/1.1" 200 - "\\" "x"` + "\r",
		`h - - [10/Oct/2000:13:55:36 -0700] "-" 400 0 "-" "-"`,
		`h - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 2000 5 "-" "-"`,
		`h - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 x5 "-" "-"`,
		`h - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 5 "-" "-" extra`,
		`h - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 5 "-"`,
		`h - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1`,
		`h - - [32/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 5 "-" "-"`,
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 { // cut lines at random places, as a torn write would
		l := goodLine
		lines = append(lines, l[:r.IntN(len(l))])
	}
	for _, line := range lines {
		var a, b Entry
		ra, rb := lf.Extract([]byte(line), &a), builtin.Extract([]byte(line), &b)
		if ra != rb {
			t.Fatalf("%q: LogFormat %q, built-in %q", line, ra, rb)
		}
		if ra != "" {
			continue
		}
		for i, name := range builtin.names {
			if got, want := a.Fields[lf.Field(name)], b.Fields[i]; !bytes.Equal(got, want) {
				t.Errorf("%q: %s = %q, built-in %q", line, name, got, want)
			}
		}
		if a.Time != b.Time {
			t.Errorf("%q: time %d, built-in %d", line, a.Time, b.Time)
		}
	}
}

func TestApacheLogFormatNamesEachDirectivesField(t *testing.T) {
	x := newExtractor(t, apacheDurationLF)
	line := `2001:db8::1 - - [10/Oct/2026:13:55:36 +0530] "POST /api?q=\"x\" HTTP/2.0" 201 - "-" "curl/8" 1234567 www.example.com "-"`
	var e Entry
	if r := x.Extract([]byte(line), &e); r != "" {
		t.Fatalf("Extract = %q", r)
	}
	want := map[string]string{"host": "2001:db8::1", "status": "201",
		"bytes": "-", "agent": "curl/8", "duration_us": "1234567", "vhost": "www.example.com", "x_forwarded_for": "-"}
	for k, v := range want {
		if i := x.Field(k); i < 0 || string(e.Fields[i]) != v {
			t.Errorf("%s = %q, want %q (fields %v)", k, e.Fields[max(i, 0)], v, x.names)
		}
	}
	if d, ok := e.Number(x.Field("duration_us")); !ok || d != 1234567 {
		t.Errorf("duration_us = %v, %v", d, ok)
	}
	if want := time.Date(2026, 10, 10, 8, 25, 36, 0, time.UTC).UnixNano(); e.Time != want {
		t.Errorf("time = %v", time.Unix(0, e.Time).UTC())
	}
	for _, bad := range []string{
		`h - - [10/Oct/2026:13:55:36 +0000] "GET / HTTP/1.1" 200 1 "-" "-" 12x www "-"`,
		`h - - [10/Oct/2026:13:55:36 +0000] "GET / HTTP/1.1" 200 1 "-" "-" 12 www`,
	} {
		if r := x.Extract([]byte(bad), &e); r == "" {
			t.Errorf("Extract(%q) took a bad line", bad)
		}
	}
}

func TestApacheTimeFormatsAndUnits(t *testing.T) {
	for _, c := range []struct{ format, line string }{
		{`%{%Y-%m-%d %H:%M:%S %z}t %>s`, `2026-10-10 15:55:36 +0200 200`},
		{`%{sec}t %>s`, `1791640536 200`},
		{`%{msec}t %>s`, `1791640536000 200`},
		{`%{usec}t %>s`, `1791640536000000 200`},
		// Apache's unix times are whole units, so the '.' after one is the
		// literal, not a fraction of it (Apache's own sub-second stamp).
		{`%{sec}t.%{msec_frac}t %>s`, `1791640536.000 200`},
		{`%{msec}t.%{usec_frac}t %>s`, `1791640536000.000000 200`},
		{`[%{%d/%b/%Y:%H:%M:%S %z}t] %s`, `[10/Oct/2026:13:55:36 +0000] 200`},
	} {
		x := newExtractor(t, "format apache \""+c.format+"\"\nwindow 1s\nmetric r count by=status\n")
		var e Entry
		if r := x.Extract([]byte(c.line), &e); r != "" {
			t.Errorf("%s: Extract(%q) = %q", c.format, c.line, r)
			continue
		}
		if want := time.Date(2026, 10, 10, 13, 55, 36, 0, time.UTC).UnixNano(); e.Time != want {
			t.Errorf("%s: time = %v", c.format, time.Unix(0, e.Time).UTC())
		}
	}
}

func TestNginxLogFormatReadsUpstreamListsAndEscapes(t *testing.T) {
	x := newExtractor(t, nginxLF)
	for _, c := range []struct {
		line     string
		upstream float64
		isNum    bool
		agent    string
	}{
		{`10.0.0.1 - - [10/Oct/2026:13:55:36 -0700] "GET / HTTP/1.1" 200 612 "-" "a\x22b\x5C" 0.015 0.012`, 0.012, true, `a\x22b\x5C`},
		{`10.0.0.1 - - [10/Oct/2026:13:55:36 -0700] "GET / HTTP/1.1" 502 0 "-" "-" 0.015 0.012, 0.003`, 0.015, true, "-"},
		{`10.0.0.1 - - [10/Oct/2026:13:55:36 -0700] "GET / HTTP/1.1" 502 0 "-" "-" 0.015 0.012, - : 0.100`, 0.112, true, "-"},
		{`10.0.0.1 - - [10/Oct/2026:13:55:36 -0700] "GET / HTTP/1.1" 200 0 "-" "-" 0.000 -`, 0, false, "-"},
	} {
		var e Entry
		if r := x.Extract([]byte(c.line), &e); r != "" {
			t.Errorf("Extract(%q) = %q", c.line, r)
			continue
		}
		v, ok := e.Number(x.Field("upstream_response_time"))
		if ok != c.isNum || (v-c.upstream) > 1e-9 || (c.upstream-v) > 1e-9 {
			t.Errorf("%q: upstream = %v, %v; want %v, %v", c.line, v, ok, c.upstream, c.isNum)
		}
		if got := string(e.Fields[x.Field("http_user_agent")]); got != c.agent {
			t.Errorf("agent = %q, want %q", got, c.agent)
		}
	}
	var e Entry
	if r := x.Extract([]byte(`10.0.0.1 - - [10/Oct/2026:13:55:36 -0700] "GET / HTTP/1.1" 200 612 "-" "-" 0.015 0.01x`), &e); r != ReasonNumber {
		t.Errorf("an upstream time that is no number: %q, want %q", r, ReasonNumber)
	}
}

// nginx writes ", " between an upstream list's values and " : " across
// a redirect, nothing else: a list at the line's end (or in quotes) that
// holds other spaces or separators is a field the format does not have
// (a variable logged after it), not more values to add up.
func TestAnNginxUpstreamListIsCutOnlyAtNginxsOwnSeparators(t *testing.T) {
	x := newExtractor(t, nginxLF)
	const head = `10.0.0.1 - - [10/Oct/2026:13:55:36 -0700] "GET / HTTP/1.1" 200 612 "-" "-" 0.015 `
	for _, c := range []struct {
		list string
		sum  float64
	}{
		{"0.012", 0.012}, {"0.012, 0.003", 0.015}, {"0.012, - : 0.100", 0.112}, {"- : 0.1, 0.2", 0.3},
	} {
		var e Entry
		if r := x.Extract([]byte(head+c.list), &e); r != "" {
			t.Errorf("%q: %q", c.list, r)
			continue
		}
		if v, ok := e.Number(x.Field("upstream_response_time")); !ok || v-c.sum > 1e-9 || c.sum-v > 1e-9 {
			t.Errorf("%q = %v, %v; want %v", c.list, v, ok, c.sum)
		}
	}
	for _, list := range []string{"0.040 1", "0.0 03", "0.012, 0.003 7", "0.1,0.2", "0.1 ,0.2", "0.1,  0.2", "0.1, :0.2",
		"0.1 :0.2", "0.1: 0.2", "0.1 : : 0.2", "0.1, ", "0.1 : ", ", 0.1", "0.1,", "0.1 "} {
		var e Entry
		if r := x.Extract([]byte(head+list), &e); r != ReasonNumber {
			v, _ := e.Number(x.Field("upstream_response_time"))
			t.Errorf("upstream list %q: %q (number %v), want %q", list, r, v, ReasonNumber)
		}
	}
}

// nginx's $upstream_addr and the other upstream variables of text are
// lists cut as the lists of numbers are, whole, and never checked as
// numbers: a proxied line is read, not dropped.
func TestAnNginxUpstreamAddrListIsTextCutWhole(t *testing.T) {
	x := newExtractor(t, `format nginx '$remote_addr [$time_local] $status $upstream_addr $upstream_response_time $upstream_cache_status'
window 10s
metric requests count by=upstream_addr
metric up sum=upstream_response_time by=upstream_cache_status
`)
	const head = `10.0.0.9 [10/Oct/2026:13:55:36 +0000] 200 `
	for _, c := range []struct{ rest, addr, cache string }{
		{"10.0.0.1:80, 10.0.0.2:80 : unix:/tmp/s 0.010, 0.020 : 0.005 HIT", "10.0.0.1:80, 10.0.0.2:80 : unix:/tmp/s", "HIT"},
		{"10.0.0.1:80 0.7 MISS", "10.0.0.1:80", "MISS"},
		{"- - -", "-", "-"},
	} {
		var e Entry
		if r := x.Extract([]byte(head+c.rest), &e); r != "" {
			t.Errorf("%q: !drop reason=%s", c.rest, r)
			continue
		}
		if a, k := e.Fields[x.Field("upstream_addr")], e.Fields[x.Field("upstream_cache_status")]; string(a) != c.addr || string(k) != c.cache {
			t.Errorf("%q: upstream_addr %q, upstream_cache_status %q; want %q, %q", c.rest, a, k, c.addr, c.cache)
		}
	}
}

// TestAnAddressBeforeAPortEndsAtTheLastColon: HAProxy and Apache write an
// IPv6 address before ":port" without brackets, so the address is all
// up to the last ':' before the port's end (doc.Part.Addr), wherever the
// pair stands and whatever ends the port.
func TestAnAddressBeforeAPortEndsAtTheLastColon(t *testing.T) {
	for _, c := range []struct {
		format, line string
		want         map[string]string
	}{
		{`format haproxy '%ci:%cp [%tr] %fi:%fp/%ST'`, `2001:db8::7:51234 [05/Dec/2026:02:00:01.004] fe80::1%eth0:443/200`,
			map[string]string{"client_ip": "2001:db8::7", "client_port": "51234", "frontend_ip": "fe80::1%eth0", "frontend_port": "443", "status_code": "200"}},
		{`format haproxy '[%tr] %ST %si:%sp'`, `[05/Dec/2026:02:00:01.004] 503 ::1:8080`,
			map[string]string{"server_ip": "::1", "server_port": "8080"}},
		{`format haproxy '%ci:%cp [%tr] %ST'`, `192.0.2.4:5123 [05/Dec/2026:02:00:01.004] 200`,
			map[string]string{"client_ip": "192.0.2.4", "client_port": "5123"}},
		{`format haproxy '%ci:%cp:%fp [%tr] %ST'`, `192.0.2.4:5123:443 [05/Dec/2026:02:00:01.004] 200`, // a ':' after the port: the first ':' ends the address
			map[string]string{"client_ip": "192.0.2.4", "client_port": "5123", "frontend_port": "443"}},
		{`format apache "%a:%{remote}p %t %>s"`, `::ffff:192.0.2.4:5123 [10/Oct/2026:13:55:36 +0000] 200`,
			map[string]string{"client_ip": "::ffff:192.0.2.4", "remote_port": "5123"}},
		{`format nginx '$remote_addr:$remote_port [$time_local] $status $server_addr:$server_port'`, `2001:db8::1:40001 [10/Oct/2026:13:55:36 +0000] 200 ::1:-`,
			map[string]string{"remote_addr": "2001:db8::1", "remote_port": "40001", "server_addr": "::1", "server_port": "-"}},
		{`format envoy '[%START_TIME%] %DOWNSTREAM_REMOTE_ADDRESS_WITHOUT_PORT%:%DOWNSTREAM_REMOTE_PORT% %RESPONSE_CODE%'`, `[2016-04-15T20:17:00.310Z] 2001:db8::9:443 200`,
			map[string]string{"downstream_remote_address_without_port": "2001:db8::9", "downstream_remote_port": "443"}},
	} {
		x := newExtractor(t, c.format+"\nwindow 10s\nmetric requests count\n")
		var e Entry
		if r := x.Extract([]byte(c.line), &e); r != "" {
			t.Errorf("%s: %q: !drop reason=%s", c.format, c.line, r)
			continue
		}
		for name, want := range c.want {
			if got := e.Fields[x.Field(name)]; string(got) != want {
				t.Errorf("%s: %s is %q, want %q", c.format, name, got, want)
			}
		}
	}
}

func TestEveryCompiledFormatExtractsWithoutAllocating(t *testing.T) {
	for _, c := range []struct{ doc, line string }{
		{apacheCombinedLF, goodLine},
		{apacheDurationLF, `h - - [10/Oct/2026:13:55:36 +0000] "GET / HTTP/1.1" 200 1 "-" "-" 12 www "1.2.3.4"`},
		{nginxLF, `10.0.0.1 - - [10/Oct/2026:13:55:36 -0700] "GET / HTTP/1.1" 200 612 "-" "-" 0.015 0.012, 0.003`},
		{jsonDoc, jsonLine},
		{logfmtDoc, logfmtLine},
	} {
		x := newExtractor(t, c.doc)
		var e Entry
		line := []byte(c.line)
		if r := x.Extract(line, &e); r != "" {
			t.Fatalf("%s: Extract = %q", c.doc, r)
		}
		if n := testing.AllocsPerRun(100, func() {
			x.Extract(line, &e)
			for i := range e.Fields {
				e.Number(i)
			}
		}); n != 0 {
			t.Errorf("%s: Extract allocates %v times per entry", c.doc, n)
		}
	}
}

func TestLogFormatErrorsSayWhatToWrite(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{`format apache "%h%l"`, "fields host and ident have nothing between them"},
		{`format apache "%h %Z"`, "%Z is not an Apache LogFormat directive"},
		{`format apache "%h %{Referer}"`, "the format string ends inside a directive"},
		{`format apache "%h %i"`, "wants a {NAME}"},
		{`format apache "%h %>s %s"`, "two directives give field status"},
		{`format apache "%h %>s`, "no closing"},
		{`format apache %h`, "must be quoted"},
		{`format apache "%h"`, "has no time"},
		{`format nginx '$status ${x'`, "no closing }"},
		{`format nginx escape=yaml '$status'`, "escape=yaml is not nginx's"},
		{`format apache "%{%Q}t %s"`, "%Q, which has no Go layout element"},
	} {
		_, err := doc.Parse("t", []byte(c.line+"\nwindow 1s\nmetric r count\n"))
		if err == nil || !bytes.Contains([]byte(err.Error()), []byte(c.want)) {
			t.Errorf("%s: error %v, want one containing %q", c.line, err, c.want)
		}
	}
}

func BenchmarkExtractLogFormats(b *testing.B) {
	const agent = `"https://www.example.com/products/index.html" "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"`
	for _, c := range []struct{ name, doc, line string }{
		{"builtin", "format apache-combined\nwindow 10s\nmetric r count by=status\nmetric b sum=bytes by=status\n",
			`203.0.113.195 - - [10/Oct/2026:13:55:36 +0000] "GET /static/js/app.min.js?v=20261010 HTTP/1.1" 200 48213 ` + agent},
		{"apache-combined", apacheCombinedLF,
			`203.0.113.195 - - [10/Oct/2026:13:55:36 +0000] "GET /static/js/app.min.js?v=20261010 HTTP/1.1" 200 48213 ` + agent},
		{"apache-duration", apacheDurationLF,
			`203.0.113.195 - - [10/Oct/2026:13:55:36 +0000] "GET /static/js/app.min.js?v=20261010 HTTP/1.1" 200 48213 ` + agent + ` 1234 www.example.com "-"`},
		{"nginx", nginxLF,
			`203.0.113.195 - - [10/Oct/2026:13:55:36 +0000] "GET /static/js/app.min.js?v=20261010 HTTP/1.1" 200 48213 ` + agent + ` 0.012 0.011`},
		{"json", jsonDoc, jsonLine},
		{"logfmt", logfmtDoc, logfmtLine},
	} {
		b.Run(c.name, func(b *testing.B) {
			x := newExtractor(b, c.doc)
			line := []byte(c.line)
			var e Entry
			b.SetBytes(int64(len(line) + 1))
			b.ReportAllocs()
			for b.Loop() {
				if x.Extract(line, &e) != "" {
					b.Fatal("not extracted")
				}
			}
		})
	}
}

// generic returns an extractor for text whose LogFormat is cut by the
// loop over its parts only, not by the built-in cutter for its start.
func generic(t testing.TB, text string) *Extractor {
	x := newExtractor(t, text)
	if x.lf.fast == nil {
		t.Fatalf("%s: no fast layout", text)
	}
	x.lf.fast = nil
	return x
}

// sameCut fails when two extractors cut line differently: a fast cutter
// (a, the built-in's for a format's start, a straight-line cut) and the
// general one it stands in for (b, the loop over the parts).
func sameCut(t testing.TB, a, b *Extractor, line []byte) {
	var ea, eb Entry
	ra, rb := a.Extract(line, &ea), b.Extract(line, &eb)
	if ra != rb {
		t.Fatalf("%q: fast cutter %q, general one (the loop) %q", line, ra, rb)
	}
	if ra != "" {
		return
	}
	for i := range ea.Fields {
		va, oka := ea.Number(i)
		vb, okb := eb.Number(i)
		if !bytes.Equal(ea.Fields[i], eb.Fields[i]) || va != vb || oka != okb || ea.Time != eb.Time {
			t.Fatalf("%q: %s %q (%v) by the fast cutter, %q (%v) by the general one (the loop)", line, a.names[i], ea.Fields[i], va, eb.Fields[i], vb)
		}
	}
}

// The formats that start with the combined or common layout are cut by the
// built-in cutter for that start: it cuts every line as the loop over the
// parts does.
func TestTheBuiltinCutterForAFormatsStartCutsAsTheLoopDoes(t *testing.T) {
	common := "format apache common\nwindow 1s\nmetric r count by=method\n"
	commonMore := "format apache \"%h %l %u %t \\\"%r\\\" %>s %b %D\"\nwindow 1s\nmetric r count by=method\n"
	nginxDoc := strings.Replace(nginxLF, "by=method", "by=method,path,proto", 1)
	r := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct {
		doc   string
		lines []string
	}{
		{apacheDurationLF, []string{`2001:db8::1 - - [10/Oct/2026:13:55:36 +0530] "POST /api?q=\"x\" HTTP/2.0" 201 - "-" "curl/8" 1234567 www.example.com "-"`}},
		{apacheCombinedLF, []string{goodLine, goodLine + " ", goodLine + `"`}},
		{common, []string{`h - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 5`, `h - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 5 `}},
		{commonMore, []string{`h - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 5 17`, `h - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 5`}},
		{nginxDoc, []string{`10.0.0.1 - - [10/Oct/2026:13:55:36 -0700] "GET / HTTP/1.1" 502 0 "-" "-" 0.015 0.012, - : 0.100`,
			`10.0.0.1 x - [10/Oct/2026:13:55:36 -0700] "GET / HTTP/1.1" 502 0 "-" "-" 0.015 0.012`}},
	} {
		fast, loop := newExtractor(t, c.doc), generic(t, c.doc)
		for _, l := range c.lines {
			sameCut(t, fast, loop, []byte(l))
			for range 300 {
				sameCut(t, fast, loop, []byte(l[:r.IntN(len(l)+1)]))
			}
		}
	}
}

// BenchmarkExtractGenerated extracts 4096 generated lines of each format
// (lib/internal/synth's, as bench/run.sh times them) with bench/run.sh's documents,
// the built-in first: their ns/op, taken in one invocation, are the ratios
// bench/README.md reports beside the CPU seconds of tally --try.
func BenchmarkExtractGenerated(b *testing.B) {
	const metrics = "window 10s grace=60s\nmetric requests count by=status\n"
	for _, c := range []struct{ name, format, doc string }{
		{"builtin", synth.FormatCombined, "format apache-combined\n" + metrics + "metric bytes sum=bytes by=status\n"},
		{"apache-combined", synth.FormatCombined, "format apache combined\n" + metrics + "metric bytes sum=bytes by=status\n"},
		{"apache-timed", synth.FormatApacheTimed, "format apache \"" + synth.ApacheTimedLogFormat + "\"\n" + metrics + "metric bytes sum=bytes by=status\n"},
		{"nginx", synth.FormatNginx, "format nginx '" + synth.NginxLogFormat + "'\n" + metrics + "metric bytes sum=body_bytes_sent by=status\n"},
		{"json", synth.FormatJSON, "format json\ntime ts layout=unix\n" + metrics + "metric bytes sum=size by=status\n"},
		{"logfmt", synth.FormatLogfmt, "format logfmt\ntime ts layout=rfc3339\n" + metrics + "metric bytes sum=size by=status\n"},
	} {
		for _, real := range []bool{false, true} {
			name := c.name
			if real {
				name += "/realistic"
			}
			b.Run(name, func(b *testing.B) { benchGenerated(b, c.format, c.doc, real) })
		}
	}
}

// benchGenerated extracts 4096 lines of format (realistic: the world's
// hard cases, tgsynth --realistic) with doc.
func benchGenerated(b *testing.B, format, doc string, real bool) {
	g, err := synth.New(synth.Config{Seed: 1, N: 4096, Format: format, Realistic: real})
	if err != nil {
		b.Fatal(err)
	}
	var lines [][]byte
	size := 0
	for range 4096 {
		l := g.Next(nil)
		lines = append(lines, l[:len(l)-1])
		size += len(l)
	}
	extractLoop(b, newExtractor(b, doc), lines, size)
}

// FuzzIndexByte checks the word-at-a-time indexByte against
// bytes.IndexByte.
func FuzzIndexByte(f *testing.F) {
	f.Add([]byte("www.example.com \"-\""), byte(' '))
	f.Add([]byte("0123456789abcdef0123456789abcdef0123456789\"x"), byte('"'))
	f.Add([]byte("\x80\xa2\"\x00"), byte('"'))
	f.Fuzz(func(t *testing.T, b []byte, c byte) {
		if got, want := indexByte(b, c), bytes.IndexByte(b, c); got != want {
			t.Fatalf("indexByte(%q, %q) = %d, bytes.IndexByte %d", b, c, got, want)
		}
	})
}

// FuzzDecimalTo checks decimalTo, which reads a short integer from one
// word, against strconv: a field of digits, optionally a '.' and more
// digits, at most exactDigits of them, ending at the end byte, is read as
// ParseFloat reads it; anything else is 0. (An end byte that is a digit
// or '.' is read by the loop as before; the caller's check judges it.)
func FuzzDecimalTo(f *testing.F) {
	f.Add([]byte("3852 static.example.com"), byte(' '))
	f.Add([]byte("1234567 x"), byte(' '))
	f.Add([]byte("12345678 xxxxxxxx"), byte(' '))
	f.Add([]byte("0.024 0.016"), byte(' '))
	f.Add([]byte("12\"345678"), byte('"'))
	f.Fuzz(func(t *testing.T, b []byte, end byte) {
		if isDigit(end) || end == '.' {
			return
		}
		n, v := decimalTo(b, end)
		want, wantV := 0, 0.0
		if k := bytes.IndexByte(b, end); k > 0 {
			whole, frac, dot := strings.Cut(string(b[:k]), ".")
			if isDigits([]byte(whole)) && (!dot || isDigits([]byte(frac))) && len(whole)+len(frac) <= exactDigits {
				want = k
				wantV, _ = strconv.ParseFloat(string(b[:k]), 64)
			}
		}
		if n != want || v != wantV {
			t.Fatalf("decimalTo(%q, %q) = %d, %v; want %d, %v", b, end, n, v, want, wantV)
		}
	})
}

// On tgsynth's realistic lines (escapes, quotes, raw spaces and non-ASCII
// in requests, upstream lists, long agents) the built-in cutter for a
// format's start cuts as the loop over its parts does, every line the
// generator did not spoil is extracted, and its status, size and last
// field are what an independent regular expression reads.
func TestRealisticLinesAreCutAsTheLoopAndAnIndependentReadingCutThem(t *testing.T) {
	quoted := `"((?:[^"\\]|\\.)*)"`
	for _, c := range []struct {
		format, doc    string
		re             *regexp.Regexp
		status, size   string
		last, lastName string
	}{
		{synth.FormatNginx, nginxLF, regexp.MustCompile(`^\S+ - \S+ \[[^\]]+\] ` + quoted + ` (\d{3}) (\d+) ` + quoted + ` ` + quoted + ` \S+ (.+?)\r?$`),
			"status", "body_bytes_sent", "", "upstream_response_time"},
		{synth.FormatApacheTimed, apacheDurationLF, regexp.MustCompile(`^\S+ \S+ \S+ \[[^\]]+\] ` + quoted + ` (\d{3}) (\d+|-) ` + quoted + ` ` + quoted + ` \d+ \S+ "([^"]*)"\r?$`),
			"status", "bytes", "", "x_forwarded_for"},
	} {
		fast, loop := newExtractor(t, c.doc), generic(t, c.doc)
		g, err := synth.New(synth.Config{Seed: 11, Format: c.format, Realistic: true, Malformed: 0.01})
		if err != nil {
			t.Fatal(err)
		}
		for range 20000 {
			before := g.Malformed()
			l := g.Next(nil)
			line := l[:len(l)-1]
			sameCut(t, fast, loop, line)
			if g.Malformed() > before {
				continue
			}
			var e Entry
			if r := fast.Extract(line, &e); r != "" {
				t.Fatalf("%s: %q: %q", c.format, line, r)
			}
			m := c.re.FindSubmatch(bytes.TrimSuffix(line, []byte("\r")))
			if m == nil {
				t.Fatalf("%s: the independent reading does not match %q", c.format, line)
			}
			if got := e.Fields[fast.Field(c.status)]; !bytes.Equal(got, m[2]) {
				t.Fatalf("%s: %q: status %q, the independent reading %q", c.format, line, got, m[2])
			}
			if got := e.Fields[fast.Field(c.size)]; !bytes.Equal(got, m[3]) {
				t.Fatalf("%s: %q: size %q, the independent reading %q", c.format, line, got, m[3])
			}
			if got := e.Fields[fast.Field(c.lastName)]; !bytes.Equal(got, m[6]) {
				t.Fatalf("%s: %q: %s %q, the independent reading %q", c.format, line, c.lastName, got, m[6])
			}
		}
	}
}
