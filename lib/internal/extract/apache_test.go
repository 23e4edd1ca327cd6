package extract

import (
	"testing"
	"time"

	"github.com/timbertally/timbertally/lib/internal/doc"
)

// newExtractor makes an extractor for a document's text.
func newExtractor(t testing.TB, text string) *Extractor {
	t.Helper()
	d, err := doc.Parse("test", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	x, err := New(d)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

const (
	combinedDoc = "format apache-combined\nwindow 10s\nmetric r count by=method,path,proto\n"
	commonDoc   = "format apache-common\nwindow 10s\nmetric r count by=method,path,proto\n"
)

// requestDoc reads no request part: the extractor does not cut the request.
const requestDoc = "format apache-combined\nwindow 10s\nmetric r count by=status\nmetric b sum=bytes by=host where=agent!=x\n"

// goodLine is a combined line; its time is 2000-10-10T20:55:36Z.
const goodLine = `127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326 "http://www.example.com/start.html" "Mozilla/4.08 [en] (Win98; I ;Nav)"`

var goodTime = time.Date(2000, 10, 10, 20, 55, 36, 0, time.UTC).UnixNano()

// fields returns an extracted entry's fields by name.
func fields(x *Extractor, e *Entry) map[string]string {
	m := map[string]string{}
	for i, n := range x.names {
		m[n] = string(e.Fields[i])
	}
	return m
}

func TestExtractApacheCombinedFields(t *testing.T) {
	x := newExtractor(t, combinedDoc)
	var e Entry
	if r := x.Extract([]byte(goodLine), &e); r != "" {
		t.Fatalf("Extract = %q", r)
	}
	want := map[string]string{
		"host": "127.0.0.1", "ident": "-", "user": "frank", "time": "10/Oct/2000:13:55:36 -0700",
		"method": "GET", "path": "/apache_pb.gif", "proto": "HTTP/1.0", "status": "200", "bytes": "2326",
		"referer": "http://www.example.com/start.html", "agent": "Mozilla/4.08 [en] (Win98; I ;Nav)",
	}
	if got := fields(x, &e); len(got) != len(want) || x.numFields() != 11 {
		t.Errorf("fields = %q", got)
	}
	for k, v := range want {
		if got := string(e.Fields[x.Field(k)]); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	if e.Time != goodTime {
		t.Errorf("time = %v, want %v", time.Unix(0, e.Time).UTC(), time.Unix(0, goodTime).UTC())
	}
	if x.Field("nope") != -1 {
		t.Error(`Field("nope") != -1`)
	}
}

func TestExtractApacheTrickyLines(t *testing.T) {
	const rest = ` "Mozilla"`
	for _, c := range []struct {
		name, line string
		want       map[string]string
	}{
		{"escaped quotes and backslashes stay as logged",
			`h - - [10/Oct/2000:13:55:36 -0700] "GET /a\"b\\ HTTP/1.1" 200 1 "r\\" "say \"hi\"\\"`,
			map[string]string{"path": `/a\"b\\`, "referer": `r\\`, "agent": `say \"hi\"\\`}},
		{"dash bytes",
			`h - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 304 - "-"` + rest,
			map[string]string{"bytes": "-", "status": "304", "referer": "-"}},
		{"bytes just below 2^53",
			`h - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 9007199254740991 "-"` + rest,
			map[string]string{"bytes": "9007199254740991"}},
		{"IPv6 host",
			`2001:db8::1 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 5 "-"` + rest,
			map[string]string{"host": "2001:db8::1"}},
		{"trailing CR stripped",
			goodLine + "\r",
			map[string]string{"agent": "Mozilla/4.08 [en] (Win98; I ;Nav)"}},
		{"invalid UTF-8 in path and agent",
			"h - - [10/Oct/2000:13:55:36 -0700] \"GET /\xff\xfe HTTP/1.1\" 200 5 \"-\" \"a\xc3\x28\"",
			map[string]string{"path": "/\xff\xfe", "agent": "a\xc3\x28"}},
		{"target with spaces",
			`h - - [10/Oct/2000:13:55:36 -0700] "GET /a b HTTP/1.1" 200 5 "-"` + rest,
			map[string]string{"method": "GET", "path": "/a b", "proto": "HTTP/1.1"}},
		{"request of -: Apache's absent request (a connection closed before one), its parts absent",
			`h - - [10/Oct/2000:13:55:36 -0700] "-" 408 0 "-" "-"`,
			map[string]string{"method": "-", "path": "-", "proto": "-", "status": "408", "bytes": "0"}},
		{"an HTTP/0.9 request has no proto",
			`h - - [10/Oct/2000:13:55:36 -0700] "GET /" 200 5 "-" "-"`,
			map[string]string{"method": "GET", "path": "/", "proto": "-"}},
		{"empty quoted fields",
			`h - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 5 "" ""`,
			map[string]string{"referer": "", "agent": ""}},
	} {
		t.Run(c.name, func(t *testing.T) {
			x := newExtractor(t, combinedDoc)
			var e Entry
			if r := x.Extract([]byte(c.line), &e); r != "" {
				t.Fatalf("Extract(%q) = %q", c.line, r)
			}
			for k, v := range c.want {
				if got := string(e.Fields[x.Field(k)]); got != v {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
		})
	}
}

func TestAnApacheRequestThatCannotBeCutCountsWithItsPartsDash(t *testing.T) {
	x := newExtractor(t, combinedDoc)
	for _, req := range []string{"", `\x16\x03\x01\x02\x00`, " / HTTP/1.1", "GET / ", "GET  HTTP/1.1", "-"} {
		line := `h - - [10/Oct/2000:13:55:36 -0700] "` + req + `" 400 226 "-" "-"`
		var e Entry
		if r := x.Extract([]byte(line), &e); r != "" {
			t.Fatalf("request %q: dropped (%s), want counted under its status", req, r)
		}
		for _, f := range []string{"method", "path", "proto"} {
			if got := string(e.Fields[x.Field(f)]); got != "-" {
				t.Errorf("request %q: %s = %q, want -", req, f, got)
			}
		}
		if got := string(e.Fields[x.Field("bytes")]); got != "226" {
			t.Errorf("request %q: bytes = %q, want 226", req, got)
		}
	}
}

func TestExtractApacheDropsWithAReason(t *testing.T) {
	const head = `h - - [10/Oct/2000:13:55:36 -0700] `
	for _, c := range []struct{ name, line, reason string }{
		{"empty", "", ReasonFormat},
		{"garbage", "hello world", ReasonFormat},
		{"truncated in time", `h - - [10/Oct/2000:13:5`, ReasonFormat},
		{"truncated in request", head + `"GET / HT`, ReasonFormat},
		{"truncated after request", head + `"GET / HTTP/1.1"`, ReasonFormat},
		{"truncated at status", head + `"GET / HTTP/1.1" 200`, ReasonFormat},
		{"truncated at bytes", head + `"GET / HTTP/1.1" 200 5`, ReasonFormat},
		{"truncated in referer", head + `"GET / HTTP/1.1" 200 5 "http://x`, ReasonFormat},
		{"truncated in agent", head + `"GET / HTTP/1.1" 200 5 "-" "Mozil`, ReasonFormat},
		{"escaped closing quote", head + `"GET / HTTP/1.1" 200 5 "-" "a\"`, ReasonFormat},
		{"text after agent", head + `"GET / HTTP/1.1" 200 5 "-" "a" x`, ReasonFormat},
		{"two trailing CRs", head + `"GET / HTTP/1.1" 200 5 "-" "a"` + "\r\r", ReasonFormat},
		{"double space", `h  - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 5 "-" "a"`, ReasonFormat},
		{"status of two digits", head + `"GET / HTTP/1.1" 20 5 "-" "a"`, ReasonStatus},
		{"status not digits", head + `"GET / HTTP/1.1" 2x0 5 "-" "a"`, ReasonStatus},
		{"bytes not digits", head + `"GET / HTTP/1.1" 200 5k "-" "a"`, ReasonBytes},
		{"bytes empty", head + `"GET / HTTP/1.1" 200  "-" "a"`, ReasonBytes},
		{"bytes not below 2^53", head + `"GET / HTTP/1.1" 200 9007199254740992 "-" "a"`, ReasonBytes},
		{"bytes of twenty digits", head + `"GET / HTTP/1.1" 200 99999999999999999999 "-" "a"`, ReasonBytes},
		{"31 February", `h - - [31/Feb/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 5 "-" "a"`, ReasonTime},
		{"hour 24", `h - - [10/Oct/2000:24:00:00 -0700] "GET / HTTP/1.1" 200 5 "-" "a"`, ReasonTime},
		{"zone minutes 60", `h - - [10/Oct/2000:13:55:36 +0960] "GET / HTTP/1.1" 200 5 "-" "a"`, ReasonTime},
		{"time in brackets but not CLF", `h - - [yesterday] "GET / HTTP/1.1" 200 5 "-" "a"`, ReasonTime},
	} {
		t.Run(c.name, func(t *testing.T) {
			x := newExtractor(t, combinedDoc)
			var e Entry
			if r := x.Extract([]byte(c.line), &e); r != c.reason {
				t.Errorf("Extract(%q) = %q, want %q", c.line, r, c.reason)
			}
		})
	}
}

func TestExtractApacheCommonRefusesCombinedTail(t *testing.T) {
	x := newExtractor(t, commonDoc)
	var e Entry
	common := `::1 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 -`
	if r := x.Extract([]byte(common+"\r"), &e); r != "" || x.numFields() != 9 || string(e.Fields[x.Field("bytes")]) != "-" {
		t.Errorf("common line: %q, %q", r, fields(x, &e))
	}
	if r := x.Extract([]byte(goodLine), &e); r != ReasonFormat {
		t.Errorf("combined line in common format: %q, want %q", r, ReasonFormat)
	}
}

func TestExtractReusesEntryFields(t *testing.T) {
	x := newExtractor(t, combinedDoc)
	e := Entry{Fields: make([][]byte, 2, 32)}
	if r := x.Extract([]byte(goodLine), &e); r != "" || len(e.Fields) != x.numFields() || cap(e.Fields) != 32 {
		t.Errorf("Extract = %q; fields len %d cap %d", r, len(e.Fields), cap(e.Fields))
	}
}

func TestExtractApacheAllocatesNothing(t *testing.T) {
	x := newExtractor(t, combinedDoc)
	var e Entry
	line := []byte(goodLine)
	x.Extract(line, &e)
	if n := testing.AllocsPerRun(100, func() { x.Extract(line, &e) }); n != 0 {
		t.Errorf("Extract allocates %v times per entry", n)
	}
}

func BenchmarkExtractApacheCombined(b *testing.B) {
	text, _ := doc.BuiltinText("apache-combined")
	x := newExtractor(b, string(text))
	// ~200 bytes, like a browser's request with a referer.
	line := []byte(`203.0.113.195 - - [10/Oct/2026:13:55:36 +0000] "GET /static/js/app.min.js?v=20261010 HTTP/1.1" 200 48213 "https://www.example.com/products/index.html" "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"`)
	var e Entry
	b.SetBytes(int64(len(line) + 1))
	b.ReportAllocs()
	for b.Loop() {
		if x.Extract(line, &e) != "" {
			b.Fatal("not extracted")
		}
	}
}

// A document that reads no part of the request (the built-in ones) has
// them "-": cutting the request never refuses a line, so skipping it drops
// exactly the lines the cut would, for the same reasons.
func TestARequestNoMetricReadsIsNotCutAndDropsTheSameLines(t *testing.T) {
	cut, whole := newExtractor(t, combinedDoc), newExtractor(t, requestDoc)
	if !cut.request || whole.request {
		t.Fatalf("request cut: %v for a document reading method/path/proto, %v for one reading none", cut.request, whole.request)
	}
	for _, line := range []string{goodLine,
		`h - - [10/Oct/2000:13:55:36 -0700] "-" 408 0 "-" "-"`,
		`h - - [10/Oct/2000:13:55:36 -0700] "GET /" 200 1 "-" "-"`,
		`h - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 20x 1 "-" "-"`,
		`h - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1 200 1 "-" "-"`,
		`h - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 1 "-" "-" trailing`,
	} {
		var a, b Entry
		ra, rb := cut.Extract([]byte(line), &a), whole.Extract([]byte(line), &b)
		if ra != rb {
			t.Errorf("%s: reason %q when the request is cut, %q when not", line, ra, rb)
		}
		if rb == "" {
			for _, f := range []int{fMethod, fPath, fProto} {
				if string(b.Fields[f]) != "-" {
					t.Errorf("%s: %s = %q uncut, want -", line, whole.names[f], b.Fields[f])
				}
			}
		}
	}
}
