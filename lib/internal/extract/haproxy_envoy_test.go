package extract

import (
	"testing"

	"github.com/timbertally/timbertally/lib/internal/doc"
)

// TestTheFastCuttersRecordOnlyTheNumbersADocumentReads extracts a line of
// each format with a straight-line cutter, with a document that sums one
// numeric field: that field's number is recorded as it is checked, another
// numeric field's is not (Entry.Number works it out when asked), and both
// are the fields' Number.
func TestTheFastCuttersRecordOnlyTheNumbersADocumentReads(t *testing.T) {
	httplog := `Feb  6 12:14:14 localhost haproxy[14389]: 10.0.1.2:33317 [06/Feb/2009:12:14:14.655] http-in static/srv1 10/0/-1/69/109 200 2750 - - ---- 1/1/1/1/0 0/7 {1wt.eu} {} "GET /index.html HTTP/1.1"`
	tcplog := `10.0.1.3:33314 [06/Feb/2009:12:12:52.001] fnt bck/srv1 -1/-1/1 0 SC 1/1/0/0/0 0/12`
	envoy := `[2016-04-15T20:17:00.310Z] "POST /api/v1/locations HTTP/2" 204 - 154 0 226 100 "10.0.35.28" "nsq2http" "cc21d9b0" "locations" "tcp://10.0.2.1:80"`
	for _, c := range []struct {
		format, line, sum, read, unread string
		v                               float64
	}{
		{"haproxy httplog", httplog, "Tc", "Tc", "Tr", -1},
		{"haproxy httplog", httplog, "duration", "Ta", "TR", 109}, // the common name's number is Ta's, in seconds
		{"haproxy httplog", httplog, "backend_queue", "backend_queue", "srv_queue", 7},
		{"haproxy httplog", httplog, "client_port", "client_port", "bytes_read", 33317},
		{"haproxy tcplog", tcplog, "Tw", "Tw", "Tc", -1},
		{"haproxy tcplog", tcplog, "backend_queue", "backend_queue", "actconn", 12},
		{"envoy", envoy, "bytes_received", "bytes_received", "bytes_sent", 154},
	} {
		d, err := doc.Parse("t", []byte("format "+c.format+"\nwindow 1s\nmetric s sum="+c.sum+"\n"))
		if err != nil {
			t.Fatal(err)
		}
		x, _ := New(d)
		var e Entry
		if r := x.Extract([]byte(c.line), &e); r != "" {
			t.Fatalf("%s: %s", c.format, r)
		}
		read, unread := x.Field(c.read), x.Field(c.unread)
		if n := e.nums[read]; n.gen != e.gen || !n.ok || n.v != c.v {
			t.Errorf("%s, sum=%s: %s's number not recorded as %v: %+v", c.format, c.sum, c.read, c.v, n)
		}
		if n := e.nums[unread]; n.gen == e.gen {
			t.Errorf("%s, sum=%s: %s's number recorded, which nothing reads: %+v", c.format, c.sum, c.unread, n)
		}
		for _, i := range []int{read, unread} {
			got, ok := e.Number(i)
			if want, wantOK := Number(e.Fields[i]); got != want || ok != wantOK {
				t.Errorf("%s: %s's number %v %v, Number of %q %v %v", c.format, x.names[i], got, ok, e.Fields[i], want, wantOK)
			}
		}
	}
}

// BenchmarkShortFieldEnds finds the ends of the 14 space-ended fields
// of an httplog line's middle, by upTo (its first word's mask) and by
// upToLong's indexByte. One line over and over, as a fixture row: its
// branches are all predicted, which a busy server's lines' are not
// (BenchmarkNamedFormats' -varied rows measure those).
func BenchmarkShortFieldEnds(b *testing.B) {
	middle := []byte(`http-in static/srv1 10/0/30/69/109 200 2750 - - ---- 1/1/1/1/0 0/0 {1wt.eu} {} "GET /index.html HTTP/1.1"`)
	var field []byte
	b.Run("upTo", func(b *testing.B) {
		for b.Loop() {
			rest := middle
			for range 14 {
				field, rest, _ = upTo(rest, ' ')
			}
		}
	})
	b.Run("indexByte", func(b *testing.B) {
		for b.Loop() {
			rest := middle
			for range 14 {
				field, rest, _ = upToLong(rest, ' ')
			}
		}
	})
	_ = field
}

// TestAQuoteABackslashMayEscapeIsLeftToTheCompiledCutter reads quoted
// fields with an escaped quote in them: the straight-line cutters give
// up on a closing quote after a backslash, and the compiled cutter reads
// the field whole, escapes kept.
func TestAQuoteABackslashMayEscapeIsLeftToTheCompiledCutter(t *testing.T) {
	for _, c := range []struct{ format, line, field, want string }{
		{"envoy", `[2016-04-15T20:17:00.310Z] "GET /x HTTP/1.1" 200 - 0 0 1 - "-" "curl \"7\" x" "id" "host" "-"`,
			"req_user_agent", `curl \"7\" x`},
		{"envoy", `[2016-04-15T20:17:00.310Z] "GET /x HTTP/1.1" 200 - 0 0 1 - "-" "a\\" "id" "host" "-"`,
			"req_user_agent", `a\\`},
		{"haproxy httplog", `10.0.1.2:33317 [06/Feb/2009:12:14:14.655] http-in static/srv1 10/0/30/69/109 200 2750 - - ---- 1/1/1/1/0 0/0 "GET /a\"b HTTP/1.1"`,
			"http_request", `GET /a\"b HTTP/1.1`},
	} {
		x := namedExtractor(t, c.format)
		var e Entry
		if r := x.Extract([]byte(c.line), &e); r != "" {
			t.Fatalf("%s: %q dropped (%s)", c.format, c.line, r)
		}
		if got := string(e.Fields[x.Field(c.field)]); got != c.want {
			t.Errorf("%s: %s = %q, want %q", c.format, c.field, got, c.want)
		}
	}
}

// TestAFormWithoutCapturesReadsItsLastFieldAsTheLayoutDoes reads an
// httpslog line with its captures and the same line without them: a
// frontend that captures nothing changes the line's middle, not how its
// last field (the ciphers, the rest of the line) reads, so both read it
// whole, blank included. Only an older, shorter form's last field, which
// the layout does not end with, must be a whole word.
func TestAFormWithoutCapturesReadsItsLastFieldAsTheLayoutDoes(t *testing.T) {
	const head = `10.0.1.2:33317 [06/Feb/2009:12:14:14.655] https-in static/srv1 10/0/30/69/109 200 2750 - - ---- 1/1/1/1/0 0/0 `
	for _, captures := range []string{"{1wt.eu} {} ", ""} {
		line := head + captures + `"GET / HTTP/1.1" 0/0/0/0/0 1wt.eu/TLSv1.3/TLS AES`
		for _, x := range []*Extractor{namedExtractor(t, "haproxy httpslog"), generalExtractor(t, "haproxy httpslog")} {
			var e Entry
			if r := x.Extract([]byte(line), &e); r != "" {
				t.Fatalf("%q: !drop reason=%s", line, r)
			}
			if got := string(e.Fields[x.Field("ssl_ciphers")]); got != "TLS AES" {
				t.Errorf("%q: ssl_ciphers %q, want %q", line, got, "TLS AES")
			}
		}
	}
}
