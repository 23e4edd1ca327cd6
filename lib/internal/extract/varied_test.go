package extract

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// variedLines writes n lines of HAProxy's httplog or tcplog, or Envoy's
// default format, as busy servers write them: every number drawn (ports,
// timers, sizes, connection counts, of the lengths they have), IPv4 and
// IPv6 clients, rsyslog's two headers and none, some sessions aborted
// (-1 timers), captures on some frontends, query strings, and times a
// few milliseconds apart, as the built-in's synth lines are some apart.
// The fixtures' few lines, each repeated, let the branch predictor learn
// every field's length; these, like synth's lines, do not.
func variedLines(format string, n int) [][]byte {
	r := rand.New(rand.NewPCG(31, uint64(len(format))))
	lines := make([][]byte, n)
	at := time.Date(2026, 12, 5, 2, 0, 0, 0, time.UTC)
	for i := range lines {
		at = at.Add(time.Duration(r.ExpFloat64() * float64(5*time.Millisecond))).Truncate(time.Millisecond)
		switch format {
		case "haproxy httplog":
			lines[i] = fmt.Appendf(nil, "%s%s %s %s %s %s %s %s %s ---- %s %s %s\"%s %s HTTP/1.1\"",
				syslogHead(r, at), clientAddr(r), at.Format("[02/Jan/2006:15:04:05.000]"), frontend(r), timers(r, 5), status(r), size(r), cookie(r), cookie(r),
				conns(r), queues(r), captures(r), method(r), path(r))
		case "haproxy tcplog":
			lines[i] = fmt.Appendf(nil, "%s%s %s %s %s %s -- %s %s",
				syslogHead(r, at), clientAddr(r), at.Format("[02/Jan/2006:15:04:05.000]"), frontend(r), timers(r, 3), size(r), conns(r), queues(r))
		case "envoy":
			lines[i] = fmt.Appendf(nil, "[%s] \"%s %s HTTP/%s\" %s %s %d %s %d %d \"%s\" \"%s\" \"%08x-%04x-4%03x-%04x-%012x\" \"%s\" \"%s\"",
				at.Format("2006-01-02T15:04:05.000Z"), method(r), path(r), pick(r, "1.1", "2", "1.1"), status(r),
				pick(r, "-", "-", "-", "-", "UF", "DC", "URX"), r.IntN(3000), size(r), r.IntN(5000), r.IntN(3000),
				pick(r, "10.0.35.28", "-", "198.51.100.23,10.0.0.2", "2001:db8::17"), pick(r, "curl/8.10.1", "Mozilla/5.0 (X11; Linux x86_64) Gecko/20100101 Firefox/131.0", "kube-probe/1.27", "Go-http-client/2.0"),
				r.Uint32(), r.IntN(1<<16), r.IntN(1<<12), r.IntN(1<<16), r.Int64N(1<<48),
				pick(r, "locations", "api.example.com", "www.example.com:8443"), pick(r, "10.0.2.1:80", "10.0.2.17:8080", "-", "[2001:db8::5]:443"))
		}
	}
	return lines
}

func pick(r *rand.Rand, s ...string) string { return s[r.IntN(len(s))] }

func syslogHead(r *rand.Rand, at time.Time) string {
	switch r.IntN(3) {
	case 0:
		return fmt.Sprintf("%s lb%d haproxy[%d]: ", at.Format(time.Stamp), r.IntN(4), 1000+r.IntN(60000))
	case 1:
		return fmt.Sprintf("%s lb%d haproxy[%d]: ", at.Format("2006-01-02T15:04:05.000000-07:00"), r.IntN(4), 1000+r.IntN(60000))
	}
	return ""
}

func clientAddr(r *rand.Rand) string {
	if r.IntN(5) == 0 {
		return fmt.Sprintf("2001:db8:%x::%x:%d", r.IntN(1<<16), r.IntN(1<<16), 1024+r.IntN(64000))
	}
	return fmt.Sprintf("%d.%d.%d.%d:%d", 1+r.IntN(223), r.IntN(256), r.IntN(256), r.IntN(256), 1024+r.IntN(64000))
}

func frontend(r *rand.Rand) string {
	return pick(r, "http-in", "https~", "fe_main~") + " " + pick(r, "static", "app", "api_v2") + "/" + pick(r, "srv1", "web2", "<NOSRV>", "app-7f9c")
}

// timers are n of HAProxy's timers, milliseconds each, log-normal (a few
// long), 2% of sessions aborted: -1 for the phases that did not happen.
func timers(r *rand.Rand, n int) string {
	s, total, aborted := "", 0, r.IntN(50) == 0
	for k := range n {
		v := int(r.ExpFloat64() * []float64{3, 1, 2, 40, 1}[k%5])
		if r.IntN(100) == 0 {
			v *= 300
		}
		if k == n-1 {
			v = total + v
		}
		total += v
		if aborted && k > 0 && k < n-1 {
			v = -1
		}
		if k > 0 {
			s += "/"
		}
		s += fmt.Sprint(v)
	}
	return s
}

func status(r *rand.Rand) string {
	return pick(r, "200", "200", "200", "200", "304", "404", "301", "502", "503", "101", "200", "206")
}

func size(r *rand.Rand) string { return fmt.Sprint(int(r.ExpFloat64() * 12000)) }

func cookie(r *rand.Rand) string { return pick(r, "-", "-", "-", "SESSID=a1b2c3") }

func conns(r *rand.Rand) string {
	a := r.IntN(2000)
	return fmt.Sprintf("%d/%d/%d/%d/%d", a, r.IntN(a+1), r.IntN(300), r.IntN(60), r.IntN(50)/48)
}

func queues(r *rand.Rand) string { return fmt.Sprintf("%d/%d", r.IntN(30)/25, r.IntN(40)/30) }

func captures(r *rand.Rand) string {
	switch r.IntN(4) {
	case 0:
		return "{www.example.com|Mozilla/5.0} {} "
	case 1:
		return "{api.example.com} "
	}
	return ""
}

func method(r *rand.Rand) string { return pick(r, "GET", "GET", "GET", "POST", "HEAD", "PUT") }

func path(r *rand.Rand) string {
	return pick(r, "/", "/index.html", "/api/v1/items", "/static/app.3f9a1c.js", "/search") + pick(r, "", "", "?q=go+tools&page=2", "?id="+fmt.Sprint(r.IntN(100000)))
}

// TestVariedLinesAreEntries: every generated line is read whole, so the
// benchmark rows over them measure entries, not drops.
func TestVariedLinesAreEntries(t *testing.T) {
	for _, f := range []string{"haproxy httplog", "haproxy tcplog", "envoy"} {
		x := newExtractor(t, "format "+f+"\nwindow 10s\nmetric requests count\n")
		var e Entry
		for _, l := range variedLines(f, 2000) {
			if r := x.Extract(l, &e); r != "" {
				t.Fatalf("%s: %q: !drop reason=%s", f, l, r)
			}
		}
	}
}
