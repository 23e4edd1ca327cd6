package extract

import (
	"testing"
	"time"

	"github.com/timbertally/timbertally/lib/internal/synth"
)

const regexDoc = "format regex ^(?P<ts>\\S+) (?P<level>[A-Z]+)(?: (?P<code>\\d+))? #(?P<msg>.*)$\n" +
	"time ts layout=rfc3339\nwindow 1s\nmetric r count by=level\n"

func TestExtractRegexFieldsAreNamedGroups(t *testing.T) {
	x := newExtractor(t, regexDoc)
	if x.numFields() != 4 || x.Field("ts") != 0 || x.Field("msg") != 3 {
		t.Fatalf("fields %q", x.names)
	}
	var e Entry
	if r := x.Extract([]byte("2026-10-10T13:55:36Z WARN 42 #disk \xff full\r"), &e); r != "" {
		t.Fatalf("Extract = %q", r)
	}
	want := map[string]string{"ts": "2026-10-10T13:55:36Z", "level": "WARN", "code": "42", "msg": "disk \xff full"}
	for k, v := range want {
		if got := string(e.Fields[x.Field(k)]); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	if e.Time != time.Date(2026, 10, 10, 13, 55, 36, 0, time.UTC).UnixNano() {
		t.Errorf("time = %v", time.Unix(0, e.Time).UTC())
	}
}

func TestExtractRegexGroupOutsideTheMatchIsEmpty(t *testing.T) {
	x := newExtractor(t, regexDoc)
	var e Entry
	if r := x.Extract([]byte("2026-10-10T13:55:36Z INFO #ok"), &e); r != "" || len(e.Fields[x.Field("code")]) != 0 {
		t.Errorf("Extract = %q, code %q", r, e.Fields[x.Field("code")])
	}
}

func TestExtractRegexDropsWhatDoesNotMatchOrHasNoTime(t *testing.T) {
	x := newExtractor(t, regexDoc)
	var e Entry
	for line, want := range map[string]string{
		"":                             ReasonFormat,
		"2026-10-10T13:55:36Z warn #x": ReasonFormat,
		"yesterday INFO #x":            ReasonTime,
	} {
		if r := x.Extract([]byte(line), &e); r != want {
			t.Errorf("Extract(%q) = %q, want %q", line, r, want)
		}
	}
}

// combinedRegex is the Apache combined log as a user writes it for format
// regex, with a plain group for the method's alternation.
const combinedRegex = `format regex ^(?P<host>\S+) \S+ (?P<user>\S+) \[(?P<time>[^\]]+)\] "(GET|POST|HEAD|PUT|DELETE|OPTIONS|PATCH|-) ?(?P<path>\S*) ?(\S*)" (?P<status>\d{3}) (?P<bytes>\d+|-) "((?:[^"\\]|\\.)*)" "((?:[^"\\]|\\.)*)"$` +
	"\ntime time layout=clf\nwindow 10s\nmetric r count by=status\nmetric b sum=bytes by=status\n"

// BenchmarkExtractRegex extracts generated combined lines with
// combinedRegex.
func BenchmarkExtractRegex(b *testing.B) {
	g, err := synth.New(synth.Config{Seed: 1, N: 4096})
	if err != nil {
		b.Fatal(err)
	}
	var lines [][]byte
	for range 4096 {
		l := g.Next(nil)
		lines = append(lines, l[:len(l)-1])
	}
	x := newExtractor(b, combinedRegex)
	var e Entry
	b.ReportAllocs()
	i, dropped := 0, 0
	for b.Loop() {
		if x.Extract(lines[i], &e) != "" {
			dropped++
		}
		if i++; i == len(lines) {
			i = 0
		}
	}
	if dropped > b.N/10 {
		b.Fatalf("%d of %d dropped", dropped, b.N)
	}
}
