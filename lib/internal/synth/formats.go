package synth

import (
	"fmt"
	"math"
	"strconv"
	"time"
	"unicode/utf16"
)

// The formats Config.Format names; "" is Apache combined, the generator's
// first and default output, whose bytes never change.
const (
	FormatCombined    = ""
	FormatApacheTimed = "apache-timed" // combined + %D %v "%{X-Forwarded-For}i"
	FormatNginx       = "nginx"        // nginx combined + $request_time $upstream_response_time
	FormatJSON        = "json"         // Caddy-like JSON lines, nested request and headers
	FormatLogfmt      = "logfmt"       // a Go service's logfmt lines
)

// Formats lists what Config.Format may be, for messages.
var Formats = []string{"combined", FormatApacheTimed, FormatNginx, FormatJSON, FormatLogfmt}

// The format strings the server-format lines are written in, for
// documents and tests reading them.
const (
	ApacheTimedLogFormat = `%h %l %u %t \"%r\" %>s %b \"%{Referer}i\" \"%{User-Agent}i\" %D %v \"%{X-Forwarded-For}i\"`
	NginxLogFormat       = `$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" $request_time $upstream_response_time`
)

func checkFormat(f string) error {
	switch f {
	case FormatCombined, "combined", FormatApacheTimed, FormatNginx, FormatJSON, FormatLogfmt:
		return nil
	}
	return fmt.Errorf("tgsynth: --format %q is not one of %v", f, Formats)
}

// entry is one request, drawn once and written in any format.
type entry struct {
	sec      int64
	frac     int // nanoseconds past sec, for the formats with fractional times
	zone     zone
	host     []byte
	user     string
	method   string
	path     string
	proto    string
	status   int
	size     int64 // -1: none ("-")
	referer  string
	agent    int // index in agents
	dur      time.Duration
	vhost    string
	xff      string // "" when the header is absent
	ups      [3]float64
	nups     int
	upsDash  bool // an upstream that gave no response: "-" in the list
	redirect bool // the last try after an internal redirect: " : " before it
}

// draw draws one request stamped at sec.
func (g *Generator) draw(sec int64, hostBuf []byte) entry {
	r := g.rng
	e := entry{sec: sec, frac: r.IntN(int(time.Second)), host: g.appendHost(hostBuf[:0])}
	if r.IntN(10) == 0 {
		e.zone = zones[1+r.IntN(len(zones)-1)]
	} else {
		e.zone = zones[0]
	}
	e.user = pick(r, users, 0.9)
	e.method = weighted(r, methods)
	e.path = g.paths[skewed(r, len(g.paths))]
	e.proto = weighted(r, protos)
	e.status = g.status()
	e.size = -1
	if !(e.status == 304 || e.status == 204 || r.IntN(50) == 0) {
		e.size = int64(math.Exp(r.NormFloat64()*1.5 + 8))
	}
	e.referer = g.rawReferers[g.refererIndex()]
	e.agent = g.agentIndex()
	e.dur = g.duration()
	e.vhost = vhosts[r.IntN(len(vhosts))]
	if r.IntN(3) == 0 {
		e.xff = xffs[r.IntN(len(xffs))]
	}
	if e.status != 304 {
		n := 1
		if e.status >= 502 {
			n = 2 // a retry on the next upstream
		}
		for i := range n {
			e.ups[i] = float64(e.dur.Microseconds()) / 1e6 * (0.5 + r.Float64()/2)
		}
		e.nups = n
		e.upsDash = e.status == 504 || (n == 2 && r.IntN(4) == 0)
		if g.c.Realistic && n == 1 {
			g.drawUpstreams(&e)
		}
	}
	return e
}

// duration draws a request's time: log-normal around 20 ms (most between
// 5 and 80 ms), and one request in 200 a slow outlier 20 to 100 times
// longer (a cold cache, a lock), so latency histograms have a long tail.
func (g *Generator) duration() time.Duration {
	r := g.rng
	ms := math.Exp(3 + r.NormFloat64()*0.8)
	if r.IntN(200) == 0 {
		ms *= 20 + 80*r.Float64()
	}
	return time.Duration(ms * float64(time.Millisecond)).Round(time.Microsecond)
}

var (
	vhosts = []string{"www.example.com", "api.example.com", "static.example.com"}
	xffs   = []string{"203.0.113.7", "198.51.100.23, 10.0.0.2", "2001:db8::17"}
	// Agents as JSON and logfmt services see them: unicode, escapes to
	// write, and one byte that is not UTF-8.
	richAgents = []string{"Mozilla/5.0 (Linux; Android 14) Gecko Firefox/131.0", "curl/8.10.1",
		"naïve-bot/1.0 (é😀)", `quote "q" \ back`, "bad-\xff-byte/1", "tab\there"}
)

// nextFormatted is Next for the formats other than the default.
func (g *Generator) nextFormatted(b []byte) []byte {
	sec := g.advance()
	malformed := g.c.Malformed > 0 && g.rng.Float64() < g.c.Malformed
	e := g.draw(sec, g.host)
	g.host = e.host
	start := len(b)
	lo, hi := start+1, 0 // a line cut in [lo, hi) is invalid
	switch g.c.Format {
	case FormatApacheTimed:
		b, hi = g.appendApacheTimed(b, &e)
	case FormatNginx:
		b, hi = g.appendNginx(b, &e)
	case FormatJSON:
		b, hi = g.appendJSON(b, &e)
	case FormatLogfmt:
		b, hi = g.appendLogfmt(b, &e)
		lo = start + len("ts=2026-10-10T13:55:00.000Z level=info msg=\"") + 1 // inside the quotes
		if e.zone.offset != 0 {
			lo += len("+02:00") - 1
		}
	}
	if malformed {
		g.malformed++
		// Cut short inside the line, as a torn write leaves it.
		return append(b[:lo+g.rng.IntN(hi-lo)], '\n')
	}
	if g.rng.IntN(50) == 0 {
		b = append(b, '\r') // a CRLF line
	}
	return append(b, '\n')
}

// appendCommonStart writes what Apache's and nginx's combined lines
// start with, up to the status and its space, and returns where a line cut
// before is malformed (inside the request's quotes).
func appendCommonStart(b []byte, e *entry, esc func([]byte, string) []byte) ([]byte, int) {
	b = append(b, e.host...)
	b = append(b, " - "...)
	b = append(b, e.user...)
	b = append(b, " ["...)
	b = appendCLF(b, e.sec, e.zone, dateOK)
	b = append(b, "] \""...)
	b = append(b, e.method...)
	b = append(b, ' ')
	b = esc(b, e.path)
	b = append(b, ' ')
	b = append(b, e.proto...)
	cut := len(b)
	b = append(b, "\" "...)
	b = strconv.AppendInt(b, int64(e.status), 10)
	return append(b, ' '), cut
}

// appendApacheTimed writes combined + %D %v "%{X-Forwarded-For}i".
func (g *Generator) appendApacheTimed(b []byte, e *entry) ([]byte, int) {
	b, cut := appendCommonStart(b, e, appendApacheEscaped)
	b = appendSize(b, e.size)
	b = append(b, " \""...)
	b = appendApacheEscaped(b, e.referer)
	b = append(b, "\" \""...)
	b = append(b, g.agents[e.agent]...)
	b = append(b, "\" "...)
	b = strconv.AppendInt(b, e.dur.Microseconds(), 10)
	b = append(b, ' ')
	b = append(b, e.vhost...)
	b = append(b, " \""...)
	b = append(b, orDash(e.xff)...)
	return append(b, '"'), cut
}

// appendNginx writes nginx combined + $request_time $upstream_response_time,
// nginx's escaping: \xHH for '"', '\' and bytes outside printable ASCII.
func (g *Generator) appendNginx(b []byte, e *entry) ([]byte, int) {
	b, cut := appendCommonStart(b, e, appendNginxEscaped)
	b = strconv.AppendInt(b, max(e.size, 0), 10) // $body_bytes_sent is 0, never "-"
	b = append(b, " \""...)
	b = appendNginxEscaped(b, e.referer)
	b = append(b, "\" \""...)
	b = appendNginxEscaped(b, g.nginxRealAgent(e.agent))
	b = append(b, "\" "...)
	b = strconv.AppendFloat(b, e.dur.Seconds(), 'f', 3, 64)
	b = append(b, ' ')
	return appendUpstreams(b, e), cut
}

func appendUpstreams(b []byte, e *entry) []byte {
	if e.nups == 0 {
		return append(b, '-')
	}
	for i, u := range e.ups[:e.nups] {
		if i > 0 && e.redirect && i == e.nups-1 {
			b = append(b, " : "...)
		} else if i > 0 {
			b = append(b, ", "...)
		}
		if e.upsDash && i == 0 {
			b = append(b, '-')
			continue
		}
		b = strconv.AppendFloat(b, u, 'f', 3, 64)
	}
	return b
}

func appendNginxEscaped(b []byte, s string) []byte {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '"' || c == '\\' || c < 0x20 || c > 0x7e {
			b = append(b, '\\', 'x', hex[c>>4], hex[c&15])
			continue
		}
		b = append(b, c)
	}
	return b
}

// appendJSON writes a Caddy-like line: fractional Unix ts, a nested
// request with headers as arrays (User-Agent absent now and then), the
// duration in seconds, and keys in the order Caddy writes them.
func (g *Generator) appendJSON(b []byte, e *entry) ([]byte, int) {
	b = append(b, `{"level":"info","ts":`...)
	b = strconv.AppendInt(b, e.sec, 10)
	b = append(b, '.')
	b = appendFrac(b, e.frac)
	b = append(b, `,"logger":"http.log.access","msg":"handled request","request":{"remote_ip":"`...)
	b = append(b, e.host...)
	b = append(b, `","proto":"`...)
	b = append(b, e.proto...)
	b = append(b, `","method":"`...)
	b = append(b, e.method...)
	b = append(b, `","host":"`...)
	b = append(b, e.vhost...)
	b = append(b, `","uri":`...)
	b = appendJSONString(b, e.path, false)
	b = append(b, `,"headers":{`...)
	if e.agent%5 != 0 {
		b = append(b, `"User-Agent":[`...)
		b = appendJSONString(b, g.rich[e.agent%len(g.rich)], e.agent%2 == 0)
		b = append(b, `],`...)
	}
	if g.c.Realistic && e.referer != "-" {
		b = append(b, `"Referer":[`...)
		b = appendJSONString(b, e.referer, false)
		b = append(b, `],`...)
	}
	b = append(b, `"Accept":["*/*"]}}`...)
	cut := len(b)
	if e.user != "-" {
		b = append(b, `,"user_id":`...)
		b = appendJSONString(b, e.user, false)
	}
	b = append(b, `,"duration":`...)
	b = strconv.AppendFloat(b, e.dur.Seconds(), 'f', -1, 64)
	b = append(b, `,"size":`...)
	b = strconv.AppendInt(b, max(e.size, 0), 10)
	b = append(b, `,"status":`...)
	b = strconv.AppendInt(b, int64(e.status), 10)
	if e.status >= 500 {
		b = append(b, `,"error":null`...)
	}
	return append(b, '}'), cut
}

// appendJSONString writes s as a JSON string: '"' and '\' escaped, and
// with unicode set every non-ASCII character as \u escapes (a surrogate
// pair beyond the BMP); a byte that is not UTF-8 is written as it is.
func appendJSONString(b []byte, s string, unicode bool) []byte {
	b = append(b, '"')
	for i, r := range s {
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r == '\t':
			b = append(b, `\t`...)
		case r == 0xfffd && s[i] == 0xff:
			b = append(b, s[i])
		case unicode && r >= 0x10000:
			r1, r2 := utf16.EncodeRune(r)
			b = appendUEscape(appendUEscape(b, r1), r2)
		case unicode && r > 0x7f:
			b = appendUEscape(b, r)
		default:
			b = append(b, string(r)...)
		}
	}
	return append(b, '"')
}

// appendUEscape writes the UTF-16 unit u as a JSON \u escape.
func appendUEscape(b []byte, u rune) []byte {
	const hex = "0123456789abcdef"
	return append(b, '\\', 'u', hex[u>>12&15], hex[u>>8&15], hex[u>>4&15], hex[u&15])
}

// appendLogfmt writes a Go service's logfmt line: an RFC 3339 time with
// milliseconds in the entry's zone, quoted values where needed, a bare key
// now and then, and keys absent when they have no value.
func (g *Generator) appendLogfmt(b []byte, e *entry) ([]byte, int) {
	b = append(b, "ts="...)
	b = time.Unix(e.sec+e.zone.offset, int64(e.frac)).UTC().AppendFormat(b, "2006-01-02T15:04:05.000")
	if e.zone.offset == 0 {
		b = append(b, 'Z')
	} else {
		b = append(b, e.zone.name[:3]...)
		b = append(b, ':')
		b = append(b, e.zone.name[3:]...)
	}
	b = append(b, ` level=info msg="handled request`...)
	cut := len(b)
	b = append(b, '"')
	if g.c.Realistic {
		b = appendLogfmtWorld(b, e, g.rng.Uint64())
	}
	b = append(b, ` method=`...)
	b = append(b, e.method...)
	b = append(b, " path="...)
	b = appendJSONString(b, e.path, false)
	b = append(b, " status="...)
	b = strconv.AppendInt(b, int64(e.status), 10)
	if e.size >= 0 {
		b = append(b, " size="...)
		b = strconv.AppendInt(b, e.size, 10)
	}
	b = append(b, " duration="...)
	b = strconv.AppendFloat(b, e.dur.Seconds(), 'f', -1, 64)
	b = append(b, " ua="...)
	b = appendJSONString(b, g.rich[e.agent%len(g.rich)], false)
	if g.c.Realistic && e.status >= 500 {
		b = append(b, ` err="upstream \"billing\" timed out after 30s: context deadline exceeded"`...)
	}
	if e.status >= 500 {
		b = append(b, " retry"...) // a bare key
	}
	return b, cut
}

func appendFrac(b []byte, ns int) []byte {
	s := strconv.Itoa(ns + int(time.Second))[1:] // nine digits
	for len(s) > 1 && s[len(s)-1] == '0' {
		s = s[:len(s)-1]
	}
	return append(b, s...)
}

func appendSize(b []byte, n int64) []byte {
	if n < 0 {
		return append(b, '-')
	}
	return strconv.AppendInt(b, n, 10)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// nginxAgent is the agent of an nginx line: the combined log's agents
// (so that its lines are as long as the combined log's) and, every third
// line, one with the bytes nginx escapes.
func nginxAgent(i int) string {
	if i%3 == 0 {
		return richAgents[i/3%len(richAgents)]
	}
	return agents[i]
}
