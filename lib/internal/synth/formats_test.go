package synth

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The default output is the bytes it always was: benchmarks and
// scenarios depend on them (the hash is of main's output before the other
// formats were added).
func TestTheDefaultOutputKeepsItsBytes(t *testing.T) {
	var sum [32]byte
	for _, f := range []string{"", "combined"} {
		ls := lines(t, Config{N: 20000, Seed: 1, Jitter: 3e9, Malformed: 0.01, Format: f})
		sum = sha256.Sum256([]byte(strings.Join(ls, "\n") + "\n"))
		if got := fmt.Sprintf("%x", sum); got != "ea64d194bcaa6ab7093b7962b4884205f7072b556577e82b49b5ed32a9865a5c" {
			t.Errorf("format %q: sha256 %s; the default output changed", f, got)
		}
	}
}

// Independent oracles for the other formats, line by line.
var (
	apacheTimed = regexp.MustCompile(`^(\S+) - (\S+) \[[^\]]+\] "[A-Z]+ \S+ HTTP/[0-9.]+" (\d{3}) (\d+|-) "(?:[^"\\]|\\.)*" "(?:[^"\\]|\\.)*" (\d+) (\S+) "([^"]*)"\r?$`)
	nginx       = regexp.MustCompile(`^(\S+) - (\S+) \[[^\]]+\] "[A-Z]+ \S+ HTTP/[0-9.]+" (\d{3}) (\d+) "[^"]*" "[^"]*" (\d+\.\d{3}) (-|(?:\d+\.\d{3}|-)(?:, (?:\d+\.\d{3}|-))*)\r?$`)
	logfmtLine  = regexp.MustCompile(`^ts=\S+ level=info msg="handled request" method=[A-Z]+ path="[^"]*" status=\d{3}( size=\d+)? duration=[0-9.e-]+ ua="(?:[^"\\]|\\.)*"( retry)?\r?$`)
)

func TestEachFormatWritesWellFormedLinesAndMalformedOnesThatAreNot(t *testing.T) {
	for _, f := range []string{FormatApacheTimed, FormatNginx, FormatJSON, FormatLogfmt} {
		g, err := New(Config{Seed: 7, Malformed: 0.05, Format: f})
		if err != nil {
			t.Fatal(err)
		}
		var good, bad, crlf int
		var buf []byte
		for range 5000 {
			before := g.Malformed()
			buf = g.Next(buf[:0])
			line := strings.TrimSuffix(string(buf), "\n")
			if strings.HasSuffix(line, "\r") {
				crlf++
			}
			ok := oracle(f, strings.TrimSuffix(line, "\r"))
			if malformed := g.Malformed() > before; malformed == ok {
				t.Fatalf("%s: malformed %v, oracle accepts %v: %q", f, malformed, ok, line)
			} else if ok {
				good++
			} else {
				bad++
			}
		}
		if bad < 150 || crlf < 40 {
			t.Errorf("%s: %d good, %d malformed, %d CRLF lines", f, good, bad, crlf)
		}
	}
}

func oracle(format, line string) bool {
	return oracleBy(map[string]*regexp.Regexp{FormatApacheTimed: apacheTimed, FormatNginx: nginx, FormatLogfmt: logfmtLine}, format, line)
}

// oracleBy reads line by the format's expression in res, a JSON line as
// encoding/json does.
func oracleBy(res map[string]*regexp.Regexp, format, line string) bool {
	if re, ok := res[format]; ok {
		return re.MatchString(line)
	}
	var m map[string]any
	return json.Unmarshal([]byte(line), &m) == nil && m["ts"] != nil
}

// Durations are log-normal with a long tail: most requests near 20 ms, one
// in a few hundred far slower, as latency histograms need.
func TestDurationsHaveALongTail(t *testing.T) {
	ls := lines(t, Config{N: 20000, Seed: 3, Format: FormatApacheTimed})
	var us []float64
	for _, l := range ls {
		m := apacheTimed.FindStringSubmatch(l)
		v, _ := strconv.ParseFloat(m[5], 64)
		us = append(us, v)
	}
	slices.Sort(us)
	p50, p99, top := us[len(us)/2], us[len(us)*99/100], us[len(us)-1]
	if p50 < 10000 || p50 > 40000 || p99 < 3*p50 || top < 30*p50 {
		t.Errorf("durations: p50 %v µs, p99 %v, max %v; want p50 near 20 ms and a long tail", p50, p99, top)
	}
}

func TestAnUnknownFormatIsRefusedWithTheChoices(t *testing.T) {
	if _, err := New(Config{Format: "yaml"}); err == nil || !strings.Contains(err.Error(), `-format "yaml" is not one of [combined apache-timed nginx json logfmt]`) {
		t.Errorf("New(yaml) = %v", err)
	}
}
