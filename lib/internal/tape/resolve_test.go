package tape

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

const sample = `2026-10-10T13:55:30Z requests{status="200"} 431
2026-10-10T13:55:30Z requests{status="404"} 12
2026-10-10T13:55:30Z bytes{status="200"} 1234567
seal 2026-10-10T13:55:30Z width=10s entries=443 at=web1:186350
!late 2026-10-10T13:55:20Z id=web1 offset=190210 end=190900 count=3
2026-10-10T13:55:40Z requests{status="200"} 512
2026-10-10T13:55:40Z requests{status="200"} 1024
2026-10-10T13:55:40Z requests{status="\x32\x30\x30"} 1024
!cap 2026-10-10T13:55:40Z metric=bytes id=web1 offset=190000 end=190210 count=17
seal 2026-10-10T13:55:40Z width=10s entries=1041 at=web1:200000
!drop id=web1 offset=200111 end=200300 count=1 reason=no-time
end at=web1:200300
`

func resolve(t *testing.T, tape string, opt Options) *Resolved {
	t.Helper()
	res, err := Resolve(strings.NewReader(tape), opt)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func points(res *Resolved) string {
	var b strings.Builder
	for _, p := range res.Points {
		fmt.Fprintf(&b, "%s %s %v @%d\n", AppendTime(nil, p.Start), p.Series.Text, p.Value, p.Line)
	}
	return b.String()
}

func TestResolveKeepsTheLastLineOfEachPairAndReportsDuplicates(t *testing.T) {
	res := resolve(t, sample, Options{})
	want := `2026-10-10T13:55:30Z bytes{status="200"} 1.234567e+06 @3
2026-10-10T13:55:30Z requests{status="200"} 431 @1
2026-10-10T13:55:30Z requests{status="404"} 12 @2
2026-10-10T13:55:40Z requests{status="200"} 1024 @8
`
	if got := points(res); got != want {
		t.Errorf("points:\n%s\nwant:\n%s", got, want)
	}
	if len(res.Duplicates) != 2 {
		t.Fatalf("duplicates %+v, want two (512 -> 1024, then an equal respelling)", res.Duplicates)
	}
	d := res.Duplicates[0]
	if d.Old != 512 || d.New != 1024 || d.OldLine != 6 || d.Line != 7 || !d.Differs() || res.Duplicates[1].Differs() {
		t.Errorf("duplicates %+v", res.Duplicates)
	}
	if res.Lines != 12 || res.End == nil || res.End.At[0].Pos != 200300 || len(res.Seals) != 2 {
		t.Errorf("lines %d, end %+v, seals %v", res.Lines, res.End, res.Seals)
	}
	if len(res.Markers) != 3 || res.Totals[Late] != (Totals{1, 3}) || res.Totals[Cap] != (Totals{1, 17}) || res.Totals[Drop] != (Totals{1, 1}) {
		t.Errorf("markers %v, totals %v", res.Markers, res.Totals)
	}
	t30, _ := ParseTime("2026-10-10T13:55:30Z")
	t40, _ := ParseTime("2026-10-10T13:55:40Z")
	var markerLines, sealLines []int
	for _, m := range res.Markers {
		markerLines = append(markerLines, m.Line)
	}
	for _, start := range []int64{t30, t40} {
		for _, s := range res.Seals[start] {
			sealLines = append(sealLines, s.Line)
		}
	}
	if fmt.Sprint(markerLines) != "[5 9 11]" || fmt.Sprint(sealLines) != "[4 10]" || len(res.Seals[t30]) != 1 || len(res.Seals[t40]) != 1 {
		t.Errorf("marker lines %v, seal lines %v, want markers on 5 9 11 and seals on 4 and 10", markerLines, sealLines)
	}
}

func TestResolveFiltersMetricsAndTimesWhileStreaming(t *testing.T) {
	from := time.Date(2026, 10, 10, 13, 55, 35, 0, time.UTC)
	res := resolve(t, sample, Options{Filter: Filter{Metrics: []string{"requests"}, From: from}})
	want := "2026-10-10T13:55:40Z requests{status=\"200\"} 1024 @8\n"
	if got := points(res); got != want {
		t.Errorf("points:\n%s\nwant:\n%s", got, want)
	}
	// !cap of bytes and the !late before From are filtered; !drop has no bucket.
	if len(res.Markers) != 1 || res.Markers[0].Kind != Drop || len(res.Seals) != 1 {
		t.Errorf("markers %v, seals %v", res.Markers, res.Seals)
	}
	res = resolve(t, sample, Options{Filter: Filter{To: from}})
	if len(res.Points) != 3 || len(res.Duplicates) != 0 {
		t.Errorf("To: points %v, duplicates %v", points(res), res.Duplicates)
	}
}

func TestResolveHandsDuplicatesToTheCallbackWhenGiven(t *testing.T) {
	var got []Dup
	res := resolve(t, sample, Options{OnDuplicate: func(d Dup) { got = append(got, d) }})
	if len(got) != 2 || res.Duplicates != nil {
		t.Fatalf("callback got %v, list %v", got, res.Duplicates)
	}
}

func TestResolveOfAMalformedLineNamesItAndReturnsNothing(t *testing.T) {
	for _, bad := range []string{
		"2026-10-10T13:55:30Z requests{status=\"200} 1\n",
		"2026-10-10T13:55:30Z requests{status=\"200\"} one\n",
		"2026-10-10T13:55:30Z requests{status=\"200\"}\n",
		"seal 2026-10-10T13:55:30Z\n",
		"\n",
	} {
		res, err := Resolve(strings.NewReader(sample+bad), Options{Filter: Filter{Metrics: []string{"nothing"}}})
		var le *LineError
		if res != nil || !errors.As(err, &le) || le.Line != 13 {
			t.Errorf("%q: resolved %v, error %v; want an error naming line 13", bad, res, err)
		}
	}
}

func TestResolveToleratesATornLastLineOnlyWhenAsked(t *testing.T) {
	torn := sample + "2026-10-10T13:55:50Z requests 4"
	if _, err := Resolve(strings.NewReader(torn), Options{}); !errors.Is(err, ErrTorn) {
		t.Fatalf("error %v, want ErrTorn", err)
	}
	res := resolve(t, torn, Options{TolerateTorn: true})
	if !res.Torn || len(res.Points) != 4 || res.Lines != 12 {
		t.Errorf("torn %v, %d points over %d lines", res.Torn, len(res.Points), res.Lines)
	}
}

func TestResolveReadsValuesTheCountPathLeavesToParseValue(t *testing.T) {
	res := resolve(t, "2026-10-10T13:55:30Z a 0.5\n2026-10-10T13:55:30Z b -2\n2026-10-10T13:55:30Z c 1234567890123456789\n2026-10-10T13:55:30Z d 0\n", Options{})
	want := []float64{0.5, -2, 1234567890123456789, 0}
	for i, p := range res.Points {
		if p.Value != want[i] {
			t.Errorf("%s = %v, want %v", p.Series.Text, p.Value, want[i])
		}
	}
}

// bigTape is a tape of buckets 10 s wide, each with series series of
// requests and as many of bytes, sealed.
func bigTape(buckets, series int) []byte {
	var b []byte
	for i := range buckets {
		start := t0 + int64(i)*int64(10*time.Second)
		for s := range series {
			for _, m := range []string{"requests", "bytes"} {
				r := Record{Kind: Series, Start: start, Metric: m, Labels: []Label{{"status", fmt.Sprint(200 + s)}, {"method", "GET"}}, Value: float64(i*s + 1)}
				b = Append(b, &r)
			}
		}
		seal := Record{Kind: Seal, Start: start, Width: 10 * time.Second, Entries: int64(series), At: []Pos{{"web1", int64(i) * 1000}}}
		b = Append(b, &seal)
	}
	return b
}

func BenchmarkResolve(b *testing.B) {
	tape := bigTape(10000, 50) // 1,010,000 lines
	b.SetBytes(int64(len(tape)))
	b.ReportAllocs()
	for b.Loop() {
		res, err := Resolve(bytes.NewReader(tape), Options{Filter: Filter{Metrics: []string{"requests"}}})
		if err != nil || len(res.Points) != 500000 {
			b.Fatal(err, len(res.Points))
		}
	}
	b.ReportMetric(float64(b.N)*1010000/b.Elapsed().Seconds(), "lines/s")
}

// FuzzResolve: any input resolves or fails without panicking, and what
// resolves, written back as series lines, resolves to the same points.
func FuzzResolve(f *testing.F) {
	f.Add([]byte(sample))
	f.Add(bigTape(3, 2))
	f.Add([]byte("2026-10-10T13:55:30Z a{v=\"\\x41\"} 1\n2026-10-10T13:55:30Z a{v=\"A\"} 2\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := Resolve(bytes.NewReader(data), Options{TolerateTorn: true})
		if err != nil {
			return
		}
		var again []byte
		for _, p := range res.Points {
			r := Record{Kind: Series, Start: p.Start, Metric: p.Series.Metric, Labels: p.Series.Labels, Value: p.Value}
			again = Append(again, &r)
		}
		res2, err := Resolve(bytes.NewReader(again), Options{})
		if err != nil {
			t.Fatalf("the resolved points do not resolve: %v\n%s", err, again)
		}
		if len(res2.Points) != len(res.Points) || len(res2.Duplicates) != 0 {
			t.Fatalf("%d points resolve to %d, with duplicates %v", len(res.Points), len(res2.Points), res2.Duplicates)
		}
		for i, p := range res2.Points {
			if q := res.Points[i]; p.Start != q.Start || p.Series.Text != q.Series.Text || p.Value != q.Value {
				t.Fatalf("point %d: %+v resolves to %+v", i, q, p)
			}
		}
	})
}

func TestASeriesSpelledWithItsLabelsInAnotherOrderIsOneSeries(t *testing.T) {
	res := resolve(t, `2026-10-10T13:55:30Z n{b="1",a="2"} 1
2026-10-10T13:55:30Z n{a="2",b="1"} 5
`, Options{})
	if got := points(res); got != "2026-10-10T13:55:30Z n{b=\"1\",a=\"2\"} 5 @2\n" {
		t.Errorf("points:\n%s", got)
	}
	if len(res.Duplicates) != 1 || !res.Duplicates[0].Differs() {
		t.Errorf("duplicates %+v, want the differing respelling", res.Duplicates)
	}
}

// A well-formed line of a kind a later version added is passed over, as
// tgpush and tally pass it over: the tape resolves as it does without it,
// and the first line of each such kind is kept (or handed to OnLater) for
// a note. A damaged line is still refused.
func TestResolvePassesOverALaterKindsLineKeepingTheFirstLineOfEachKind(t *testing.T) {
	at := strings.Index(sample, "!late")
	later := "identity id=web1 dev=1 ino=2\n" + sample[:at] + "!mark at=web1:5 why=x\nidentity id=web1 dev=1 ino=3\n" + sample[at:]
	plain := resolve(t, sample, Options{})
	res := resolve(t, later, Options{})
	want := []LaterKind{{"identity", 1, false}, {"!mark", 6, false}}
	if fmt.Sprint(res.Later) != fmt.Sprint(want) || res.Lines != plain.Lines+3 {
		t.Fatalf("Later %v over %d lines, want %v over %d", res.Later, res.Lines, want, plain.Lines+3)
	}
	if len(res.Points) != len(plain.Points) || len(res.Markers) != len(plain.Markers) || len(res.Seals) != len(plain.Seals) || res.End == nil {
		t.Errorf("resolved %d points, %d markers, %d seals; want %d, %d, %d", len(res.Points), len(res.Markers), len(res.Seals), len(plain.Points), len(plain.Markers), len(plain.Seals))
	}
	var got []LaterKind
	if res := resolve(t, later, Options{OnLater: func(k LaterKind) { got = append(got, k) }}); res.Later != nil || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("OnLater got %v, Later %v; want %v to the callback", got, res.Later, want)
	}
	if _, err := Resolve(strings.NewReader(later+"identity Id=web\n"), Options{}); err == nil {
		t.Error("a damaged line after later kinds was passed over")
	}
}

// A forged tape of many distinct later kinds is named up to MaxLaterKinds
// of them, the last saying that the rest go unnamed: a million words make
// no million notes, nor a map of a million.
func TestAtMostMaxLaterKindsAreNamedTheLastSayingSo(t *testing.T) {
	var forged strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&forged, "kind%d a=1\n", i)
	}
	res := resolve(t, forged.String()+sample, Options{})
	if len(res.Later) != MaxLaterKinds || !res.Later[MaxLaterKinds-1].Last || res.Later[0].Last {
		t.Fatalf("named %d kinds (%v), want %d, the last marked", len(res.Later), res.Later, MaxLaterKinds)
	}
	if b := res.Later[MaxLaterKinds-1].Beyond(); !strings.Contains(b, "passed over unnamed") {
		t.Errorf("the last kind's note adds %q", b)
	}
}

// A later kind's word of megabytes (a forged line) is named by its start
// only, as a damaged line is quoted: a note stays a line a person reads.
func TestALaterKindsHugeWordIsNamedByItsStartOnly(t *testing.T) {
	huge := strings.Repeat("k", 3<<20)
	res := resolve(t, huge+" a=1\n"+huge+" a=2\n"+sample, Options{})
	if len(res.Later) != 1 || len(res.Later[0].Word) > clipLen+3 || !strings.HasPrefix(res.Later[0].Word, "kkk") || !strings.HasSuffix(res.Later[0].Word, "...") {
		t.Fatalf("Later = %d kinds, the first %d bytes long; want one, clipped to %d", len(res.Later), len(res.Later[0].Word), clipLen)
	}
	if w := LaterWord([]byte("!mark at=web1:5")); w != "!mark" {
		t.Errorf("LaterWord = %q, want !mark", w)
	}
}
