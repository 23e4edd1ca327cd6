package synth

import (
	"bytes"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// combined is an independent oracle for an Apache combined line: host,
// ident, user, [CLF time], "request", status, bytes or -, "referer",
// "agent" (where \" may appear inside quotes).
var combined = regexp.MustCompile(`^(\S+) (\S+) (\S+) \[(\d{2}/[A-Z][a-z]{2}/\d{4}:\d{2}:\d{2}:\d{2} [+-]\d{4})\] "([A-Z]+) (\S+) (HTTP/[0-9.]+)" (\d{3}) (\d+|-) "((?:[^"\\]|\\.)*)" "((?:[^"\\]|\\.)*)"$`)

const clf = "02/Jan/2006:15:04:05 -0700"

// lines generates c.N lines and returns them without their '\n'.
func lines(t testing.TB, c Config) []string {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, c); err != nil {
		t.Fatal(err)
	}
	if b.Len() > 0 && b.Bytes()[b.Len()-1] != '\n' {
		t.Fatalf("output does not end with a newline")
	}
	return strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
}

// wellFormed returns the line's time and status when the oracle accepts it.
func wellFormed(line string) (time.Time, int, bool) {
	m := combined.FindStringSubmatch(line)
	if m == nil {
		return time.Time{}, 0, false
	}
	ts, err := time.Parse(clf, m[4])
	if err != nil {
		return time.Time{}, 0, false
	}
	status, _ := strconv.Atoi(m[8])
	return ts, status, true
}

func TestSameSeedGivesSameBytesAndAnotherSeedDiffers(t *testing.T) {
	c := Config{Seed: 7, N: 5000, Jitter: 2 * time.Second, Malformed: 0.05}
	a, b := lines(t, c), lines(t, c)
	if strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Fatal("two runs with seed 7 differ")
	}
	c.Seed = 8
	if strings.Join(a, "\n") == strings.Join(lines(t, c), "\n") {
		t.Fatal("seeds 7 and 8 give the same lines")
	}
}

func TestWriteWritesExactlyNLinesEachEndingInNewline(t *testing.T) {
	for _, n := range []int{0, 1, 999, 10007} {
		var b bytes.Buffer
		if err := Write(&b, Config{N: n, Malformed: 0.2}); err != nil {
			t.Fatal(err)
		}
		if got := bytes.Count(b.Bytes(), []byte{'\n'}); got != n {
			t.Errorf("N=%d: wrote %d lines", n, got)
		}
		if n > 0 && b.Bytes()[b.Len()-1] != '\n' {
			t.Errorf("N=%d: the last line has no newline", n)
		}
	}
}

func TestEveryLineThatIsNotMalformedIsWellFormedCombined(t *testing.T) {
	ls := lines(t, Config{Seed: 3, N: 50000})
	var total int
	var v6, quoted, dash, users, queries, zones int
	for i, l := range ls {
		total += len(l) + 1
		if _, _, ok := wellFormed(l); !ok {
			t.Fatalf("line %d is not Apache combined: %q", i+1, l)
		}
		m := combined.FindStringSubmatch(l)
		count := func(n *int, cond bool) {
			if cond {
				*n++
			}
		}
		count(&v6, strings.Contains(m[1], ":"))
		count(&users, m[3] != "-")
		count(&zones, !strings.HasSuffix(m[4], "+0000"))
		count(&queries, strings.Contains(m[6], "?"))
		count(&dash, m[9] == "-")
		count(&quoted, strings.Contains(m[11], `\"`))
	}
	// Variety the scenarios rely on: each kind on at least 1% of lines.
	for name, n := range map[string]int{"IPv6 hosts": v6, "users": users, "zones": zones, "query strings": queries, "- bytes": dash, `agents with \"`: quoted} {
		if n < len(ls)/100 {
			t.Errorf("%s on only %d of %d lines", name, n, len(ls))
		}
	}
	if avg := total / len(ls); avg < 150 || avg > 260 {
		t.Errorf("average line is %d bytes; want about 200", avg)
	}
}

func TestMalformedFractionIsRoughlyRightAndTheOracleRejectsThem(t *testing.T) {
	const n, frac = 40000, 0.1
	g, err := New(Config{Seed: 11, Malformed: frac})
	if err != nil {
		t.Fatal(err)
	}
	var bad int
	var line []byte
	for range n {
		before := g.Malformed()
		line = g.Next(line[:0])
		_, _, ok := wellFormed(string(line[:len(line)-1]))
		if g.Malformed() > before {
			bad++
			if ok {
				t.Fatalf("a malformed line parses: %q", line)
			}
		} else if !ok {
			t.Fatalf("a line not counted malformed does not parse: %q", line)
		}
		if bytes.IndexByte(line, '\n') != len(line)-1 {
			t.Fatalf("line has a newline before its end: %q", line)
		}
	}
	// 4000 expected; the binomial sd is 60, so ±300 is a 5-sigma band.
	if math.Abs(float64(bad)-n*frac) > 300 {
		t.Errorf("%d malformed of %d; want about %d", bad, n, int(n*frac))
	}
}

func TestNoStampLiesMoreThanJitterBeforeAnEarlierOne(t *testing.T) {
	for _, j := range []time.Duration{0, time.Second, 5 * time.Second} {
		ls := lines(t, Config{Seed: 5, N: 20000, Rate: 50, Jitter: j})
		var newest time.Time
		var back bool
		for i, l := range ls {
			ts, _, ok := wellFormed(l)
			if !ok {
				t.Fatalf("line %d does not parse: %q", i+1, l)
			}
			if ts.Before(DefaultStart) {
				t.Fatalf("jitter %v: line %d at %v is before the start", j, i+1, ts)
			}
			if ts.Before(newest.Add(-j)) {
				t.Fatalf("jitter %v: line %d at %v is more than %v before %v", j, i+1, ts, j, newest)
			}
			back = back || ts.Before(newest)
			if ts.After(newest) {
				newest = ts
			}
		}
		if back != (j > 0) {
			t.Errorf("jitter %v: times went backwards: %v", j, back)
		}
	}
}

func TestSteadyRatePutsExactCountsInEachWindow(t *testing.T) {
	ls := lines(t, Config{N: 512 * 4, Rate: 51.2, Steady: true, Statuses: []int{200}})
	perWindow := map[int64]int{}
	for _, l := range ls {
		ts, status, ok := wellFormed(l)
		if !ok || status != 200 {
			t.Fatalf("want a 200 line: %q", l)
		}
		perWindow[ts.Unix()/10*10]++
	}
	start := DefaultStart.Unix()
	for w := range int64(4) {
		if got := perWindow[start+10*w]; got != 512 {
			t.Errorf("window %d holds %d lines; want 512", w, got)
		}
	}
}

func TestPathsBoundsTheDistinctPathValues(t *testing.T) {
	for _, p := range []int{1, 200, 5000} {
		seen := map[string]bool{}
		for _, l := range lines(t, Config{N: 30000, Paths: p}) {
			seen[combined.FindStringSubmatch(l)[6]] = true
		}
		if len(seen) > p || len(seen) < p/2 {
			t.Errorf("-paths %d gave %d distinct paths", p, len(seen))
		}
	}
}

func TestBadConfigIsRefusedWithTheFlagNamed(t *testing.T) {
	for _, tc := range []struct {
		c    Config
		want string
	}{
		{Config{N: -1}, "--lines"},
		{Config{Rate: -3}, "-rate"},
		{Config{Rate: math.NaN()}, "-rate"},
		{Config{Jitter: -time.Second}, "-jitter"},
		{Config{Jitter: 1500 * time.Millisecond}, "--jitter 1.5s is not a whole number of seconds"},
		{Config{Malformed: 1.5}, "-malformed"},
		{Config{Paths: -1}, "-paths"},
		{Config{Statuses: []int{42}}, "status 42"},
	} {
		_, err := New(tc.c)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "tgsynth: ") {
			t.Errorf("%+v: got %v; want an error naming %s", tc.c, err, tc.want)
		}
	}
}

func TestCommandLineWritesTheSameLinesAsWrite(t *testing.T) {
	var out, errs bytes.Buffer
	code := run(strings.Fields("-n 300 -seed 9 -start 2026-01-02T03:04:05Z -rate 7 -jitter 2s -statuses 200,404"), &out, &errs)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	var want bytes.Buffer
	c := Config{N: 300, Seed: 9, Start: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Rate: 7, Jitter: 2 * time.Second, Statuses: []int{200, 404}}
	if err := Write(&want, c); err != nil {
		t.Fatal(err)
	}
	if out.String() != want.String() {
		t.Fatal("the command line and Write disagree")
	}
}

func TestCommandLineRefusesBadFlagsWithStatus2(t *testing.T) {
	for _, args := range []string{"-start yesterday", "-statuses 200,x", "-rate 0x", "-n 5 extra", "-malformed 2", "-jitter 0.5s"} {
		var out, errs bytes.Buffer
		if code := run(strings.Fields(args), &out, &errs); code != 2 {
			t.Errorf("%s: exit %d; want 2", args, code)
		}
		if errs.Len() == 0 || out.Len() > 0 {
			t.Errorf("%s: want a message on stderr only; stderr %q stdout %q", args, errs.String(), out.String())
		}
	}
}

func TestAJitterOfAFractionOfASecondIsRefusedNamingWholeSeconds(t *testing.T) {
	var out, errs bytes.Buffer
	code := run(strings.Fields("-n 5 --jitter 0.5s"), &out, &errs)
	if code != 2 || out.Len() > 0 || !strings.Contains(errs.String(), "give --jitter 0s or 1s") {
		t.Errorf("exit %d, stdout %q, stderr %q; want 2 and the fix on stderr", code, out.String(), errs.String())
	}
}

func BenchmarkGenerate(b *testing.B) {
	g, err := New(Config{Jitter: 2 * time.Second, Malformed: 0.01})
	if err != nil {
		b.Fatal(err)
	}
	line := make([]byte, 0, 1024)
	var n int64
	b.ReportAllocs()
	for b.Loop() {
		line = g.Next(line[:0])
		n += int64(len(line))
	}
	b.SetBytes(n / int64(b.N))
}

func BenchmarkWrite(b *testing.B) {
	const n = 100000
	b.ReportAllocs()
	for b.Loop() {
		if err := Write(io.Discard, Config{N: n}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "lines/s")
}
