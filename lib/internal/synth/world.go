package synth

import (
	"strconv"
	"strings"
)

// The world's hard cases, for Config.Realistic. The shares are those of
// production access logs of public sites: a few percent of agents are an
// in-app browser's or a bot's of 200-450 bytes, a few percent of referers
// are a search's or an ad click's of 150-400 bytes, one path in twelve is
// not ASCII (most sent percent-encoded, some raw, which Apache and nginx
// write as \xHH), a scanner's path now and then carries a quote or a
// backslash, one proxied request in thirty tried a second upstream, one in
// a hundred went through an internal redirect (nginx's " : "), and a Go
// service's logfmt lines carry a caller, a trace id and the client.
// IPv6 clients (one in five), zones other than UTC (one line in ten) and
// Apache's \" inside agents are in every mode; damaged lines are
// --malformed's.
var (
	// worldAgents are raw: each format escapes them as its server does.
	worldAgents = []string{
		"Mozilla/5.0 (iPhone; CPU iPhone OS 17_5_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [FBAN/FBIOS;FBAV/471.0.0.34.104;FBBV/612947305;FBDV/iPhone15,2;FBMD/iPhone;FBSN/iOS;FBSV/17.5.1;FBSS/3;FBID/phone;FBLC/de_DE;FBOP/5;FBRV/614321987]",
		"Mozilla/5.0 (Linux; Android 14; SM-S918B Build/UP1A.231005.007; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/129.0.6668.100 Mobile Safari/537.36 Instagram 352.0.0.38.100 Android (34/14; 450dpi; 1080x2340; samsung; SM-S918B; dm3q; qcom; de_DE; 650342578)",
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/129.0.0.0 Safari/537.36 Edg/129.0.0.0 OneOutlook/1.2024.1001.100 (Windows 10 Enterprise; 10.0.19045; x64; de-DE; Tenant 7f3c2a1e-9b8d-4c6f-a2e1-5d4b3c2a1f0e)",
		"Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots) Яндекс.Браузер/24.7",
		"Mozilla/5.0 (Linux; U; Android 12; zh-CN; 小米 12 Build/SKQ1.211006.001) AppleWebKit/537.36 UCBrowser/15.5.8.1308 Mobile Safari/537.36",
		`Mozilla/5.0 (X11; Linux x86_64) "; DROP TABLE users; -- \ probe`,
	}
	// worldReferers are raw, as worldAgents.
	worldReferers = []string{
		"https://www.google.com/search?q=how+to+count+log+lines+per+status+code+prometheus&sca_esv=6f1b2c3d4e5f6a7b&rlz=1C1GCEA_enDE1090DE1090&ei=Zm9vYmFyYmF6cXV4&ved=0ahUKEwiA8b2c3d4AhUEhP0HHQ&uact=5&oq=count+log+lines&gs_lp=Egxnd3Mtd2l6LXNlcnAiD2NvdW50IGxvZyBsaW5lcw",
		"https://l.facebook.com/l.php?u=https%3A%2F%2Fwww.example.com%2Fblog%2F2026%2F&h=AT0x9F2kLmNoPqRsTuVwXyZ_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789&__tn__=-UK-R&c[0]=AT1aBcDeFgHiJkLmNoPqRsTuVwXyZ&fbclid=IwZXh0bgNhZW0CMTEAAR2aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789_aem_AbCdEfGhIjKlMnOpQrStUv",
		"https://www.bing.com/search?q=größe+der+logdatei+zählen&form=QBLH&sp=-1",
		`https://forum.example.org/t/why-is-my-"tally"-off/4711?page=2`,
	}
)

// realistic adds the world's tables to g's and makes one path in twelve
// non-ASCII.
func (g *Generator) realistic() {
	g.agents = append(append([]string(nil), agents...), escapeAll(worldAgents, appendApacheEscaped)...)
	g.referers = append(append([]string(nil), referers...), escapeAll(worldReferers, appendApacheEscaped)...)
	g.rawReferers = append(append([]string(nil), referers...), worldReferers...)
	g.rich = append(append([]string(nil), richAgents...), worldAgents...)
	for i := 5; i < len(g.paths); i += 12 {
		g.paths[i] = worldPath(i)
	}
}

// The shares of lines with one of the world's agents and referers.
const (
	worldAgentShare   = 0.08
	worldRefererShare = 0.06
)

// agentIndex draws an index in g.agents: one of the package's agents
// uniformly, or with Config.Realistic one of the world's in
// worldAgentShare of lines.
func (g *Generator) agentIndex() int {
	r := g.rng
	if g.c.Realistic && r.Float64() < worldAgentShare {
		return len(agents) + r.IntN(len(worldAgents))
	}
	return r.IntN(len(agents))
}

// refererIndex draws an index in g.referers as pick(r, referers, 0.4)
// does, or with Config.Realistic one of the world's in worldRefererShare
// of lines.
func (g *Generator) refererIndex() int {
	r := g.rng
	if g.c.Realistic && r.Float64() < worldRefererShare {
		return len(referers) + r.IntN(len(worldReferers))
	}
	if r.Float64() < 0.4 {
		return 0
	}
	return 1 + r.IntN(len(referers)-1)
}

// worldPath is the i-th non-ASCII (or quoted) path: distinct from every
// generated one, which are ASCII.
func worldPath(i int) string {
	n := strconv.Itoa(i)
	switch i / 12 % 5 {
	case 0:
		return "/wiki/Café_Zürich_" + n
	case 1:
		return "/search?q=日本語+" + n + "&lang=ja"
	case 2:
		return "/blog/%C3%BCber-uns-" + n // percent-encoded, as most clients send it
	case 3:
		return "/files/Отчёт " + n + ".pdf" // a raw space too
	}
	return `/index.php?id=` + n + `"%20or%20"1"="1\` // a scanner's probe
}

func escapeAll(raw []string, esc func([]byte, string) []byte) []string {
	out := make([]string, len(raw))
	for i, s := range raw {
		out[i] = string(esc(nil, s))
	}
	return out
}

// appendApacheEscaped writes s as Apache's ap_escape_logitem does: '"'
// and '\' after a backslash, control bytes and bytes above 0x7e as \xhh.
func appendApacheEscaped(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20 || c > 0x7e:
			b = append(b, '\\', 'x', hex[c>>4], hex[c&15])
		default:
			b = append(b, c)
		}
	}
	return b
}

// nginxRealAgent is nginxAgent over the realistic table: the world's
// agents written raw through nginx's escaping.
func (g *Generator) nginxRealAgent(i int) string {
	if i < len(agents) {
		return nginxAgent(i)
	}
	return worldAgents[i-len(agents)]
}

// drawUpstreams draws, with Config.Realistic, the upstream tries of a
// proxied request: a retry on a second upstream (one in thirty, most of
// all on a 5xx) and an internal redirect (one in a hundred, nginx's
// " : " between the two locations' lists).
func (g *Generator) drawUpstreams(e *entry) {
	r := g.rng
	switch n := r.IntN(100); {
	case n < 3:
		e.nups = 2
	case n < 4:
		e.nups, e.redirect = 3, true
	default:
		return
	}
	for i := range e.nups {
		e.ups[i] = float64(e.dur.Microseconds()) / 1e6 * (0.2 + r.Float64()/3)
	}
}

// appendLogfmtWorld writes the keys a Go service's lines carry besides
// the request's: the caller, a trace id, the client.
func appendLogfmtWorld(b []byte, e *entry, r uint64) []byte {
	const hex = "0123456789abcdef"
	b = append(b, " caller=http/server.go:"...)
	b = strconv.AppendUint(b, 100+r%900, 10)
	b = append(b, " trace_id="...)
	for k := range 32 {
		b = append(b, hex[(r>>(k*2%64)^uint64(k)*0x9e37)&15])
	}
	b = append(b, " remote="...)
	if strings.IndexByte(string(e.host), ':') >= 0 {
		b = append(b, '[')
		b = append(b, e.host...)
		return append(b, "]:443"...)
	}
	b = append(b, e.host...)
	return append(b, ":443"...)
}
