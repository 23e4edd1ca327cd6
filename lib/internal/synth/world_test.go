package synth

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

// Independent oracles for the realistic lines: the request may hold
// escapes and a raw space, nginx's lists a " : ", logfmt's lines the
// service's keys.
var (
	worldCombined = regexp.MustCompile(`^\S+ \S+ \S+ \[\d{2}/[A-Z][a-z]{2}/\d{4}:\d{2}:\d{2}:\d{2} [+-]\d{4}\] "[A-Z]+ (?:[^"\\]|\\.)+ HTTP/[0-9.]+" \d{3} (?:\d+|-) "(?:[^"\\]|\\.)*" "(?:[^"\\]|\\.)*"$`)
	worldTimed    = regexp.MustCompile(`^\S+ - \S+ \[[^\]]+\] "[A-Z]+ (?:[^"\\]|\\.)+ HTTP/[0-9.]+" \d{3} (?:\d+|-) "(?:[^"\\]|\\.)*" "(?:[^"\\]|\\.)*" \d+ \S+ "[^"]*"\r?$`)
	worldNginx    = regexp.MustCompile(`^\S+ - \S+ \[[^\]]+\] "[A-Z]+ [^"]+ HTTP/[0-9.]+" \d{3} \d+ "[^"]*" "[^"]*" \d+\.\d{3} (?:-|(?:\d+\.\d{3}|-)(?:(?:, | : )(?:\d+\.\d{3}|-))*)\r?$`)
	worldLogfmt   = regexp.MustCompile(`^ts=\S+ level=info msg="handled request" caller=\S+ trace_id=[0-9a-f]{32} remote=\S+ method=[A-Z]+ path="(?:[^"\\]|\\.)*" status=\d{3}( size=\d+)? duration=[0-9.e-]+ ua="(?:[^"\\]|\\.)*"( err="(?:[^"\\]|\\.)*")?( retry)?\r?$`)
)

var upstreamList = regexp.MustCompile(`(?:\d|-), (?:\d|-)[^"]*$`)

func worldOracle(format, line string) bool {
	if format != "combined" {
		return oracleBy(map[string]*regexp.Regexp{FormatApacheTimed: worldTimed, FormatNginx: worldNginx, FormatLogfmt: worldLogfmt}, format, line)
	}
	if !worldCombined.MatchString(line) {
		return false
	}
	at := strings.IndexByte(line, '[')
	_, err := time.Parse(clf, line[at+1:at+27])
	return err == nil
}

// With Realistic every format's lines are still well formed but for the
// malformed ones, and carry the world's hard cases in their shares: long
// agents and referers, non-ASCII written as each server escapes it, quotes
// inside fields, nginx's upstream lists, logfmt's service keys.
func TestRealisticLinesCarryTheWorldsHardCasesAndStayWellFormed(t *testing.T) {
	for _, f := range []string{"combined", FormatApacheTimed, FormatNginx, FormatJSON, FormatLogfmt} {
		g, err := New(Config{Seed: 7, Malformed: 0.01, Format: f, Realistic: true})
		if err != nil {
			t.Fatal(err)
		}
		var good, bad, long, nonASCII, quoted, lists, redirects, v6 int
		var buf []byte
		const n = 20000
		for range n {
			before := g.Malformed()
			buf = g.Next(buf[:0])
			line := strings.TrimSuffix(strings.TrimSuffix(string(buf), "\n"), "\r")
			ok := worldOracle(f, line)
			if malformed := g.Malformed() > before; malformed == ok {
				t.Fatalf("%s: malformed %v, oracle accepts %v: %q", f, malformed, ok, line)
			}
			if !ok {
				bad++
				continue
			}
			good++
			if len(line) > 400 {
				long++
			}
			if strings.Contains(line, `\x`) || strings.Contains(line, `\u`) || strings.ContainsFunc(line, func(r rune) bool { return r > 0x7f }) {
				nonASCII++
			}
			if strings.Contains(line, `\"`) || strings.Contains(line, `\x22`) {
				quoted++
			}
			if strings.Contains(line, "2001:db8:") {
				v6++
			}
			if f == FormatNginx && upstreamList.MatchString(line) {
				lists++
			}
			if f == FormatNginx && strings.Contains(line[len(line)-20:], " : ") {
				redirects++
			}
		}
		share := func(k int) float64 { return float64(k) / float64(good) }
		if bad < n/200 || share(long) < 0.02 || share(nonASCII) < 0.05 || share(quoted) < 0.02 || share(v6) < 0.1 {
			t.Errorf("%s: %d good, %d malformed; shares: long %.3f, non-ASCII %.3f, quoted %.3f, IPv6 %.3f", f, good, bad, share(long), share(nonASCII), share(quoted), share(v6))
		}
		if f == FormatNginx && (share(lists) < 0.02 || redirects < n/200) {
			t.Errorf("nginx: upstream lists in %.3f of lines, %d internal redirects", share(lists), redirects)
		}
	}
}

// Realistic is a mode: without it every format writes what it wrote
// before (TestTheDefaultOutputKeepsItsBytes holds the combined log's hash).
func TestRealisticChangesTheLinesOnlyWhenAsked(t *testing.T) {
	for _, f := range []string{FormatNginx, FormatLogfmt} {
		plain := strings.Join(lines(t, Config{N: 2000, Seed: 2, Format: f}), "\n")
		real := strings.Join(lines(t, Config{N: 2000, Seed: 2, Format: f, Realistic: true}), "\n")
		if plain == real || strings.Contains(plain, "trace_id=") || strings.Contains(plain, "Café") {
			t.Errorf("%s: the realistic mode is not a mode", f)
		}
	}
}
