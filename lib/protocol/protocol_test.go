package protocol

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
)

func TestEveryHeaderKindParsesBackFromItsFormat(t *testing.T) {
	for _, tc := range []struct {
		line []byte
		want Header
	}{
		{AppendHello(nil, 0), Header{Kind: KindHello, V: "1"}},
		{AppendHello(nil, 786432), Header{Kind: KindHello, V: "1", Window: 786432}},
		{AppendStore(nil, "web1", 186350), Header{Kind: KindStore, ID: "web1", Offset: 186350}},
		{AppendStoreFrom(nil, "web1", 186350, Gen{Known: true, Base: 100, Sig: 0x30d022ed, SigLen: 256}, FromCursor),
			Header{Kind: KindStore, ID: "web1", Offset: 186350, Gen: Gen{Known: true, Base: 100, Sig: 0x30d022ed, SigLen: 256}, From: "cursor"}},
		{AppendBatch(nil, "web1", 10, 20, 3), Header{Kind: KindBatch, ID: "web1", Offset: 10, End: 20, Entries: 3}},
		{AppendSkip(nil, "web1", 20, 2000, "too-long"), Header{Kind: KindSkip, ID: "web1", Offset: 20, End: 2000, Reason: "too-long"}},
		{AppendIdle(nil, "a.b_c-9", 1500), Header{Kind: KindIdle, ID: "a.b_c-9", QuietMS: 1500}},
		{AppendEnd(nil, "web1"), Header{Kind: KindEnd, ID: "web1"}},
	} {
		if tc.line[len(tc.line)-1] != '\n' {
			t.Fatalf("%q does not end in a newline", tc.line)
		}
		got, err := ParseHeader(tc.line[:len(tc.line)-1])
		if err != nil || got != tc.want {
			t.Errorf("ParseHeader(%q) = %+v, %v; want %+v", tc.line, got, err, tc.want)
		}
	}
}

// A store line's generation is all three keys or none: a line that says
// half of it cannot be compared with what the consumer holds.
func TestAStoreLinesGenerationIsAllOrNothing(t *testing.T) {
	for _, line := range []string{
		"store id=a offset=0 gen=0",
		"store id=a offset=0 gen=0 sig=30d022ed",
		"store id=a offset=0 gen=0 sig=30d0 siglen=4",
		"store id=a offset=0 gen=0 sig=30d022ed siglen=257",
		"store id=a offset=0 from=",
	} {
		if h, err := ParseHeader([]byte(line)); err == nil {
			t.Errorf("%q parsed to %+v", line, h)
		}
	}
	h, err := ParseHeader([]byte("store id=a offset=7"))
	if err != nil || h.Gen.Known || h.From != "" {
		t.Errorf("a store line of an older feed: %+v, %v; want no generation and no from", h, err)
	}
}

func TestReportsParseBackAndTakenDefaultsToOffset(t *testing.T) {
	for _, tc := range []struct {
		line string
		want Report
	}{
		{"progress id=web1 offset=5", Report{ID: "web1", Offset: 5, Taken: 5}},
		{"progress id=web1 offset=5 taken=9", Report{ID: "web1", Offset: 5, Taken: 9}},
		{"progress taken=9 offset=5 id=web1", Report{ID: "web1", Offset: 5, Taken: 9}},
		{"progress id=web1 offset=0 future=yes", Report{ID: "web1"}},
		{"progress id=web1 offset=5 taken=9 window=4096", Report{ID: "web1", Offset: 5, Taken: 9, Window: 4096}},
		{"progress id=web1 offset=5 window=4096", Report{ID: "web1", Offset: 5, Taken: 5, Window: 4096}},
	} {
		got, err := ParseReport([]byte(tc.line))
		if err != nil || got != tc.want {
			t.Errorf("ParseReport(%q) = %+v, %v; want %+v", tc.line, got, err, tc.want)
		}
		back := AppendReport(nil, got)
		if again, err := ParseReport(back[:len(back)-1]); err != nil || again != got {
			t.Errorf("AppendReport(%+v) = %q does not parse back", got, back)
		}
	}
}

func TestTheHelloOffersAWindowOnlyWhenThereIsOne(t *testing.T) {
	if got := string(AppendHello(nil, 0)); got != "feed v=1\n" {
		t.Fatalf("AppendHello without a window = %q, want the plain hello", got)
	}
	if got := string(AppendHello(nil, 786432)); got != "feed v=1 window=786432\n" {
		t.Fatalf("AppendHello = %q, want window= after v=", got)
	}
}

func TestAMalformedWindowIsRefusedWithTheLine(t *testing.T) {
	for _, line := range []string{"progress id=web1 offset=5 window=-1", "progress id=web1 offset=5 window=", "feed v=1 window=1e6"} {
		_, rerr := ParseReport([]byte(line))
		_, herr := ParseHeader([]byte(line))
		err := rerr
		if strings.HasPrefix(line, "feed") {
			err = herr
		}
		if err == nil || !strings.Contains(err.Error(), line) || !strings.Contains(err.Error(), "window=") {
			t.Errorf("%q: err = %v, want a refusal naming the line and window=", line, err)
		}
	}
}

func TestAppendReportOmitsTakenEqualToOffset(t *testing.T) {
	if got := string(AppendReport(nil, Report{ID: "a", Offset: 7, Taken: 7})); got != "progress id=a offset=7\n" {
		t.Fatalf("AppendReport = %q, want the three-printf line", got)
	}
}

func TestUnknownKindsAreSkippableAndUnknownKeysIgnored(t *testing.T) {
	h, err := ParseHeader([]byte("rotate id=web1 generation=2"))
	if err != nil || h.Kind != KindUnknown {
		t.Fatalf("unknown kind: %+v, %v; want KindUnknown", h, err)
	}
	h, err = ParseHeader([]byte("end id=web1 why=eof"))
	if err != nil || h != (Header{Kind: KindEnd, ID: "web1"}) {
		t.Fatalf("unknown key: %+v, %v; want it ignored", h, err)
	}
}

func TestMalformedReportsAreRefusedQuotingTheLine(t *testing.T) {
	for _, line := range []string{
		"",
		"hello",
		"batch id=a offset=0 end=2 entries=1",
		"progress",
		"progress id=web1",
		"progress offset=5",
		"progress id=web/1 offset=5",
		"progress id= offset=5",
		"progress id=web1 offset=5 taken=4",
		"progress id=web1 offset=5 offset=6",
		"progress id=web1  offset=5",
		" progress id=web1 offset=5",
		"progress id=web1 offset=5 ",
		"progress id=web1 offset",
		"progress id=web1 =5",
		"progress id=web1 offset=5\r",
		"progress id=web1 offset=5" + strings.Repeat(" k=v", 1) + strings.Repeat(" x1=1 x2=2 x3=3 x4=4 x5=5 x6=6 x7=7", 2),
	} {
		_, err := ParseReport([]byte(line))
		if err == nil {
			t.Errorf("ParseReport(%q) succeeded", line)
			continue
		}
		if !strings.Contains(err.Error(), strconv.Quote(line)) {
			t.Errorf("ParseReport(%q): %v does not quote the line", line, err)
		}
	}
}

func TestNumbersHaveOneSpellingAndFit63Bits(t *testing.T) {
	for v, ok := range map[string]bool{
		"0":                    true,
		"9223372036854775807":  true,
		"9223372036854775808":  false,
		"99999999999999999999": false,
		"-1":                   false,
		"+1":                   false,
		"01":                   false,
		"00":                   false,
		"1e3":                  false,
		"0x10":                 false,
		"1_000":                false,
		" 1":                   false,
	} {
		_, err := ParseReport([]byte("progress id=a offset=" + v))
		if (err == nil) != ok {
			t.Errorf("offset=%s: err = %v, want ok=%v", v, err, ok)
		}
	}
}

func TestHeadersAreStrict(t *testing.T) {
	for _, line := range []string{
		"feed",
		"feed v=",
		"store id=web1",
		"store id=web1 offset=-3",
		"batch id=a offset=0 end=2 entries=0",
		"batch id=a offset=0 end=2 entries=3",
		"batch id=a offset=0 end=99999999999 entries=16777217",
		"batch id=a offset=5 end=2 entries=1",
		"skip id=a offset=4 end=4 reason=too-long",
		"skip id=a offset=4 end=9 reason=",
		"skip id=a offset=4 end=9 reason=a=b",
		"idle id=a",
		"idle id=a quiet=01",
		"end",
		"end id=a id=b",
	} {
		if h, err := ParseHeader([]byte(line)); err == nil {
			t.Errorf("ParseHeader(%q) = %+v, want an error", line, h)
		} else if !strings.Contains(err.Error(), line) {
			t.Errorf("ParseHeader(%q): %v does not quote the line", line, err)
		}
	}
}

func TestValidIDAndWord(t *testing.T) {
	if !ValidID("web-1.log_2") || ValidID("") || ValidID("a b") || ValidID("a=b") || ValidID("é") {
		t.Fatal("ValidID accepts or refuses the wrong ids")
	}
	if !ValidWord("too-long") || ValidWord("") || ValidWord("a b") || ValidWord("a=b") || ValidWord("\x7f") {
		t.Fatal("ValidWord accepts or refuses the wrong words")
	}
}

func TestParsedStringsOutliveTheLineTheyCameFrom(t *testing.T) {
	line := []byte("skip id=web1 offset=5 end=9 reason=too-long")
	h, err := ParseHeader(line)
	if err != nil {
		t.Fatal(err)
	}
	report := []byte("progress id=web2 offset=3")
	r, err := ParseReport(report)
	if err != nil {
		t.Fatal(err)
	}
	hello := []byte("feed v=1")
	v, err := ParseHeader(hello)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range [][]byte{line, report, hello} {
		for i := range b {
			b[i] = 'X' // a reused read buffer overwritten by the next line
		}
	}
	if h.ID != "web1" || h.Reason != "too-long" || r.ID != "web2" || v.V != "1" {
		t.Fatalf("parsed strings changed with their line: %q %q %q %q", h.ID, h.Reason, r.ID, v.V)
	}
}

func TestWordsAreSplitAsTheProtocolSplitsAndWantChecksKeysAndOrder(t *testing.T) {
	var w Words
	if err := SplitWords("id=web offset=12 end=30", &w); err != nil || w.Len() != 3 {
		t.Fatalf("%v, %d words", err, w.Len())
	}
	if v, ok := w.Get("offset"); !ok || v != "12" {
		t.Errorf("offset=%q %v", v, ok)
	}
	if err := w.Want("id", "offset", "end"); err != nil {
		t.Error(err)
	}
	for _, keys := range [][]string{{"id", "end", "offset"}, {"id", "offset"}, {"id", "offset", "end", "count"}} {
		if err := w.Want(keys...); err == nil {
			t.Errorf("%q accepted as %q", "id offset end", keys)
		}
	}
	for _, bad := range []string{"id=a  end=1", "id=a end", "=1", "id=a id=b", ""} {
		if err := SplitWords(bad, &w); err == nil {
			t.Errorf("%q split without an error", bad)
		}
	}
	if kind, err := SplitLine([]byte("store id=web offset=0 hist=0:3:ab"), &w); err != nil || kind != "store" || w.Len() != 3 {
		t.Errorf("kind %q, %v, %d words", kind, err, w.Len())
	}
	if n, err := ParseNum("end", "30"); err != nil || n != 30 {
		t.Errorf("%d %v", n, err)
	}
	if _, err := ParseNum("end", "030"); err == nil || err.Error() != `end="030" is not an unsigned decimal number` {
		t.Errorf("030: %v", err)
	}
	if got := string(AppendNum([]byte("batch"), " end=", 30)); got != "batch end=30" {
		t.Errorf("%q", got)
	}
}

func TestTheCursorAndAStoresSpecTravelAsTextAndReadBackExactly(t *testing.T) {
	hello := Header{Kind: KindHello, V: Version, Window: 4096, Cursor: "/srv/my logs/100%.cursor"}
	store := Header{Kind: KindStore, ID: "web", Offset: 7, From: FromCursor, Spec: "web=/srv/my logs/a.log.1,/srv/my logs/a.log"}
	for _, h := range []Header{hello, store} {
		line := AppendHeader(nil, h)
		if bytes.Count(line, []byte(" ")) != bytes.Count(line, []byte("=")) && h.Kind == KindHello {
			t.Errorf("%q: a space inside a value", line)
		}
		got, err := ParseHeader(line[:len(line)-1])
		if err != nil || got != h {
			t.Errorf("%q parsed to %+v, %v; want %+v", line, got, err, h)
		}
	}
	if got := string(AppendHeader(nil, hello)); got != "feed v=1 window=4096 cursor=/srv/my%20logs/100%25.cursor\n" {
		t.Errorf("hello = %q", got)
	}
	if _, err := ParseHeader([]byte("feed v=1 cursor=%zz")); err == nil {
		t.Error("a cursor= that is not AppendText's spelling was taken")
	}
}
