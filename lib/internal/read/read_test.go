package read

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// now is the clock the tests run tgread at: 2026-10-10T14:00:00Z.
var now = time.Date(2026, 10, 10, 14, 0, 0, 0, time.UTC)

const tapeA = `2026-10-10T13:55:30Z requests{status="200",method="GET"} 431
2026-10-10T13:55:30Z requests{status="404",method="GET"} 12
2026-10-10T13:55:30Z bytes{status="200",method="GET"} 1234567
seal 2026-10-10T13:55:30Z width=10s entries=443 at=web1:186350
2026-10-10T13:55:40Z requests{status="200",method="GET"} 512
2026-10-10T13:55:40Z requests{status="200",method="GET"} 1024
2026-10-10T13:55:40Z requests{status="200",method="GET"} 2048
2026-10-10T13:55:40Z requests{status="x\xff\"\n	,=y",method="GET"} 3
seal 2026-10-10T13:55:40Z width=10s entries=2051 at=web1:200000
!late 2026-10-10T13:55:20Z id=web1 offset=190210 end=190900 count=3
!drop id=web1 offset=200111 end=200300 count=1 reason=no-time
`

type result struct {
	code           int
	stdout, stderr string
}

func tgread(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(append([]string{"tgread"}, args...), strings.NewReader(stdin), &out, &errOut, false, now)
	return result{code, out.String(), errOut.String()}
}

func (r result) want(t *testing.T, code int, stdout string) {
	t.Helper()
	if r.code != code || r.stdout != stdout {
		t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s\nwant exit %d, stdout:\n%s", r.code, r.stdout, r.stderr, code, stdout)
	}
}

func write(t *testing.T, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestEachFormatShowsTheResolvedTape(t *testing.T) {
	cases := map[string]string{
		"tsv": "time\tmetric\tlabels\tvalue\n" +
			"2026-10-10T13:55:30Z\tbytes\tmethod=GET,status=200\t1234567\n" +
			"2026-10-10T13:55:30Z\trequests\tmethod=GET,status=200\t431\n" +
			"2026-10-10T13:55:30Z\trequests\tmethod=GET,status=404\t12\n" +
			"2026-10-10T13:55:40Z\trequests\tmethod=GET,status=200\t2048\n" +
			"2026-10-10T13:55:40Z\trequests\tmethod=GET,status=x\\xff\"\\n\\t\\,=y\t3\n",
		"csv": "time,metric,labels,value\n" +
			"2026-10-10T13:55:30Z,bytes,\"method=GET,status=200\",1234567\n" +
			"2026-10-10T13:55:30Z,requests,\"method=GET,status=200\",431\n" +
			"2026-10-10T13:55:30Z,requests,\"method=GET,status=404\",12\n" +
			"2026-10-10T13:55:40Z,requests,\"method=GET,status=200\",2048\n" +
			"2026-10-10T13:55:40Z,requests,\"method=GET,status=x\\xff\"\"\n\t\\,=y\",3\n",
		"json": `{"time":"2026-10-10T13:55:30Z","metric":"bytes","labels":{"method":"GET","status":"200"},"value":1234567}
{"time":"2026-10-10T13:55:30Z","metric":"requests","labels":{"method":"GET","status":"200"},"value":431}
{"time":"2026-10-10T13:55:30Z","metric":"requests","labels":{"method":"GET","status":"404"},"value":12}
{"time":"2026-10-10T13:55:40Z","metric":"requests","labels":{"method":"GET","status":"200"},"value":2048}
{"time":"2026-10-10T13:55:40Z","metric":"requests","labels":{"method":"GET","status":"x\\xff\"\n\t,=y"},"value":3}
`,
		"tape": `2026-10-10T13:55:30Z bytes{status="200",method="GET"} 1234567
2026-10-10T13:55:30Z requests{status="200",method="GET"} 431
2026-10-10T13:55:30Z requests{status="404",method="GET"} 12
2026-10-10T13:55:40Z requests{status="200",method="GET"} 2048
2026-10-10T13:55:40Z requests{status="x\xff\"\n	,=y",method="GET"} 3
`,
		"openmetrics": `# TYPE bytes gauge
bytes{method="GET",status="200"} 1234567 1791640539.999
# TYPE requests gauge
requests{method="GET",status="200"} 431 1791640539.999
requests{method="GET",status="200"} 2048 1791640549.999
requests{method="GET",status="404"} 12 1791640539.999
requests{method="GET",status="x\\xff\"\n	,=y"} 3 1791640549.999
# TYPE timbertally_entries gauge
timbertally_entries 443 1791640539.999
timbertally_entries 2051 1791640549.999
# TYPE timbertally_late_entries gauge
timbertally_late_entries 0 1791640539.999
timbertally_late_entries 0 1791640549.999
# EOF
`,
		"table": `TIME                  METRIC    LABELS                            VALUE
2026-10-10T13:55:30Z  bytes     method=GET,status=200             1234567
2026-10-10T13:55:30Z  requests  method=GET,status=200             431
2026-10-10T13:55:30Z  requests  method=GET,status=404             12
2026-10-10T13:55:40Z  requests  method=GET,status=200             2048
2026-10-10T13:55:40Z  requests  method=GET,status=x\xff"\n\t\,=y  3
`,
	}
	path := write(t, t.TempDir(), "tape", tapeA)
	for format, want := range cases {
		t.Run(format, func(t *testing.T) { tgread(t, "", "--format", format, path).want(t, 0, want) })
	}
}

func TestTheDefaultFormatIsATableOnATerminalAndTSVElsewhere(t *testing.T) {
	var out bytes.Buffer
	run([]string{"tgread", "--metric", "bytes"}, strings.NewReader(tapeA), &out, &bytes.Buffer{}, true, now)
	if !strings.HasPrefix(out.String(), "TIME  ") {
		t.Errorf("on a terminal: %q", out.String())
	}
	if r := tgread(t, tapeA); !strings.HasPrefix(r.stdout, "time\tmetric\tlabels\tvalue\n") {
		t.Errorf("on a pipe: %q", r.stdout)
	}
}

func TestADifferingDuplicateIsReportedOncePerPair(t *testing.T) {
	r := tgread(t, tapeA, "-f", "tape", "-m", "requests")
	want := `tgread: stdin line 6 replaces requests{status="200",method="GET"} at 2026-10-10T13:55:40Z: 512 -> 1024 (a fragment: the old defect's signature; run tgcheck --scan)` + "\n"
	if r.stderr != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", r.stderr, want)
	}
}

func TestFiltersSelectMetricsAndBucketStarts(t *testing.T) {
	tgread(t, tapeA, "-f", "tape", "--metric", "bytes,nothing", "--from", "2026-10-10T13:55:30Z", "--to", "2026-10-10T13:55:40Z").
		want(t, 0, "2026-10-10T13:55:30Z bytes{status=\"200\",method=\"GET\"} 1234567\n")
	tgread(t, tapeA, "-f", "tape", "--metric", "requests", "--metric", "bytes", "--from", "-4m25s").
		want(t, 0, "2026-10-10T13:55:40Z requests{status=\"200\",method=\"GET\"} 2048\n2026-10-10T13:55:40Z requests{status=\"x\\xff\\\"\\n\t,=y\",method=\"GET\"} 3\n")
}

func TestMarkersAreListedWithATotalPerKind(t *testing.T) {
	tgread(t, tapeA, "--markers", "--from", "2026-10-10T13:55:30Z").want(t, 0, `!drop id=web1 offset=200111 end=200300 count=1 reason=no-time
# total !late markers=0 entries=0
# total !drop markers=1 entries=1
# total !cap markers=0 entries=0
`)
	tgread(t, tapeA, "--markers").want(t, 0, `!late 2026-10-10T13:55:20Z id=web1 offset=190210 end=190900 count=3
!drop id=web1 offset=200111 end=200300 count=1 reason=no-time
# total !late markers=1 entries=3
# total !drop markers=1 entries=1
# total !cap markers=0 entries=0
`)
}

// store makes a tally store: its document has a count, a min and a max.
func store(t *testing.T, dir, tape string) string {
	write(t, dir, "document", "format apache-combined\nwindow 10s\nmetric requests count by=status\nmetric small min=bytes by=status\nmetric big max=bytes by=status\n")
	write(t, dir, "tape", tape)
	return dir
}

func TestStoresMergeBySummingCountsAndTakingMinOfMinsAndMaxOfMaxes(t *testing.T) {
	dir := t.TempDir()
	a := store(t, filepath.Join(dir, "a"), `2026-10-10T13:55:30Z requests{status="200"} 5
2026-10-10T13:55:30Z small{status="200"} 7
2026-10-10T13:55:30Z big{status="200"} 70
2026-10-10T13:55:40Z requests{status="200"} 6
2026-10-10T13:55:40Z small{status="200"} 3
2026-10-10T13:55:40Z big{status="200"} 90
`)
	b := store(t, filepath.Join(dir, "b"), `2026-10-10T13:55:30Z requests{status="200"} 10
2026-10-10T13:55:30Z small{status="200"} 4
2026-10-10T13:55:30Z big{status="200"} 80
`)
	tgread(t, "", "-f", "tape", a, b).want(t, 0, `2026-10-10T13:55:30Z big{status="200"} 80
2026-10-10T13:55:30Z requests{status="200"} 15
2026-10-10T13:55:30Z small{status="200"} 4
2026-10-10T13:55:40Z big{status="200"} 90
2026-10-10T13:55:40Z requests{status="200"} 6
2026-10-10T13:55:40Z small{status="200"} 3
`)
	tgread(t, "", "-f", "tape", "--step", "1m", a, b).want(t, 0, `2026-10-10T13:55:00Z big{status="200"} 90
2026-10-10T13:55:00Z requests{status="200"} 21
2026-10-10T13:55:00Z small{status="200"} 3
`)
	tgread(t, "", "-f", "tsv", "--by-tape", "-m", "requests", a, b).want(t, 0, "time\tmetric\tlabels\tvalue\n"+
		"2026-10-10T13:55:30Z\trequests\tstatus=200,tape="+a+"\t5\n"+
		"2026-10-10T13:55:30Z\trequests\tstatus=200,tape="+b+"\t10\n"+
		"2026-10-10T13:55:40Z\trequests\tstatus=200,tape="+a+"\t6\n")
}

func TestStepOnABareTapeNeedsTheKindOfEachMetric(t *testing.T) {
	r := tgread(t, tapeA, "--step", "1m")
	if r.code != 2 || !strings.Contains(r.stderr, "--kind bytes=count|sum|min|max") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
	tgread(t, tapeA, "-f", "tape", "--step", "1m", "--kind", "requests=count", "--kind", "bytes=sum", "-m", "requests").
		want(t, 0, "2026-10-10T13:55:00Z requests{status=\"200\",method=\"GET\"} 2479\n2026-10-10T13:55:00Z requests{status=\"404\",method=\"GET\"} 12\n2026-10-10T13:55:00Z requests{status=\"x\\xff\\\"\\n\t,=y\",method=\"GET\"} 3\n")
}

func TestAStepThatSplitsABucketIsRefused(t *testing.T) {
	r := tgread(t, tapeA, "--step", "15s", "--kind", "requests=count", "--kind", "bytes=sum")
	if r.code != 2 || !strings.Contains(r.stderr, "not a multiple of the 10s window") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestAMalformedTapeFailsNamingTheFileAndLine(t *testing.T) {
	path := write(t, t.TempDir(), "tape", tapeA+"2026-10-10T13:55:50Z requests{status=\"200} 1\n")
	r := tgread(t, "", path)
	if r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, path+": tape: line 12: malformed tape record") {
		t.Errorf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

func TestATornLastLineIsLeftOutQuietlyOnStdinAndWithANoteOnAFile(t *testing.T) {
	torn := "2026-10-10T13:55:30Z requests 4\n2026-10-10T13:55:40Z requests 9"
	tgread(t, torn, "-f", "tape", "-").want(t, 0, "2026-10-10T13:55:30Z requests 4\n")
	path := write(t, t.TempDir(), "tape", torn)
	r := tgread(t, "", "-f", "tape", path)
	r.want(t, 0, "2026-10-10T13:55:30Z requests 4\n")
	if !strings.Contains(r.stderr, "tgread: note: "+path+" ends in a torn line") {
		t.Errorf("stderr %q", r.stderr)
	}
}

func TestBadUsageExitsTwoAndSaysWhatToDo(t *testing.T) {
	for _, args := range [][]string{
		{"--format", "xml"},
		{"--from", "yesterday"},
		{"--to", "13:55"},
		{"--step", "-1m"},
		{"--step", "0s"},
		{"--from", "2026-10-10T14:00:00Z", "--to", "2026-10-10T13:00:00Z"},
		{"--kind", "requests=avg"},
		{"--no-such-flag"},
		{"-", "-"},
	} {
		r := tgread(t, tapeA, args...)
		if r.code != 2 || r.stdout != "" || !strings.HasPrefix(r.stderr, "tgread: ") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, r.code, r.stdout, r.stderr)
		}
	}
}

func TestAMissingTapeOrStoreIsARuntimeError(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{filepath.Join(dir, "nothing"), dir} {
		if r := tgread(t, "", name); r.code != 1 || !strings.Contains(r.stderr, name) {
			t.Errorf("%s: exit %d, stderr %q", name, r.code, r.stderr)
		}
	}
}

func TestHelpShowsExamplesAndExitsZero(t *testing.T) {
	r := tgread(t, "", "--help")
	if r.code != 0 || !strings.Contains(r.stdout, "Examples:") || !strings.Contains(r.stdout, "--by-tape") {
		t.Errorf("exit %d, stdout %q", r.code, r.stdout)
	}
}

func TestHelpGivesWidthOneDefault(t *testing.T) {
	r := tgread(t, "", "--help")
	for _, line := range strings.Split(r.stdout, "\n") {
		if strings.Contains(line, "--width") && strings.Count(line, "(default:") == 1 && strings.Contains(line, "else 80)") {
			return
		}
	}
	t.Errorf("no --width line with one default note: %q", r.stdout)
}

func TestSecondsKeepTheFractionOfABucketStart(t *testing.T) {
	for ns, want := range map[int64]string{0: "0", 1_500_000_000: "1.5", -1_500_000_000: "-2.5", 1_000_000_001: "1.000000001"} {
		if got := string(appendSeconds(nil, ns)); got != want {
			t.Errorf("appendSeconds(%d) = %s, want %s", ns, got, want)
		}
	}
}

func TestByTapeRefusesASeriesThatHasATapeLabel(t *testing.T) {
	r := tgread(t, "2026-10-10T13:55:30Z a{tape=\"x\"} 1\n", "--by-tape")
	if r.code != 1 || !strings.Contains(r.stderr, "already has a label named tape") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}

// BenchmarkPrintTSV resolves and prints a tape of 200,000 points (2,000
// buckets of 100 series) from a file.
func BenchmarkPrintTSV(b *testing.B) {
	var tape bytes.Buffer
	for i := range 2000 {
		ts := time.Unix(1791640530+int64(i)*10, 0).UTC().Format(time.RFC3339)
		for s := range 100 {
			fmt.Fprintf(&tape, "%s requests{status=\"%d\",method=\"GET\"} %d\n", ts, 200+s, i*s+1)
		}
		fmt.Fprintf(&tape, "seal %s width=10s entries=1 at=web1:%d\n", ts, i*1000)
	}
	path := filepath.Join(b.TempDir(), "tape")
	if err := os.WriteFile(path, tape.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if code := run([]string{"tgread", "-f", "tsv", path}, nil, io.Discard, io.Discard, false, now); code != 0 {
			b.Fatal(code)
		}
	}
	b.ReportMetric(float64(b.N)*200000/b.Elapsed().Seconds(), "points/s")
}

func TestControlBytesInLabelValuesCannotReachTheTerminal(t *testing.T) {
	got := string(appendShown(nil, "a\x1b[2Jb\x7f\tc\u009b31m\u0085é", showControls))
	if want := `a\x1b[2Jb\x7f\tc\xc2\x9b31m\xc2\x85é`; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestAMetricNoDocumentDefinesIsAUsageError(t *testing.T) {
	a := store(t, filepath.Join(t.TempDir(), "a"), "2026-10-10T13:55:30Z requests{status=\"200\"} 5\n")
	r := tgread(t, "", "--metric", "request", a)
	if r.code != 2 || !strings.Contains(r.stderr, "tgread: --metric request is not a metric of the document (big, requests, small)") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if r := tgread(t, "2026-10-10T13:55:30Z requests 5\n", "--metric", "request", "-"); r.code != 0 {
		t.Fatalf("on a bare tape the metrics are not known beforehand: exit %d, stderr %q", r.code, r.stderr)
	}
}

// The rows are ranked by series once rather than compared by text; the
// order must still be time, then metric, then labels by name and value
// (and series first for OpenMetrics), whatever the tape's order.
func TestRowsAreOrderedByTimeThenMetricThenLabelsWhateverTheTapeOrder(t *testing.T) {
	// The tape's own order (and a resolved tape's: by series text, labels
	// as written) is not this one: b{z="1",a="1"} sorts after b{a="2",z="0"}
	// by text, before it by labels sorted by name; a{x="10"} first appears
	// after a{x="9"}.
	tape := `2026-10-10T13:55:40Z a{x="10"} 5
2026-10-10T13:55:30Z b{z="1",a="1"} 2
2026-10-10T13:55:30Z b{a="2",z="0"} 4
2026-10-10T13:55:30Z a{x="9"} 3
2026-10-10T13:55:40Z b{a="2",z="0"} 1
`
	tgread(t, tape, "-f", "tsv", "-").want(t, 0, `time	metric	labels	value
2026-10-10T13:55:30Z	a	x=9	3
2026-10-10T13:55:30Z	b	a=1,z=1	2
2026-10-10T13:55:30Z	b	a=2,z=0	4
2026-10-10T13:55:40Z	a	x=10	5
2026-10-10T13:55:40Z	b	a=2,z=0	1
`)
	r := tgread(t, tape, "-f", "openmetrics", "-")
	var got []string
	for _, l := range strings.Split(r.stdout, "\n") {
		if l != "" && l[0] != '#' {
			got = append(got, l)
		}
	}
	want := []string{`a{x="10"} 5 1791640540`, `a{x="9"} 3 1791640530`,
		`b{a="1",z="1"} 2 1791640530`, `b{a="2",z="0"} 4 1791640530`, `b{a="2",z="0"} 1 1791640540`}
	if !slices.Equal(got, want) {
		t.Errorf("openmetrics samples:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Two series of one bucket never print as one line: a byte that is not
// UTF-8 and the text that shows it (\xff), or label values whose commas
// would forge another label in k=v,k=v. A loader keyed on labels would keep
// one value and lose the other.
func TestDistinctSeriesNeverPrintAlike(t *testing.T) {
	tape := `2026-10-10T13:55:30Z a{v="\\xff"} 1
2026-10-10T13:55:30Z a{v="\xff"} 1
2026-10-10T13:55:30Z a{v="\\\\xff"} 1
2026-10-10T13:55:30Z r{m="GET",p="/a,p=/b"} 1
2026-10-10T13:55:30Z r{m="GET,p=/a",p="/b"} 1
2026-10-10T13:55:30Z r{m="GET\\,p=/a",p="/b"} 1
2026-10-10T13:55:30Z u{a="curl"} 1
2026-10-10T13:55:30Z u{a="curl "} 1
2026-10-10T13:55:30Z u{a=" curl"} 1
` + "2026-10-10T13:55:30Z c{v=\"a\r\\nb\"} 1\n2026-10-10T13:55:30Z c{v=\"a\\nb\"} 1\n" +
		"2026-10-10T13:55:30Z w{v=\"curl  7.1\"} 1\n2026-10-10T13:55:30Z w{v=\"curl 7.1\"} 1\n" +
		"2026-10-10T13:55:30Z w{v=\"a\u00a0b\"} 1\n2026-10-10T13:55:30Z w{v=\"a b\"} 1\n" +
		"2026-10-10T13:55:30Z w{v=\"curl\u200b\"} 1\n2026-10-10T13:55:30Z w{v=\"curl\"} 1\n" +
		"2026-10-10T13:55:30Z n{v=\"\uFFFD\"} 1\n2026-10-10T13:55:30Z n{v=\"\uFFFE\"} 1\n2026-10-10T13:55:30Z n{v=\"\uFFFF\"} 1\n"
	const series = 20
	for _, format := range []string{"tsv", "csv", "json", "openmetrics", "table"} {
		r := tgread(t, tape, "-f", format, "-")
		seen := map[string]bool{}
		lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
		if format == "csv" { // records as a CSV reader sees them (it folds CR LF in a field)
			records, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
			if err != nil {
				t.Fatalf("csv: %v", err)
			}
			lines = lines[:0]
			for _, rec := range records {
				lines = append(lines, strings.Join(rec, "|"))
			}
		}
		for _, l := range lines {
			if seen[l] {
				t.Errorf("%s: two series print as %q:\n%s", format, l, r.stdout)
			}
			seen[l] = true
		}
		if len(seen) < series {
			t.Errorf("%s: %d lines for %d series:\n%s", format, len(seen), series, r.stdout)
		}
	}
	// An SVG's legend names each series; XML holds no U+FFFE or U+FFFF
	// (encoding/xml writes U+FFFD for them).
	r := tgread(t, tape, "-f", "svg", "-")
	legends := map[string]bool{}
	for _, l := range strings.Split(r.stdout, "\n") {
		if strings.HasPrefix(l, "<text") && strings.Contains(l, "{") {
			// As a renderer shows it: a run of spaces collapses to one.
			legends[strings.Join(strings.Fields(l[strings.Index(l, ">")+1:]), " ")] = true
		}
	}
	for _, format := range []string{"table", "svg"} {
		if out := tgread(t, tape, "-f", format, "-").stdout; strings.ContainsAny(out, "\u00a0\u200b") {
			t.Errorf("%s: a character that does not show is printed as is:\n%s", format, out)
		}
	}
	if len(legends) != series {
		t.Errorf("svg: %d distinct legends for %d series:\n%s", len(legends), series, r.stdout)
	}
}

// tally appends a bucket's series and its seal in one write, so series
// without their seal at the end of a tally tape are a group being written
// or cut short by a crash: not the bucket's numbers, and not shown as if
// they were. A tape with no seal at all (a resolved tape) is shown whole.
func TestSeriesWithoutTheirSealAreLeftOutWithANote(t *testing.T) {
	torn := `2026-10-10T13:55:30Z requests{status="200"} 4
seal 2026-10-10T13:55:30Z width=10s entries=4
2026-10-10T13:55:40Z requests{status="200"} 1
2026-10-10T13:55:40Z requests{status="404"} 1
`
	want := "2026-10-10T13:55:30Z requests{status=\"200\"} 4\n"
	note := "series lines of buckets without a seal, left out"
	path := write(t, t.TempDir(), "tape", torn)
	for _, args := range [][]string{{path}, {"-"}} {
		r := tgread(t, torn, append([]string{"-f", "tape"}, args...)...)
		r.want(t, 0, want)
		if !strings.Contains(r.stderr, "has 2 "+note) {
			t.Errorf("%s: stderr %q, want a note of 2 %s", args[0], r.stderr, note)
		}
	}
	// --from selecting none of the seals still leaves them out.
	for _, args := range [][]string{{path}, {"-"}} {
		r := tgread(t, torn, append([]string{"-f", "tape", "--from", "2026-10-10T13:55:40Z"}, args...)...)
		r.want(t, 0, "")
		if !strings.Contains(r.stderr, "has 2 "+note) {
			t.Errorf("--from, %s: stderr %q, want a note of 2 %s", args[0], r.stderr, note)
		}
	}
	resolved := "2026-10-10T13:55:40Z requests{status=\"200\"} 1\n"
	tgread(t, resolved, "-f", "tape", "-").want(t, 0, resolved)
	tgread(t, resolved, "-f", "tape", write(t, t.TempDir(), "tape", resolved)).want(t, 0, resolved)
}

// OpenMetrics has no empty label: {status="200",vhost=""} is {status="200"},
// and two tapes of two documents merged can give both at one time. Prometheus
// would keep one of the two values, so tgread refuses; --by-tape keeps them
// apart.
func TestOpenMetricsRefusesTwoRowsThatAreOneSeriesThere(t *testing.T) {
	dir := t.TempDir()
	a := write(t, dir, "a", "2026-10-10T13:55:00Z req{status=\"200\"} 5\nseal 2026-10-10T13:55:00Z width=10s entries=5\n")
	b := write(t, dir, "b", "2026-10-10T13:55:00Z req{status=\"200\",vhost=\"\"} 7\nseal 2026-10-10T13:55:00Z width=10s entries=7\n")
	r := tgread(t, "", "-f", "openmetrics", a, b)
	if r.code != 1 || !strings.Contains(r.stderr, `req{status="200"} and req{status="200",vhost=""} at 2026-10-10T13:55:00Z are one series in OpenMetrics`) {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if r := tgread(t, "", "-f", "openmetrics", "--by-tape", a, b); r.code != 0 {
		t.Fatalf("--by-tape: exit %d, stderr %q", r.code, r.stderr)
	}
	// An empty value among series that all have the label is no collision.
	one := write(t, dir, "c", "2026-10-10T13:55:00Z req{vhost=\"\"} 1\n2026-10-10T13:55:00Z req{vhost=\"x\"} 2\nseal 2026-10-10T13:55:00Z width=10s entries=3\n")
	if r := tgread(t, "", "-f", "openmetrics", one); r.code != 0 {
		t.Fatalf("one tape: exit %d, stderr %q", r.code, r.stderr)
	}
}

// With --step every row is a whole step: a --from inside a step (here half
// a minute in, or ten minutes before the test's now of 14:00:00, minus 5 s)
// is widened to the step's start, and a --to inside one to its end, each
// with one note on stderr; never a row holding half a minute under a whole
// minute's label.
func TestStepRowsAreWholeStepsAndAWidenedRangeIsNoted(t *testing.T) {
	var tape strings.Builder
	for s := 0; s < 180; s += 10 { // 13:56:00 to 13:58:50, one request a 10 s bucket
		fmt.Fprintf(&tape, "%s requests{status=\"200\"} 1\n", time.Date(2026, 10, 10, 13, 56, s, 0, time.UTC).Format(time.RFC3339))
	}
	st := store(t, filepath.Join(t.TempDir(), "s"), tape.String())
	r := tgread(t, "", "-f", "tape", "--step", "1m", "-m", "requests", "--from", "2026-10-10T13:56:30Z", "--to", "2026-10-10T13:57:20Z", st)
	r.want(t, 0, "2026-10-10T13:56:00Z requests{status=\"200\"} 6\n2026-10-10T13:57:00Z requests{status=\"200\"} 6\n")
	if want := "tgread: --from 2026-10-10T13:56:30Z is inside a 1m0s step: rows are whole steps, from 2026-10-10T13:56:00Z\n" +
		"tgread: --to 2026-10-10T13:57:20Z is inside a 1m0s step: rows are whole steps, up to 2026-10-10T13:58:00Z\n"; r.stderr != want {
		t.Errorf("stderr %q, want %q", r.stderr, want)
	}
	r = tgread(t, "", "-f", "tape", "--step", "1m", "-m", "requests", "--from", "-3m55s", st)
	r.want(t, 0, "2026-10-10T13:56:00Z requests{status=\"200\"} 6\n2026-10-10T13:57:00Z requests{status=\"200\"} 6\n2026-10-10T13:58:00Z requests{status=\"200\"} 6\n")
	if strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, "--from -3m55s is inside a 1m0s step") {
		t.Errorf("a relative --from: stderr %q, want one note", r.stderr)
	}
	r = tgread(t, "", "-f", "tape", "--step", "1m", "-m", "requests", "--from", "2026-10-10T13:57:00Z", st)
	if r.stderr != "" || !strings.HasPrefix(r.stdout, "2026-10-10T13:57:00Z requests{status=\"200\"} 6\n") {
		t.Errorf("a --from on a step: stdout %q, stderr %q; want rows from it and no note", r.stdout, r.stderr)
	}
}

// A line of a kind a later tally added is passed over, as tgpush passes it
// over: tgread prints, whole or followed, what it prints of the tape
// without it, and notes each such kind once on stderr.
func TestALaterKindsLineIsPassedOverWholeAndFollowedWithOneNotePerKind(t *testing.T) {
	at := strings.Index(followGroups, "!drop")
	later := "identity id=web dev=1 ino=2\n" + followGroups[:at] + "!mark at=web:600 why=x\nidentity id=web dev=1 ino=3\n" + followGroups[at:]
	plain, dir := followStore(t, followGroups), followStore(t, later)
	for _, f := range []string{"tsv", "tape", "json"} {
		want := tgread(t, "", "--format", f, plain)
		got := tgread(t, "", "--format", f, dir)
		got.want(t, 0, want.stdout)
		for _, note := range []string{`line 1: records of kind "identity"`, `line 5: records of kind "!mark"`} {
			if strings.Count(got.stderr, "tgread: note: "+filepath.Join(dir, "tape")+": "+note) != 1 {
				t.Errorf("--format %s: stderr lacks one %q: %s", f, note, got.stderr)
			}
		}
		if strings.Count(got.stderr, "note:") != 2 {
			t.Errorf("--format %s: want two notes: %s", f, got.stderr)
		}
		var out, errOut syncBuffer
		stop := following(t, &out, &errOut, "--format", f, dir)
		waitFor(t, &out, "13:55:50")
		if code := stop(); code != 0 || out.String() != want.stdout || strings.Count(errOut.String(), "note:") != 2 {
			t.Errorf("--follow --format %s: exit %d, printed %q, stderr %q; want %q and two notes", f, code, out.String(), errOut.String(), want.stdout)
		}
	}
}

// A line that is no record stops tgread, whole, followed or from stdin,
// naming the line and the complete fix: the commands that make the tape
// again from its logs in its tally store (DIR when it came on stdin).
func TestADamagedLineStopsTgreadNamingItsLineAndTheCommandsThatRemakeTheTape(t *testing.T) {
	at := strings.Index(followGroups, "!drop")
	bad := followGroups[:at] + "identity Id=web\n" + followGroups[at:]
	dir := followStore(t, bad)
	line := strings.Count(bad[:at], "\n") + 1
	fix := func(d string) string {
		return "tally --provision --replace --doc " + filepath.Join(d, "document") + " " + d + " (the old tape is kept beside it), then feed --reset --cursor FILE STORE... -- tally --run " + d
	}
	for _, c := range []struct {
		args  []string
		stdin string
		want  []string
	}{
		{[]string{dir}, "", []string{filepath.Join(dir, "tape") + ": tape: line " + strconv.Itoa(line) + ":", fix(dir), "tgcheck --scan " + dir}},
		{[]string{"-"}, bad, []string{"stdin: tape: line " + strconv.Itoa(line) + ":", fix("DIR")}},
	} {
		r := tgread(t, c.stdin, c.args...)
		for _, w := range c.want {
			if r.code != 1 || !strings.Contains(r.stderr, w) {
				t.Errorf("%v: exit %d, stderr lacks %q: %s", c.args, r.code, w, r.stderr)
			}
		}
	}
	var out, errOut syncBuffer
	stop := following(t, &out, &errOut, dir)
	waitFor(t, &errOut, "tally --run "+dir)
	if code := stop(); code != 1 || !strings.Contains(errOut.String(), fix(dir)) || !strings.Contains(errOut.String(), "line "+strconv.Itoa(line)+":") {
		t.Errorf("--follow: exit %d, stderr %q; want the line and %q", code, errOut.String(), fix(dir))
	}
}
