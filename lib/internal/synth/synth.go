// Package synth generates deterministic, realistic Apache combined log lines
// for scenarios and benchmarks.
//
// Invariants:
//   - The same Config gives the same bytes: every choice comes from one PCG
//     stream seeded by Config.Seed, drawn in a fixed order.
//   - Every line ends with '\n' and holds no other '\n'.
//   - A line that is not malformed is a well-formed Apache combined line whose
//     time is a whole second; its instant never lies more than Jitter
//     (truncated to whole seconds) before any earlier line's instant, and never
//     before Start.
//   - A malformed line cannot be parsed as Apache common or combined: it is
//     garbage, a line cut inside its request, or a line with an impossible date.
//   - Generation allocates nothing per line once the Generator exists.
package synth

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"time"
)

// Config says what to generate. Zero fields take the defaults noted.
type Config struct {
	Seed  int64
	N     int       // lines to write (Write only)
	Start time.Time // log time of the first line (default DefaultStart)
	Rate  float64   // mean lines per second of log time (default 100)
	// Steady spaces lines exactly 1/Rate apart instead of drawing Poisson
	// arrivals, so that a hand-made fixture knows each window's count
	// (rate 51.2 puts exactly 512 lines in every 10 s window).
	Steady bool
	// Jitter is the most a line's time may lie before an earlier line's:
	// Apache stamps the request start and writes the line at completion.
	// 0: times never go backwards.
	Jitter    time.Duration
	Malformed float64 // fraction of malformed lines, in [0, 1]
	Paths     int     // distinct path values, query strings included (default 200)
	Statuses  []int   // when set, statuses are drawn uniformly from it
	// Format is the line format: "" (or "combined") Apache combined, or one
	// of the Format constants. The other formats carry durations with a
	// long tail, fractional times where the format has them, and their
	// formats' hard cases (escapes, absent fields, CRLF).
	Format string
	// Realistic gives the lines the real world's hard cases in the shares
	// production logs show them (world.go): long agents and referers,
	// non-ASCII paths and agents as each server escapes them, quotes
	// inside paths and referers, upstream lists of retries and internal
	// redirects, more keys in logfmt lines. Off, every format's bytes are
	// what they always were (fixtures and figures depend on them).
	Realistic bool
}

// DefaultStart is the log time of the first line when Config.Start is zero.
var DefaultStart = time.Date(2026, 10, 10, 13, 55, 0, 0, time.UTC)

// Generator produces lines one at a time. It is not safe for concurrent use.
type Generator struct {
	c         Config
	rng       *rand.Rand
	clock     float64 // completion time of the last line, Unix seconds
	start     int64   // Unix seconds of the first line
	jitter    int64   // whole seconds
	paths     []string
	malformed int

	// The formatted CLF time of the last (second, zone) pair: consecutive
	// lines mostly share a second, and formatting a date is the costliest
	// part of a line.
	lastSec  int64
	lastZone int
	lastTime []byte
	host     []byte // the other formats' host, reused

	// The tables lines are drawn from: the package's, or with
	// Config.Realistic the world's added (world.go). agents and referers
	// are as Apache writes them; rich are raw, for the formats that escape
	// them as they write.
	agents, referers, rich []string
	rawReferers            []string // referers unescaped, for nginx, JSON and logfmt
}

// New returns a Generator for c, with its defaults filled in.
func New(c Config) (*Generator, error) {
	if c.Start.IsZero() {
		c.Start = DefaultStart
	}
	if c.Rate == 0 {
		c.Rate = 100
	}
	if c.Paths == 0 {
		c.Paths = 200
	}
	switch {
	case c.N < 0:
		return nil, fmt.Errorf("tgsynth: --lines %d is negative; give a number of lines", c.N)
	case !(c.Rate > 0) || math.IsInf(c.Rate, 0):
		return nil, fmt.Errorf("tgsynth: --rate %v is not a positive number of lines per second", c.Rate)
	case c.Jitter < 0:
		return nil, fmt.Errorf("tgsynth: --jitter %v is negative; give how far back a stamp may go", c.Jitter)
	case c.Jitter%time.Second != 0:
		// Stamps have one-second resolution: a fraction would be dropped
		// without a word, and 0.5s would write no jitter at all.
		return nil, fmt.Errorf("tgsynth: --jitter %v is not a whole number of seconds (a stamp is to the second); give --jitter %v or %v", c.Jitter, c.Jitter.Truncate(time.Second), c.Jitter.Truncate(time.Second)+time.Second)
	case !(c.Malformed >= 0 && c.Malformed <= 1):
		return nil, fmt.Errorf("tgsynth: --malformed %v is not a fraction in [0, 1]", c.Malformed)
	case c.Paths < 0:
		return nil, fmt.Errorf("tgsynth: --paths %d is negative; give a number of distinct paths", c.Paths)
	}
	if err := checkFormat(c.Format); err != nil {
		return nil, err
	}
	for _, s := range c.Statuses {
		if s < 100 || s > 999 {
			return nil, fmt.Errorf("tgsynth: status %d is not a three-digit HTTP status", s)
		}
	}
	seed := uint64(c.Seed)
	g := &Generator{
		c:        c,
		rng:      rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		start:    c.Start.Unix(),
		jitter:   int64(c.Jitter / time.Second),
		lastSec:  math.MinInt64,
		lastTime: make([]byte, 0, 32),
	}
	g.clock = float64(g.start)
	g.paths = makePaths(c.Paths, rand.New(rand.NewPCG(seed, 1)))
	g.agents, g.referers, g.rich, g.rawReferers = agents, referers, richAgents, referers
	if c.Realistic {
		g.realistic()
	}
	return g, nil
}

// Malformed returns how many malformed lines Next has produced so far.
func (g *Generator) Malformed() int { return g.malformed }

// Next appends one line, with its '\n', to b.
func (g *Generator) Next(b []byte) []byte {
	if f := g.c.Format; f != FormatCombined && f != "combined" {
		return g.nextFormatted(b)
	}
	sec := g.advance()
	if g.c.Malformed > 0 && g.rng.Float64() < g.c.Malformed {
		g.malformed++
		return g.appendMalformed(b, sec)
	}
	b, _ = g.appendLine(b, sec, dateOK)
	return b
}

// advance returns the next line's stamp in whole seconds and moves the
// clock to the following line's completion. The stamp is floor(clock) minus
// up to jitter seconds, so it is never more than jitter before an earlier
// stamp (floor(clock) never decreases) and never before start.
func (g *Generator) advance() int64 {
	sec := int64(math.Floor(g.clock))
	if g.c.Steady {
		g.clock += 1 / g.c.Rate
	} else {
		g.clock += g.rng.ExpFloat64() / g.c.Rate
	}
	if g.jitter > 0 {
		sec -= g.rng.Int64N(g.jitter + 1)
	}
	return max(sec, g.start)
}

// Write writes c.N lines to w through one large buffer.
func Write(w io.Writer, c Config) error {
	g, err := New(c)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	line := make([]byte, 0, 1024)
	for range c.N {
		line = g.Next(line[:0])
		if _, err := bw.Write(line); err != nil {
			return fmt.Errorf("tgsynth: writing lines: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("tgsynth: writing lines: %w", err)
	}
	return nil
}

// WriteFile writes c.N lines to a new file at path.
func WriteFile(path string, c Config) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("tgsynth: %w; check that the directory exists and is writable", err)
	}
	err = Write(f, c)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("tgsynth: closing %s: %w", path, cerr)
	}
	return err
}

// dateFault says how appendLine spoils a line's date: dateOK writes it right.
type dateFault int

const (
	dateOK dateFault = iota
	dateDay32
	dateBadMonth
	dateHour25
	dateFaults // the number of kinds above
)

// appendLine appends a combined line stamped at sec, and returns the offset
// just past its request's closing quote (where a truncation must cut before).
func (g *Generator) appendLine(b []byte, sec int64, fault dateFault) ([]byte, int) {
	r := g.rng
	b = g.appendHost(b)
	b = append(b, " - "...)
	b = append(b, pick(r, users, 0.9)...)
	b = append(b, " ["...)
	b = g.appendTime(b, sec, fault)
	b = append(b, "] \""...)
	b = append(b, weighted(r, methods)...)
	b = append(b, ' ')
	b = appendApacheEscaped(b, g.paths[skewed(r, len(g.paths))])
	b = append(b, ' ')
	b = append(b, weighted(r, protos)...)
	b = append(b, '"')
	request := len(b)
	status := g.status()
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(status), 10)
	b = append(b, ' ')
	if status == 304 || status == 204 || r.IntN(50) == 0 {
		b = append(b, '-')
	} else {
		// Log-normal-ish body sizes: mostly a few KB, sometimes megabytes.
		b = strconv.AppendInt(b, int64(math.Exp(r.NormFloat64()*1.5+8)), 10)
	}
	b = append(b, " \""...)
	b = append(b, g.referers[g.refererIndex()]...)
	b = append(b, "\" \""...)
	b = append(b, g.agents[g.agentIndex()]...)
	b = append(b, "\"\n"...)
	return b, request
}

func (g *Generator) status() int {
	if len(g.c.Statuses) > 0 {
		return g.c.Statuses[g.rng.IntN(len(g.c.Statuses))]
	}
	return statuses[weightedIndex(g.rng, statusWeights)]
}

func (g *Generator) appendHost(b []byte) []byte {
	r := g.rng
	if r.IntN(5) == 0 {
		// IPv6 in documentation space, with a zero run compressed.
		b = append(b, "2001:db8:"...)
		b = strconv.AppendUint(b, uint64(r.IntN(0x10000)), 16)
		b = append(b, "::"...)
		b = strconv.AppendUint(b, uint64(r.IntN(0x10000)), 16)
		b = append(b, ':')
		return strconv.AppendUint(b, uint64(r.IntN(0x10000)), 16)
	}
	// A few busy clients and a long tail, as real traffic has.
	ip := r.Uint32()
	if r.IntN(3) == 0 {
		ip = 0xc0a80000 | uint32(r.IntN(16)) // 192.168.0.0-15
	}
	for i := 3; i >= 0; i-- {
		b = strconv.AppendUint(b, uint64(ip>>(8*i)&0xff), 10)
		if i > 0 {
			b = append(b, '.')
		}
	}
	return b
}

// appendTime appends sec as CLF in one of zones, the instant unchanged.
func (g *Generator) appendTime(b []byte, sec int64, fault dateFault) []byte {
	zone := 0
	if g.rng.IntN(10) == 0 {
		zone = 1 + g.rng.IntN(len(zones)-1)
	}
	if fault != dateOK || sec != g.lastSec || zone != g.lastZone {
		g.lastTime = appendCLF(g.lastTime[:0], sec, zones[zone], fault)
		g.lastSec, g.lastZone = sec, zone
		if fault != dateOK {
			g.lastSec = math.MinInt64 // never reuse a spoiled date
		}
	}
	return append(b, g.lastTime...)
}

// appendCLF appends 10/Oct/2026:13:55:36 +0000 for sec shown in zone z.
func appendCLF(b []byte, sec int64, z zone, fault dateFault) []byte {
	t := time.Unix(sec+z.offset, 0).UTC()
	year, month, day := t.Date()
	hour, min, s := t.Clock()
	mon := monthNames[month-1]
	switch fault {
	case dateDay32:
		day = 32
	case dateBadMonth:
		mon = "Okt"
	case dateHour25:
		hour = 25
	}
	b = append2(b, day)
	b = append(b, '/')
	b = append(b, mon...)
	b = append(b, '/')
	b = strconv.AppendInt(b, int64(year), 10)
	b = append(b, ':')
	b = append2(b, hour)
	b = append(b, ':')
	b = append2(b, min)
	b = append(b, ':')
	b = append2(b, s)
	b = append(b, ' ')
	return append(b, z.name...)
}

func append2(b []byte, n int) []byte {
	return append(b, byte('0'+n/10), byte('0'+n%10))
}

// appendMalformed appends a line no Apache parser may accept.
func (g *Generator) appendMalformed(b []byte, sec int64) []byte {
	r := g.rng
	switch r.IntN(3) {
	case 0:
		// Garbage: printable noise with the odd control and non-UTF-8 byte.
		n := 1 + r.IntN(120)
		for range n {
			c := byte(' ' + r.IntN(95))
			if r.IntN(20) == 0 {
				c = oddBytes[r.IntN(len(oddBytes))]
			}
			b = append(b, c)
		}
		return append(b, '\n')
	case 1:
		// Truncated inside the request, as a torn write would leave it.
		at := len(b)
		var request int
		b, request = g.appendLine(b, sec, dateOK)
		cut := at + 1 + r.IntN(request-1-at)
		return append(b[:cut], '\n')
	}
	b, _ = g.appendLine(b, sec, dateFault(1+r.IntN(int(dateFaults)-1)))
	return b
}

// oddBytes are the bytes garbage lines sprinkle in: NUL, CR, tab and two
// that are not UTF-8 on their own.
const oddBytes = "\x00\r\t\xff\xc3"

type zone struct {
	name   string
	offset int64 // seconds east of UTC
}

var (
	zones      = []zone{{"+0000", 0}, {"+0200", 7200}, {"-0700", -25200}, {"+0530", 19800}, {"-0330", -12600}, {"+1300", 46800}}
	monthNames = [12]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
	users      = []string{"-", "alice", "bob", "frank", "svc-backup", "m.oreilly"}
	referers   = []string{"-", "https://www.example.com/", "https://www.google.com/search?q=timber+tally",
		"https://example.com/blog/2026/10/logs-that-add-up?utm_source=feed", "http://intranet.local/dash"}
	agents = []string{
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/129.0.0.0 Safari/537.36",
		"Mozilla/5.0 (Macintosh; Intel Mac OS X 14_6) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Safari/605.1.15",
		"Mozilla/5.0 (X11; Linux x86_64; rv:131.0) Gecko/20100101 Firefox/131.0",
		"Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148",
		"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
		"curl/8.10.1",
		"python-requests/2.32.3",
		"Go-http-client/1.1",
		`Mozilla/5.0 (compatible; \"Quoted\" Crawler/0.9; +https://crawler.example/about)`,
		`check_http/v2.4 (\"monitoring-plugins\" 2.4)`,
		"-",
	}
	// statuses and statusWeights: 200 mostly, then the usual redirects and errors.
	statuses      = []int{200, 206, 301, 302, 304, 400, 401, 403, 404, 500, 502, 503, 204}
	statusWeights = []int{750, 10, 20, 30, 60, 10, 10, 10, 60, 10, 5, 5, 20}
	methods       = weights{{"GET", 850}, {"POST", 80}, {"HEAD", 30}, {"PUT", 20}, {"DELETE", 10}, {"OPTIONS", 10}}
	protos        = weights{{"HTTP/1.1", 70}, {"HTTP/2.0", 25}, {"HTTP/1.0", 5}}
)

type weights []struct {
	s string
	w int
}

func weighted(r *rand.Rand, ws weights) string {
	total := 0
	for _, w := range ws {
		total += w.w
	}
	n := r.IntN(total)
	for _, w := range ws {
		if n < w.w {
			return w.s
		}
		n -= w.w
	}
	panic("unreachable")
}

func weightedIndex(r *rand.Rand, ws []int) int {
	total := 0
	for _, w := range ws {
		total += w
	}
	n := r.IntN(total)
	for i, w := range ws {
		if n < w {
			return i
		}
		n -= w
	}
	panic("unreachable")
}

// pick returns list[0] with probability p0, else another element uniformly.
func pick(r *rand.Rand, list []string, p0 float64) string {
	if r.Float64() < p0 {
		return list[0]
	}
	return list[1+r.IntN(len(list)-1)]
}

// skewed returns an index in [0, n) where low indexes are much more likely,
// as a few pages take most of a site's hits.
func skewed(r *rand.Rand, n int) int {
	u := r.Float64()
	return int(float64(n) * u * u)
}

// makePaths returns n distinct paths, the site root first (the most hit),
// about a third of the rest with a query string.
func makePaths(n int, r *rand.Rand) []string {
	dirs := []string{"/", "/static/css/", "/static/js/", "/img/", "/api/v1/users/", "/api/v1/orders/", "/blog/2026/", "/docs/", "/search", "/cart/"}
	exts := []string{"", ".html", ".css", ".js", ".png", ".json"}
	seen := make(map[string]bool, n)
	paths := make([]string, 0, n)
	for i := 0; len(paths) < n; i++ {
		if i == 0 {
			seen["/"] = true
			paths = append(paths, "/")
			continue
		}
		p := dirs[r.IntN(len(dirs))]
		if p != "/search" {
			p += "item-" + strconv.Itoa(i) + exts[r.IntN(len(exts))]
		}
		if p == "/search" || r.IntN(3) == 0 {
			p += "?q=" + strconv.Itoa(r.IntN(1000)) + "&page=" + strconv.Itoa(1+r.IntN(9)) + "&sort=desc"
		}
		if !seen[p] {
			seen[p] = true
			paths = append(paths, p)
		}
	}
	return paths
}
