package tape

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

const t0 = int64(1791640530) * int64(time.Second) // 2026-10-10T13:55:30Z

func everyKind() []Record {
	return []Record{
		{Kind: Series, Start: t0, Metric: "requests", Labels: []Label{{"status", "200"}}, Value: 431},
		{Kind: Series, Start: t0, Metric: "requests", Value: 431},
		{Kind: Series, Start: t0 + 250*int64(time.Millisecond), Metric: "bytes", Labels: []Label{{"status", "200"}, {"method", "GET"}}, Value: 0.25},
		{Kind: Series, Start: t0, Metric: "low", Value: -3},
		{Kind: Seal, Start: t0, Width: 10 * time.Second, Entries: 443, At: []Pos{{"web1", 186350}, {"web.2_x-y", 0}}},
		{Kind: Seal, Start: t0, Width: 250 * time.Millisecond, Entries: 0},
		{Kind: Late, Start: t0 - 10*int64(time.Second), ID: "web1", Offset: 190210, End: 190900, Count: 3},
		{Kind: Drop, ID: "web1", Offset: 200111, End: 200300, Count: 1, Reason: "no-time"},
		{Kind: Cap, Start: t0, Metric: "requests", ID: "web1", Offset: 190000, End: 190210, Count: 17},
		{Kind: End, At: []Pos{{"web1", 98709338}}},
		{Kind: End},
	}
}

func TestParseReadsBackEveryKindAppendWrites(t *testing.T) {
	for _, r := range everyKind() {
		line := Append(nil, &r)
		got, err := Parse(line[:len(line)-1])
		if err != nil {
			t.Fatalf("Parse(%q): %v", line, err)
		}
		if !reflect.DeepEqual(got, r) {
			t.Errorf("Parse(%q) = %+v, want %+v", line, got, r)
		}
	}
}

func TestAppendWritesTheSpecSpelling(t *testing.T) {
	want := []string{
		`2026-10-10T13:55:30Z requests{status="200"} 431`,
		`2026-10-10T13:55:30Z requests 431`,
		`2026-10-10T13:55:30.25Z bytes{status="200",method="GET"} 0.25`,
		`2026-10-10T13:55:30Z low -3`,
		`seal 2026-10-10T13:55:30Z width=10s entries=443 at=web1:186350,web.2_x-y:0`,
		`seal 2026-10-10T13:55:30Z width=250ms entries=0`,
		`!late 2026-10-10T13:55:20Z id=web1 offset=190210 end=190900 count=3`,
		`!drop id=web1 offset=200111 end=200300 count=1 reason=no-time`,
		`!cap 2026-10-10T13:55:30Z metric=requests id=web1 offset=190000 end=190210 count=17`,
		`end at=web1:98709338`,
		`end`,
	}
	for i, r := range everyKind() {
		if got := string(Append(nil, &r)); got != want[i]+"\n" {
			t.Errorf("Append = %q, want %q", got, want[i])
		}
	}
}

// hostile are label values a log line can carry; each must stay inside one
// tape line and read back byte for byte.
var hostile = []string{
	`"`, `\`, `\"`, "a\nb", `}`, `"} 1` + "\n" + `!late 2026-10-10T13:55:20Z id=w offset=0 end=9 count=1`,
	"!late", "\x00", "\xff\xfe", "caf\xc3\xa9", "\xc3", `\x41`, "tab\there\r", " ", "",
	`a="b",c="d"`, strings.Repeat("x\"\\\n\xff", 1<<18), // 1.25 MiB
}

func TestHostileLabelValuesStayOneLineAndReadBackExactly(t *testing.T) {
	for _, v := range hostile {
		r := Record{Kind: Series, Start: t0, Metric: "requests", Labels: []Label{{"path", v}, {"agent", v}}, Value: 1}
		line := Append(nil, &r)
		if bytes.IndexByte(line, '\n') != len(line)-1 {
			t.Fatalf("value %.40q broke the line: %.80q", v, line)
		}
		got, err := Parse(line[:len(line)-1])
		if err != nil {
			t.Fatalf("value %.40q: %v", v, err)
		}
		if !reflect.DeepEqual(got, r) {
			t.Errorf("value %.40q read back as %.40q", v, got.Labels[0].Value)
		}
	}
}

func TestParseRefusesWhatTheTapeNeverSpells(t *testing.T) {
	bad := []string{
		``,
		`2026-10-10T13:55:30Z requests`,
		`2026-10-10 requests 1`,
		`2026-13-10T13:55:30Z requests 1`,
		`0001-01-01T00:00:00Z requests 1`, // before what int64 ns can hold
		`2026-10-10T13:55:30Z requests NaN`,
		`2026-10-10T13:55:30Z requests +Inf`,
		`2026-10-10T13:55:30Z requests 0x10`,
		`2026-10-10T13:55:30Z requests 1e400`,
		`2026-10-10T13:55:30Z 9requests 1`,
		`2026-10-10T13:55:30Z requests{status=200} 1`,
		`2026-10-10T13:55:30Z requests{status="200",status="201"} 1`, // one series, two values for a label
		`2026-10-10T13:55:30Z requests{status="200" 1`,
		`2026-10-10T13:55:30Z requests{status="200"}x 1`,
		`2026-10-10T13:55:30Z requests{1x="200"} 1`,
		`2026-10-10T13:55:30Z requests{s="\q"} 1`,
		`2026-10-10T13:55:30Z requests{s="\xzz"} 1`,
		`2026-10-10T13:55:30Z requests{s="\x4"} 1`,
		`2026-10-10T13:55:30Z requests{} 1`,
		`seal 2026-10-10T13:55:30Z entries=443 width=10s`,
		`seal 2026-10-10T13:55:30Z width=10s entries=443 at=web1:1 extra=1`,
		`seal 2026-10-10T13:55:30Z width=0s entries=443`,
		`seal 2026-10-10T13:55:30Z width=10s entries=-1`,
		`seal 2026-10-10T13:55:30Z width=10s entries=+1`,
		`seal 2026-10-10T13:55:30Z width=10s entries=01`,
		`seal 2026-10-10T13:55:30Z width=10s entries=9223372036854775808`,
		`seal 2026-10-10T13:55:30Z width=10s entries=1 at=`,
		`seal 2026-10-10T13:55:30Z width=10s entries=1 at=web1`,
		`seal 2026-10-10T13:55:30Z width=10s entries=1 at=we/b:1`,
		`!late 2026-10-10T13:55:20Z offset=1 id=web1 end=9 count=1`,
		`!late 2026-10-10T13:55:20Z id=web1 offset=9 end=9 count=1`,
		`!late 2026-10-10T13:55:20Z id=web1 offset=1 end=3 count=3`,
		`!late 2026-10-10T13:55:20Z id=web1 offset=1 end=3 count=0`,
		`!late id=web1 offset=1 end=3 count=1`,
		`!drop id=web1 offset=1 end=3 count=1`,
		`!drop id=web1 offset=1 end=3 count=1 reason=`,
		"!drop id=web1 offset=1 end=3 count=1 reason=\n",
		"!drop id=web1 offset=1 end=3 count=1 reason=a\tb",
		"!drop id=web1 offset=1 end=3 count=1 reason=\xff",
		`!cap 2026-10-10T13:55:30Z metric=9x id=web1 offset=1 end=3 count=1`,
		`end `,
		`end at=web1:1 at=web1:2`,
		`ending`,
	}
	for _, line := range bad {
		if r, err := Parse([]byte(line)); err == nil {
			t.Errorf("Parse(%q) = %+v, want an error", line, r)
		}
	}
}

func TestParseErrorQuotesOnlyTheStartOfAHugeLine(t *testing.T) {
	line := `2026-10-10T13:55:30Z requests{s="` + strings.Repeat("x", 1<<20)
	_, err := Parse([]byte(line))
	if err == nil || len(err.Error()) > 400 {
		t.Fatalf("error of %d bytes: %.100v", len(err.Error()), err)
	}
}

func FuzzParse(f *testing.F) {
	for _, r := range everyKind() {
		line := Append(nil, &r)
		f.Add(line[:len(line)-1])
	}
	for _, v := range hostile[:len(hostile)-1] {
		r := Record{Kind: Series, Start: t0, Metric: "m", Labels: []Label{{"v", v}}, Value: 1}
		line := Append(nil, &r)
		f.Add(line[:len(line)-1])
	}
	f.Add([]byte(`2026-10-10T13:55:30+02:00 m{v="\x41\xc3\xa9"} 1e3`))
	f.Fuzz(func(t *testing.T, line []byte) {
		r, err := Parse(line)
		if err != nil {
			return
		}
		again := Append(nil, &r)
		if bytes.IndexByte(again, '\n') != len(again)-1 {
			t.Fatalf("%q re-formats to more than one line: %q", line, again)
		}
		r2, err := Parse(again[:len(again)-1])
		if err != nil {
			t.Fatalf("%q re-formats to %q, which does not parse: %v", line, again, err)
		}
		if !reflect.DeepEqual(r, r2) {
			t.Fatalf("%q re-formats to %q, which parses to %+v, not %+v", line, again, r2, r)
		}
	})
}

func TestOnlyAWellFormedLineOfAnUnknownKindIsAnUnknownKindAndTheRestIsDamage(t *testing.T) {
	for line, later := range map[string]bool{
		"identity id=web dev=1 ino=2":       true,
		"!mark at=web:5 why=":               true,
		"garbage here":                      false,
		"garbage":                           false,
		"\x00\x00\x00\x00":                  false,
		"ident\x00ity id=web":               false,
		"identity id=web\x00":               false,
		"identity id=web  dev=1":            false,
		"Identity id=web":                   false,
		"identity Id=web":                   false,
		"identity =web":                     false,
		"seal id=web":                       false,
		"!drop id=web offset=1":             false,
		"2026-12-01T10:35:30Z requests x=1": false,
	} {
		_, err := Parse([]byte(line))
		if err == nil || errors.Is(err, ErrUnknownKind) != later {
			t.Errorf("%q: %v, want an unknown kind %v", line, err, later)
		}
	}
}

// A damaged line that starts with a kind word (a later kind's line with a
// trailing space, a CR, a tab, an uppercase key) is no series line, so its
// error says why it is not a later kind's record rather than that its
// first word is not a time.
func TestALineStartingWithAKindWordSaysWhyItIsNoLaterKindsRecord(t *testing.T) {
	for _, line := range []string{"identity id=web ", "identity id=web\r", "identity\tid=web", "identity Id=web", "identity id=web  dev=1", "identity", "garbage here"} {
		_, err := Parse([]byte(line))
		if err == nil || strings.Contains(err.Error(), "RFC 3339") || !strings.Contains(err.Error(), "key=value words one space apart") {
			t.Errorf("%q: %v; want it to say a kind word is followed by key=value words one space apart", line, err)
		}
	}
	if _, err := Parse([]byte("2026-13-01T10:35:30Z requests 1")); err == nil || !strings.Contains(err.Error(), "RFC 3339") {
		t.Errorf("a series line with a bad time: %v", err)
	}
}
