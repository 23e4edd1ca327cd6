package check

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/timbertally/timbertally/lib/internal/doc"
	"github.com/timbertally/timbertally/lib/internal/tape"
)

const testDoc = `format apache-combined
window 10s grace=0s
metric requests count by=status
metric bytes sum=bytes by=status
metric biggest max=bytes
metric errors count where=status>=500
`

// line returns an Apache combined line at 13:55:sec (a second past
// 13:55:00, so windows start at :00, :10, :20...).
func line(sec, status int, bytes string) string {
	return fmt.Sprintf(`10.0.0.1 - - [10/Oct/2026:13:55:%02d +0000] "GET /x?a=1 HTTP/1.1" %d %s "-" "agent \"q\" 1"`+"\n", sec, status, bytes)
}

// fixture is a tally store and one store of entries in a temporary
// directory.
type fixture struct {
	dir, log string
	size     int64
}

// newFixture writes the log lines and the tape; @END@ in the tape becomes
// the log's size.
func newFixture(t *testing.T, lines []string, tapeText string) *fixture {
	t.Helper()
	root := t.TempDir()
	f := &fixture{dir: filepath.Join(root, "tally"), log: filepath.Join(root, "web1")}
	log := strings.Join(lines, "")
	f.size = int64(len(log))
	tapeText = strings.ReplaceAll(tapeText, "@END@", fmt.Sprint(f.size))
	write(t, f.log, log)
	write(t, filepath.Join(f.dir, "document"), testDoc)
	write(t, filepath.Join(f.dir, "tape"), tapeText)
	return f
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) load(t *testing.T) *tallyStore {
	t.Helper()
	s, err := loadStore(f.dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (f *fixture) compare(t *testing.T) *comparison {
	t.Helper()
	s := f.load(t)
	d, err := derive(s.Doc, s.Tape, []input{{ID: "web1", Path: f.log}})
	if err != nil {
		t.Fatal(err)
	}
	return compare(s, d)
}

// tgcheck runs the command line and returns its status and stdout+stderr.
func (f *fixture) tgcheck(args ...string) (int, string) {
	var out bytes.Buffer
	args = append(append([]string{"tgcheck"}, args...), f.dir)
	code := run(args, &out, &out)
	return code, out.String()
}

// threeBuckets: 13:55:00 has 200, 200, 500 "-"; 13:55:10 has 404; 13:55:20 has 200.
var threeBuckets = []string{line(1, 200, "100"), line(2, 200, "50"), line(5, 500, "-"), line(12, 404, "7"), line(25, 200, "1")}

const threeBucketsTape = `2026-10-10T13:55:00Z requests{status="200"} 2
2026-10-10T13:55:00Z requests{status="500"} 1
2026-10-10T13:55:00Z bytes{status="200"} 150
2026-10-10T13:55:00Z bytes{status="500"} 0
2026-10-10T13:55:00Z biggest 100
2026-10-10T13:55:00Z errors 1
seal 2026-10-10T13:55:00Z width=10s entries=3 at=web1:@P3@
2026-10-10T13:55:10Z requests{status="404"} 1
2026-10-10T13:55:10Z bytes{status="404"} 7
2026-10-10T13:55:10Z biggest 7
seal 2026-10-10T13:55:10Z width=10s entries=1 at=web1:@P4@
2026-10-10T13:55:20Z requests{status="200"} 1
2026-10-10T13:55:20Z bytes{status="200"} 1
2026-10-10T13:55:20Z biggest 1
seal 2026-10-10T13:55:20Z width=10s entries=1 at=web1:@END@
end at=web1:@END@
`

// positions replaces @Pn@ with the position after the first n lines.
func positions(lines []string, tapeText string) string {
	pos := 0
	for i, l := range lines {
		pos += len(l)
		tapeText = strings.ReplaceAll(tapeText, fmt.Sprintf("@P%d@", i+1), fmt.Sprint(pos))
	}
	return tapeText
}

func TestACorrectTapeMatchesEveryBucketAndConserves(t *testing.T) {
	f := newFixture(t, threeBuckets, positions(threeBuckets, threeBucketsTape))
	if c := f.compare(t); len(c.Diffs) != 0 || c.Buckets != 3 || c.Open != 0 {
		t.Fatalf("want 3 matching buckets, got %+v", c)
	}
	code, out := f.tgcheck("--against", "web1="+f.log, "--scan", "--strict")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	for _, want := range []string{"conservation requests: tape 5 + cap 0 + late 0 + drop 0 = 5, fed 5: ok", "0 differences", "scan: 0 signatures"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestAFragmentIsShortAndFailsConservation(t *testing.T) {
	tp := strings.Replace(positions(threeBuckets, threeBucketsTape), `requests{status="200"} 2`, `requests{status="200"} 1`, 1)
	f := newFixture(t, threeBuckets, tp)
	want := diff{Kind: diffShort, Start: ns("13:55:00"), Series: `requests{status="200"}`, Tape: 1, Derived: 2}
	if c := f.compare(t); len(c.Diffs) != 1 || c.Diffs[0] != want {
		t.Fatalf("want %+v, got %+v", want, c.Diffs)
	}
	code, out := f.tgcheck("--against", "web1="+f.log)
	if code != 1 || !strings.Contains(out, "MISMATCH (-1)") || !strings.Contains(out, `short     2026-10-10T13:55:00Z requests{status="200"}: tape 1, re-derived 2`) {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

func TestCountsMovedBetweenBucketsAreDisplacedAndMissing(t *testing.T) {
	// The 13:55:20 entry counted in 13:55:10 instead.
	tp := positions(threeBuckets, threeBucketsTape)
	tp = strings.Replace(tp, `2026-10-10T13:55:20Z requests{status="200"} 1`+"\n", "", 1)
	tp = strings.Replace(tp, `2026-10-10T13:55:10Z requests{status="404"} 1`, `2026-10-10T13:55:10Z requests{status="200"} 1`+"\n"+`2026-10-10T13:55:10Z requests{status="404"} 1`, 1)
	c := newFixture(t, threeBuckets, tp).compare(t)
	kinds := map[diffKind]int{}
	for _, d := range c.Diffs {
		kinds[d.Kind]++
	}
	if kinds[diffDisplaced] != 1 || kinds[diffMissing] != 1 || len(c.Diffs) != 2 {
		t.Fatalf("want one displaced and one missing, got %+v", c.Diffs)
	}
}

func TestATapeAboveTheEntriesWithNothingShortIsExtra(t *testing.T) {
	tp := strings.Replace(positions(threeBuckets, threeBucketsTape), `requests{status="404"} 1`, `requests{status="404"} 2`, 1)
	tp = strings.Replace(tp, "end at", `2026-10-10T13:55:20Z requests{status="302"} 1`+"\nend at", 1)
	c := newFixture(t, threeBuckets, tp).compare(t)
	if len(c.Diffs) != 2 || c.Diffs[0].Kind != diffExtra || c.Diffs[1].Kind != diffExtra || c.Diffs[1].Series != `requests{status="302"}` {
		t.Fatalf("want two extra, got %+v", c.Diffs)
	}
}

// lateTape is threeBucketsTape with the 500 entry of 13:55:00 late: it
// arrived after its bucket's seal, so it is in a !late marker, not a series.
func lateTape() string {
	tp := threeBucketsTape
	for _, l := range []string{`requests{status="500"} 1`, `bytes{status="500"} 0`, `errors 1`} {
		tp = strings.Replace(tp, "2026-10-10T13:55:00Z "+l+"\n", "", 1)
	}
	tp = strings.Replace(tp, "seal 2026-10-10T13:55:00Z width=10s entries=3 at=web1:@P3@\n",
		"seal 2026-10-10T13:55:00Z width=10s entries=2 at=web1:@P2@\n!late 2026-10-10T13:55:00Z id=web1 offset=@P2@ end=@P3@ count=1\n", 1)
	return positions(threeBuckets, tp)
}

func TestABucketWithLateEntriesMatchesExactlyWithoutThem(t *testing.T) {
	f := newFixture(t, threeBuckets, lateTape())
	if c := f.compare(t); len(c.Diffs) != 0 {
		t.Fatalf("want a match, got %+v", c.Diffs)
	}
	if code, out := f.tgcheck("--against", "web1="+f.log); code != 0 || !strings.Contains(out, "late 1") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if code, out := f.tgcheck("--against", "web1="+f.log, "--strict"); code != 1 || !strings.Contains(out, "strict: 1 !late markers (1 entries)") {
		t.Fatalf("--strict: exit %d:\n%s", code, out)
	}
}

// In a bucket with !late entries every series is still exact: the entries
// the markers hold are left out of the re-derivation, not its totals only.
// A sum or a min moved either way, a count moved between two series with
// the total kept, a seal's entries= changed: each is a difference.
func TestInABucketWithLateEntriesEverySeriesAndTheSealAreExact(t *testing.T) {
	at := ns("13:55:00")
	for name, tc := range map[string]struct {
		from, to string
		want     []diff
	}{
		"a sum raised": {`bytes{status="200"} 150`, `bytes{status="200"} 1000000000000000`,
			[]diff{{Kind: diffExtra, Start: at, Series: `bytes{status="200"}`, Tape: 1e15, Derived: 150}}},
		"a sum lowered": {`bytes{status="200"} 150`, `bytes{status="200"} 100`,
			[]diff{{Kind: diffShort, Start: at, Series: `bytes{status="200"}`, Tape: 100, Derived: 150}}},
		"a max raised": {`biggest 100`, `biggest 101`,
			[]diff{{Kind: diffExtra, Start: at, Series: `biggest`, Tape: 101, Derived: 100}}},
		"a count moved to another series": {`requests{status="200"} 2`, `requests{status="200"} 1` + "\n2026-10-10T13:55:00Z requests{status=\"204\"} 1",
			[]diff{{Kind: diffShort, Start: at, Series: `requests{status="200"}`, Tape: 1, Derived: 2}, {Kind: diffDisplaced, Start: at, Series: `requests{status="204"}`, Tape: 1, OneSide: true}}},
		"the late entry counted as well": {`requests{status="200"} 2`, `requests{status="200"} 2` + "\n2026-10-10T13:55:00Z requests{status=\"500\"} 1",
			[]diff{{Kind: diffExtra, Start: at, Series: `requests{status="500"}`, Tape: 1, OneSide: true}}},
		"the seal's entries= raised": {"entries=2", "entries=3",
			[]diff{{Kind: diffExtra, Start: at, Series: "entries=", Tape: 3, Derived: 2, Seal: true}}},
	} {
		t.Run(name, func(t *testing.T) {
			c := newFixture(t, threeBuckets, strings.Replace(lateTape(), tc.from, tc.to, 1)).compare(t)
			if fmt.Sprint(c.Diffs) != fmt.Sprint(tc.want) {
				t.Fatalf("want %+v\ngot  %+v", tc.want, c.Diffs)
			}
		})
	}
}

// A sum's value depends on the order its entries were added in, and two
// stores' entries are added in the order their batches took turns, which
// tgcheck cannot know: a difference within rounding is no difference.
func TestASumRoundedInAnotherOrderMatches(t *testing.T) {
	m := &doc.Metric{Name: "s", Kind: doc.Sum}
	exact := derivedSeries{Metric: m, Value: 0.5, Entries: 3, Abs: 2*9007199254740991 + 0.5}
	if !matches(exact, 1) {
		t.Errorf("9007199254740991 + 0.5 - 9007199254740991 summed in another order (1 for 0.5) must match")
	}
	small := derivedSeries{Metric: m, Value: 102.9, Entries: 40, Abs: 102.9}
	if !matches(small, 102.89999999999999) || matches(small, 102.8) {
		t.Errorf("102.89999999999999 must match 102.9 over 40 entries, 102.8 must not")
	}
	if matches(derivedSeries{Metric: &doc.Metric{Name: "n", Kind: doc.Count}, Value: 3, Entries: 3}, 4) {
		t.Errorf("a count must match exactly")
	}
}

func TestBucketsAfterTheLastSealOfAnOpenTapeAreOpen(t *testing.T) {
	tp := positions(threeBuckets, threeBucketsTape)
	tp = tp[:strings.Index(tp, `2026-10-10T13:55:10Z`)] // only 13:55:00 sealed
	f := newFixture(t, threeBuckets, tp)
	c := f.compare(t)
	if len(c.Diffs) != 0 || c.Buckets != 1 {
		t.Fatalf("want 1 matching bucket, got %+v", c)
	}
	// The tape knows web1 up to line 3: later entries are not re-derived.
	if c.Open != 0 {
		t.Fatalf("want no open bucket within what the tape knows, got %d", c.Open)
	}
	code, out := f.tgcheck("--against", "web1="+f.log)
	if code != 1 || !strings.Contains(out, "against: 1 bucket compared, 0 differences") || !strings.Contains(out, "conservation: the tape is open (no end record), sealed through the bucket at 2026-10-10T13:55:00Z (1 bucket)") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if code, out := f.tgcheck("--entries", "5"); code != 1 || !strings.Contains(out, "the tape is open") {
		t.Fatalf("--entries on an open tape: exit %d:\n%s", code, out)
	}
}

func TestAnOpenBucketWithinWhatTheTapeKnowsIsReportedOpen(t *testing.T) {
	// A !drop of a last garbage line makes the tape know every entry while
	// only 13:55:00 is sealed: 13:55:10 and 13:55:20 are open, not missing.
	lines := append(append([]string(nil), threeBuckets...), "garbage\n")
	tp := threeBucketsTape[:strings.Index(threeBucketsTape, `2026-10-10T13:55:10Z`)] +
		"!drop id=web1 offset=@P5@ end=@P6@ count=1 reason=format\n"
	c := newFixture(t, lines, positions(lines, tp)).compare(t)
	if len(c.Diffs) != 0 || c.Open != 2 || c.OpenFrom != ns("13:55:10") {
		t.Fatalf("want 2 open buckets from 13:55:10, got %+v", c)
	}
}

func TestConservationCountsCapLateAndDrop(t *testing.T) {
	tp := `2026-10-10T13:55:00Z requests{status="200"} 5
!cap 2026-10-10T13:55:00Z metric=requests id=web1 offset=0 end=100 count=2
seal 2026-10-10T13:55:00Z width=10s entries=7 at=web1:100
!late 2026-10-10T13:55:00Z id=web1 offset=100 end=200 count=3
!drop id=web1 offset=200 end=300 count=4 reason=format
end at=web1:300
`
	f := newFixture(t, nil, tp)
	got := conserve(f.load(t), 14)
	want := []balance{{Metric: "requests", Tape: 5, Cap: 2, Late: 3, Drop: 4, Fed: 14}}
	if len(got) != 1 || got[0] != want[0] || !got[0].Holds() {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	if conserve(f.load(t), 15)[0].Holds() {
		t.Fatal("15 fed, 14 accounted: holds")
	}
	if code, out := f.tgcheck("--entries", "15"); code != 1 || !strings.Contains(out, "= 14, fed 15: MISMATCH (-1)") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

func TestScanFindsFragmentsResealsBatchLatesAndOverfullBuckets(t *testing.T) {
	tp := `2026-10-10T13:55:00Z requests{status="200"} 512
seal 2026-10-10T13:55:00Z width=10s entries=512 at=web1:1000
2026-10-10T13:55:00Z requests{status="200"} 512
seal 2026-10-10T13:55:00Z width=10s entries=512 at=web1:2000
!late 2026-10-10T13:55:00Z id=web1 offset=2000 end=3000 count=512
!late 2026-10-10T13:55:00Z id=web1 offset=3000 end=3100 count=3
2026-10-10T13:55:10Z requests{status="200"} 9
seal 2026-10-10T13:55:10Z width=10s entries=8 at=web1:3200
`
	f := newFixture(t, nil, tp)
	fs := scan(f.load(t), defaultOldBatchSize)
	var lines []int
	for _, x := range fs {
		lines = append(lines, x.Line)
	}
	if fmt.Sprint(lines) != "[3 4 5 8]" {
		t.Fatalf("want findings on lines 3 4 5 8, got %+v", fs)
	}
	for i, want := range []string{"a fragment", "2 seals", "count=512", "totals 9 (with !cap) but its seal says entries=8"} {
		if !strings.Contains(fs[i].What, want) {
			t.Errorf("finding %d %q lacks %q", i, fs[i].What, want)
		}
	}
	if code, out := f.tgcheck("--scan", "--old-batch-size", "3"); code != 1 || !strings.Contains(out, "tape:6: !late 2026-10-10T13:55:00Z count=3") {
		t.Fatalf("--old-batch-size 3: exit %d:\n%s", code, out)
	}
}

func TestScanFindsASealThatHoldsMoreEntriesThanItsSeries(t *testing.T) {
	// Every entry placed in a bucket is in requests' series or !cap: a seal
	// of 5 entries over series of 3 is a tape missing lines.
	tp := `2026-10-10T13:55:00Z requests{status="200"} 2
2026-10-10T13:55:00Z requests{status="404"} 1
seal 2026-10-10T13:55:00Z width=10s entries=5 at=web1:500
`
	fs := scan(newFixture(t, nil, tp).load(t), defaultOldBatchSize)
	if len(fs) != 1 || fs[0].Line != 3 || !strings.Contains(fs[0].What, "requests totals 3 (with !cap) but its seal says entries=5: series lines are missing") {
		t.Fatalf("want one finding on line 3, got %+v", fs)
	}
}

// A damaged or missing tape is a failed check (exit 1), never a pass, and
// never the bad usage that 2 is kept for.
func TestAnUnreadableTapeIsAnErrorNeverAPass(t *testing.T) {
	for name, tp := range map[string]string{
		"torn":    "2026-10-10T13:55:00Z requests{status=\"200\"} 5\nseal 2026-10-10T13:55:00Z width=10s",
		"garbage": "hello world\n",
	} {
		f := newFixture(t, nil, tp)
		if code, out := f.tgcheck("--scan"); code != 1 || !strings.HasPrefix(out, "tgcheck: ") || !strings.Contains(out, "line ") {
			t.Errorf("%s: exit %d:\n%s", name, code, out)
		}
	}
	g := newFixture(t, nil, "2026-10-10T13:55:00Z requests{status=\"200\"} 5\ngarbage here\nseal 2026-10-10T13:55:00Z width=10s entries=5 at=web1:100\n")
	if code, out := g.tgcheck("--open", "--scan"); code != 1 || !strings.Contains(out, "line 2") {
		t.Errorf("--open on a damaged tape: exit %d:\n%s", code, out)
	}
	f := newFixture(t, nil, "")
	os.Remove(filepath.Join(f.dir, "tape"))
	if code, out := f.tgcheck("--scan"); code != 1 || !strings.Contains(out, "cannot read the tape") {
		t.Errorf("no tape: exit %d:\n%s", code, out)
	}
}

// A marker or a seal names the store whose entries it accounts for: a tape
// naming a store tgcheck was not given cannot be proved, whether the store
// was left out or the id was changed.
func TestATapeNamingAStoreNotGivenIsNotChecked(t *testing.T) {
	tp := strings.Replace(lateTape(), "!late 2026-10-10T13:55:00Z id=web1", "!late 2026-10-10T13:55:00Z id=web9", 1)
	f := newFixture(t, threeBuckets, tp)
	if code, out := f.tgcheck("--against", "web1="+f.log); code != 2 || !strings.Contains(out, "entries of store web9; give it with --against web9=PATH") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

func TestBadCommandLinesExit2WithAMessage(t *testing.T) {
	f := newFixture(t, threeBuckets, positions(threeBuckets, threeBucketsTape))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "nothing to check"},
		{[]string{"--entries", "x"}, "see tgcheck --help"},
		{[]string{"--against", "web2=" + f.log}, "entries of store web1; give it with --against web1=PATH"},
		{[]string{"--against", "web1=" + f.log, "--against", "web2=" + f.log}, "never fed from store web2"},
		{[]string{"--against", "web1=" + f.log, "--against", "web1=" + f.log}, "twice"},
	} {
		code, out := f.tgcheck(tc.args...)
		if code != 2 || !strings.Contains(out, tc.want) {
			t.Errorf("%v: exit %d, want 2 and %q:\n%s", tc.args, code, tc.want, out)
		}
	}
	var out bytes.Buffer
	if code := run([]string{"tgcheck", "--scan", "a", "b"}, &out, &out); code != 2 || !strings.Contains(out.String(), "name one tally store") {
		t.Errorf("two stores: exit %d:\n%s", code, out.String())
	}
}

func TestAStoreShorterThanTheTapeKnowsIsRefusedAsAFailedCheckExit1(t *testing.T) {
	tp := positions(threeBuckets, strings.ReplaceAll(threeBucketsTape, "@END@", "@P5@"))
	f := newFixture(t, threeBuckets[:2], tp)
	code, out := f.tgcheck("--against", "web1="+f.log)
	if code != 1 || !strings.Contains(out, "truncated or rotated") {
		t.Fatalf("exit %d, want 1:\n%s", code, out)
	}
}

// A store that cannot be read, missing or a truncated gzip generation, is
// a failed check (docs/design.md §7: 1), not a bad command line (2).
func TestAnAgainstStoreThatCannotBeReadExits1(t *testing.T) {
	f := newFixture(t, threeBuckets, positions(threeBuckets, threeBucketsTape))
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(strings.Repeat(threeBuckets[0], 50)))
	zw.Close()
	cut := filepath.Join(t.TempDir(), "access.log.1.gz")
	os.WriteFile(cut, gz.Bytes()[:gz.Len()/2], 0o644)
	for _, arg := range []string{"web1=" + f.log + ".missing", "web1=" + cut + "," + f.log} {
		if code, out := f.tgcheck("--against", arg); code != 1 || !strings.Contains(out, "store web1") {
			t.Errorf("--against %s: exit %d, want 1:\n%s", arg, code, out)
		}
	}
}

func TestABindingsFileThatCannotBeReadExits1NotAsAUsageError(t *testing.T) {
	f := newFixture(t, threeBuckets, positions(threeBuckets, threeBucketsTape))
	write(t, filepath.Join(f.dir, "bindings"), "not a bindings line\n")
	if code, out := f.tgcheck("--against", "web1="+f.log); code != 1 || !strings.Contains(out, "bindings") {
		t.Errorf("exit %d, want 1 naming the bindings file:\n%s", code, out)
	}
}

func TestDeriveFoldsSumMinMaxAndWhereAsTheSpecSays(t *testing.T) {
	lines := []string{line(1, 200, "-"), line(2, 200, "-"), line(3, 503, "40"), line(4, 503, "2"), "not a line\n"}
	f := newFixture(t, lines, "")
	s := f.load(t)
	d, err := derive(s.Doc, endedAt("web1", f.size), []input{{ID: "web1", Path: f.log}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for text, v := range d.Buckets[ns("13:55:00")] {
		got[text] = v.Value
	}
	want := map[string]float64{
		`requests{status="200"}`: 2, `requests{status="503"}`: 2,
		`bytes{status="200"}`: 0, `bytes{status="503"}`: 42,
		"biggest": 40, "errors": 2,
	}
	if fmt.Sprint(got) != fmt.Sprint(want) || d.Fed["web1"] != 5 {
		t.Fatalf("got %v fed %d, want %v fed 5", got, d.Fed["web1"], want)
	}
}

// endedAt is a tape that knows nothing of store id but that it was read to
// pos: every entry before pos is re-derived.
func endedAt(id string, pos int64) *tape.Resolved {
	return &tape.Resolved{End: &tape.Record{Kind: tape.End, At: []tape.Pos{{ID: id, Pos: pos}}}}
}

// ns returns the Unix nanoseconds of a clock time on the fixtures' day.
func ns(clock string) int64 {
	v, err := tape.ParseTime("2026-10-10T" + clock + "Z")
	if err != nil {
		panic(err)
	}
	return v
}

func TestEveryCheckFailsABucketWhoseSealWasRemovedOrHasAnotherWidth(t *testing.T) {
	tp := strings.Replace(threeBucketsTape, "seal 2026-10-10T13:55:10Z width=10s entries=1 at=web1:@P4@\n", "", 1)
	f := newFixture(t, threeBuckets, positions(threeBuckets, tp))
	fs := integrity(f.load(t))
	if len(fs) != 1 || fs[0].Line != 8 || !strings.Contains(fs[0].What, "bucket 2026-10-10T13:55:10Z has 3 series lines but no seal") {
		t.Fatalf("want one finding on line 8, got %+v", fs)
	}
	if code, out := f.tgcheck("--against", "web1="+f.log); code != 1 || !strings.Contains(out, "integrity: bucket 2026-10-10T13:55:10Z has 3 series lines but no seal") {
		t.Fatalf("--against should fail on it: exit %d:\n%s", code, out)
	}
	wide := strings.Replace(threeBucketsTape, "seal 2026-10-10T13:55:10Z width=10s", "seal 2026-10-10T13:55:10Z width=20s", 1)
	f = newFixture(t, threeBuckets, positions(threeBuckets, wide))
	if code, out := f.tgcheck("--against", "web1="+f.log); code != 1 || !strings.Contains(out, "integrity: seal 2026-10-10T13:55:10Z says width=20s, but the document's window is 10s") {
		t.Fatalf("a wrong width should fail: exit %d:\n%s", code, out)
	}
}

func TestLinesAfterTheEndRecordAreNamedAsNotFed(t *testing.T) {
	f := newFixture(t, threeBuckets, positions(threeBuckets, threeBucketsTape+"end at=web1:@END@\n"))
	grown, err := os.OpenFile(f.log, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	grown.WriteString(threeBuckets[0] + threeBuckets[1])
	grown.Close()
	code, out := f.tgcheck("--against", "web1="+f.log)
	if code != 0 || !strings.Contains(out, "note: store web1 has 2 complete lines after the end record's position") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

func TestInABucketWithCapMarkersAloneEverySeriesOnTheTapeIsExact(t *testing.T) {
	// The 500 entry was over the cap for requests; biggest was lowered by hand.
	tp := strings.Replace(threeBucketsTape, "2026-10-10T13:55:00Z requests{status=\"500\"} 1\n", "", 1)
	tp = strings.Replace(tp, "2026-10-10T13:55:00Z biggest 100\n", "2026-10-10T13:55:00Z biggest 90\n", 1)
	tp = strings.Replace(tp, "seal 2026-10-10T13:55:00Z", "!cap 2026-10-10T13:55:00Z metric=requests id=web1 offset=@P2@ end=@P3@ count=1\nseal 2026-10-10T13:55:00Z", 1)
	c := newFixture(t, threeBuckets, positions(threeBuckets, tp)).compare(t)
	if len(c.Diffs) != 1 || c.Diffs[0].Kind != diffShort || c.Diffs[0].Series != "biggest" {
		t.Fatalf("want biggest short in a bucket with only !cap markers, got %+v", c.Diffs)
	}
}

// A !cap marker of any metric (a sum, a max, a count with where= too) must
// hold the entries of its series left off the tape: deleting it leaves
// its series missing, and claiming more entries than its range holds is a
// marker finding.
func TestTheCapMarkersOfEveryMetricAccountForTheSeriesLeftOut(t *testing.T) {
	// The 500 entry was over the cap (1 series) for requests and bytes.
	capped := strings.Replace(threeBucketsTape, "2026-10-10T13:55:00Z requests{status=\"500\"} 1\n", "", 1)
	capped = strings.Replace(capped, "2026-10-10T13:55:00Z bytes{status=\"500\"} 0\n", "", 1)
	marks := "!cap 2026-10-10T13:55:00Z metric=requests id=web1 offset=@P2@ end=@P3@ count=1\n" +
		"!cap 2026-10-10T13:55:00Z metric=bytes id=web1 offset=@P2@ end=@P3@ count=1\n"
	tp := strings.Replace(capped, "seal 2026-10-10T13:55:00Z", marks+"seal 2026-10-10T13:55:00Z", 1)
	if c := newFixture(t, threeBuckets, positions(threeBuckets, tp)).compare(t); len(c.Diffs) != 0 {
		t.Fatalf("a tape capped as tally caps: want no difference, got %+v", c.Diffs)
	}
	deleted := strings.Replace(tp, "!cap 2026-10-10T13:55:00Z metric=bytes id=web1 offset=@P2@ end=@P3@ count=1\n", "", 1)
	want := diff{Kind: diffMissing, Start: ns("13:55:00"), Series: `bytes{status="500"}`, OneSide: true}
	if c := newFixture(t, threeBuckets, positions(threeBuckets, deleted)).compare(t); len(c.Diffs) != 1 || c.Diffs[0] != want {
		t.Fatalf("the bytes marker deleted: want %+v, got %+v", want, c.Diffs)
	}
	inflated := strings.Replace(tp, "metric=bytes id=web1 offset=@P2@ end=@P3@ count=1", "metric=bytes id=web1 offset=@P2@ end=@P3@ count=2", 1)
	f := newFixture(t, threeBuckets, positions(threeBuckets, inflated))
	if code, out := f.tgcheck("--against", "web1="+f.log); code != 1 || !strings.Contains(out, "its range holds 1 entries, not count=2") {
		t.Fatalf("the bytes marker inflated: exit %d:\n%s", code, out)
	}
}

// A marker covers one run of consecutive entries of its kind and bucket
// (docs/design.md §5): its range must hold exactly its count entries, each of them
// late or capped in its bucket, or dropped for its reason. A marker moved
// onto other entries, or whose count= was changed, is a finding.
func TestEachMarkersRangeHoldsCountEntriesOfItsKind(t *testing.T) {
	lines := []string{line(1, 200, "100"), line(2, 200, "50"), line(5, 500, "-"), "garbage\n", line(12, 404, "7")}
	good := `2026-10-10T13:55:00Z requests{status="200"} 2
2026-10-10T13:55:00Z bytes{status="200"} 150
2026-10-10T13:55:00Z biggest 100
2026-10-10T13:55:00Z errors 1
!cap 2026-10-10T13:55:00Z metric=requests id=web1 offset=@P2@ end=@P3@ count=1
!cap 2026-10-10T13:55:00Z metric=bytes id=web1 offset=@P2@ end=@P3@ count=1
seal 2026-10-10T13:55:00Z width=10s entries=3 at=web1:@P3@
!drop id=web1 offset=@P3@ end=@P4@ count=1 reason=format
!late 2026-10-10T13:55:10Z id=web1 offset=@P4@ end=@END@ count=1
end at=web1:@END@
`
	f := newFixture(t, lines, positions(lines, good))
	if code, out := f.tgcheck("--against", "web1="+f.log); code != 0 || strings.Contains(out, "marker:") {
		t.Fatalf("a tape whose markers hold their entries: exit %d:\n%s", code, out)
	}
	for name, tc := range map[string]struct{ from, to, want string }{
		"a !late moved onto an entry of another bucket": {"!late 2026-10-10T13:55:10Z id=web1 offset=@P4@ end=@END@", "!late 2026-10-10T13:55:10Z id=web1 offset=@P1@ end=@P2@",
			"its range holds an entry of bucket 2026-10-10T13:55:00Z"},
		"a !drop moved onto an entry that extracts": {"!drop id=web1 offset=@P3@ end=@P4@", "!drop id=web1 offset=@P1@ end=@P2@", "its range holds an entry that extracts (bucket 2026-10-10T13:55:00Z)"},
		"a !drop of another reason":                 {"count=1 reason=format", "count=1 reason=time", "its range holds an entry dropped for reason=format"},
		"a !cap moved onto an entry whose series is on the tape": {"metric=requests id=web1 offset=@P2@ end=@P3@", "metric=requests id=web1 offset=@P1@ end=@P2@",
			`its range holds an entry of requests{status="200"}, which is on the tape`},
		"a !cap whose count= was raised":                {"metric=bytes id=web1 offset=@P2@ end=@P3@ count=1", "metric=bytes id=web1 offset=@P2@ end=@P3@ count=2", "its range holds 1 entries, not count=2"},
		"a !cap of a metric the entry has no value for": {"metric=bytes id=web1", "metric=biggest id=web1", "its range holds an entry with no value for metric biggest"},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, lines, positions(lines, strings.Replace(good, tc.from, tc.to, 1)))
			code, out := f.tgcheck("--against", "web1="+f.log)
			if code != 1 || !strings.Contains(out, tc.want) {
				t.Fatalf("exit %d, want a finding with %q:\n%s", code, tc.want, out)
			}
		})
	}
}

// Every check proves the tape is of the store's own document: a series or
// a !cap marker of a metric it does not have, or labelled otherwise, is an
// integrity failure even for --entries alone, which re-derives nothing.
func TestATapeOfAnotherDocumentFailsEveryCheck(t *testing.T) {
	for name, tc := range map[string]struct{ from, to, want string }{
		"a metric the document lacks": {`2026-10-10T13:55:10Z biggest 7`, "2026-10-10T13:55:10Z biggest 7\n2026-10-10T13:55:10Z foo 1",
			"series foo: the document has no metric foo"},
		"a label the metric lacks": {`2026-10-10T13:55:10Z requests{status="404"} 1`, `2026-10-10T13:55:10Z requests{code="404"} 1`,
			`series requests{code="404"}: metric requests is labelled by=status in the document`},
		"a !cap of a metric the document lacks": {"seal 2026-10-10T13:55:10Z", "!cap 2026-10-10T13:55:10Z metric=paths id=web1 offset=@P3@ end=@P4@ count=1\nseal 2026-10-10T13:55:10Z",
			"!cap marker of metric paths: the document has no such metric"},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, threeBuckets, positions(threeBuckets, strings.Replace(threeBucketsTape, tc.from, tc.to, 1)))
			if code, out := f.tgcheck("--entries", "5"); code != 1 || !strings.Contains(out, "integrity: "+tc.want) {
				t.Fatalf("exit %d, want %q:\n%s", code, tc.want, out)
			}
		})
	}
}

// The end record says the input was complete up to its positions, so they
// are at or past everything else the tape accounts for, store by store.
func TestAnEndRecordBelowWhatTheTapeAccountsForFailsEveryCheck(t *testing.T) {
	for name, tc := range map[string]struct{ to, want string }{
		"a bare end":     {"end\n", "the end record lists no store (end at=ID:POS,...)"},
		"an end lowered": {"end at=web1:@P4@\n", "the end record has store web1 at @P4@, below @END@, which the tape accounts for"},
	} {
		t.Run(name, func(t *testing.T) {
			tp := strings.Replace(threeBucketsTape, "end at=web1:@END@\n", tc.to, 1)
			f := newFixture(t, threeBuckets, positions(threeBuckets, tp))
			want := strings.ReplaceAll(positions(threeBuckets, tc.want), "@END@", fmt.Sprint(f.size))
			if code, out := f.tgcheck("--entries", "5"); code != 1 || !strings.Contains(out, "integrity: "+want) {
				t.Fatalf("exit %d, want %q:\n%s", code, want, out)
			}
		})
	}
}

// A seal's at= puts each store's entries of its bucket on two sides: those
// before it in the bucket (or its !cap), those at or after it !late. An
// at= moved, or a bucket sealed with entries some of which sit in !late
// before its at=, is a finding at the seal's line.
func TestEntriesOnTheWrongSideOfTheirSealsAtAreFound(t *testing.T) {
	f := newFixture(t, threeBuckets, lateTape())
	if code, out := f.tgcheck("--against", "web1="+f.log); code != 0 || strings.Contains(out, "seal:") {
		t.Fatalf("a tape whose seals' at= agree with its !late: exit %d:\n%s", code, out)
	}
	for name, tc := range map[string]struct{ from, to, want string }{
		"at= lowered": {"entries=2 at=web1:@P2@", "entries=2 at=web1:@P1@", "at=web1:@P1@: 0 entries of the bucket before it are !late and 1 at or after it are not (the first at @P1@)"},
		"at= raised":  {"entries=2 at=web1:@P2@", "entries=2 at=web1:@P3@", "at=web1:@P3@: 1 entries of the bucket before it are !late and 0 at or after it are not (the first at @P2@)"},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, threeBuckets, positions(threeBuckets, strings.Replace(lateTape(), positions(threeBuckets, tc.from), positions(threeBuckets, tc.to), 1)))
			want := "seal 2026-10-10T13:55:00Z " + positions(threeBuckets, tc.want)
			if code, out := f.tgcheck("--against", "web1="+f.log); code != 1 || !strings.Contains(out, want) {
				t.Fatalf("exit %d, want %q:\n%s", code, want, out)
			}
		})
	}
}

func TestStrictAloneChecksThatTheTapeHasNoMarker(t *testing.T) {
	f := newFixture(t, threeBuckets, positions(threeBuckets, threeBucketsTape))
	if code, out := f.tgcheck("--strict"); code != 0 {
		t.Fatalf("a tape without markers: exit %d:\n%s", code, out)
	}
	f = newFixture(t, threeBuckets, lateTape())
	if code, out := f.tgcheck("--strict"); code != 1 || !strings.Contains(out, "strict: 1 !late markers (1 entries)") {
		t.Fatalf("a tape with a !late marker: exit %d:\n%s", code, out)
	}
}

// dropFixture is five lines, the fourth garbage, and their tape: two
// buckets and a !drop marker at p3..p4.
func dropFixture() (lines []string, tapeText string, p3, p4 int) {
	lines = []string{line(1, 200, "100"), line(2, 200, "50"), line(5, 500, "-"), "garbage\n", line(12, 404, "7")}
	p3, p4 = len(lines[0])+len(lines[1])+len(lines[2]), len(lines[0])+len(lines[1])+len(lines[2])+len(lines[3])
	tapeText = fmt.Sprintf(`2026-10-10T13:55:00Z requests{status="200"} 2
2026-10-10T13:55:00Z requests{status="500"} 1
2026-10-10T13:55:00Z bytes{status="200"} 150
2026-10-10T13:55:00Z bytes{status="500"} 0
2026-10-10T13:55:00Z biggest 100
2026-10-10T13:55:00Z errors 1
seal 2026-10-10T13:55:00Z width=10s entries=3 at=web1:%d
!drop id=web1 offset=%d end=%d count=1 reason=format
2026-10-10T13:55:10Z requests{status="404"} 1
2026-10-10T13:55:10Z bytes{status="404"} 7
2026-10-10T13:55:10Z biggest 7
seal 2026-10-10T13:55:10Z width=10s entries=1 at=web1:@END@
end at=web1:@END@
`, p3, p3, p4)
	return lines, tapeText, p3, p4
}

// A marker's range holds whole entries: its offset= is where its first
// entry starts and its end= where its last one ends. A range cut inside an
// entry holds the same count, so only the boundaries show it.
func TestAMarkerRangeCutInsideAnEntryIsFound(t *testing.T) {
	lines, good, p3, p4 := dropFixture()
	f := newFixture(t, lines, good)
	if code, out := f.tgcheck("--against", "web1="+f.log); code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	for name, tc := range map[string]struct{ from, to, want string }{
		"offset= inside the entry before": {fmt.Sprintf("offset=%d end=%d", p3, p4), fmt.Sprintf("offset=%d end=%d", p3-5, p4), "its offset= is not where an entry starts"},
		"end= short of its entry's end":   {fmt.Sprintf("offset=%d end=%d", p3, p4), fmt.Sprintf("offset=%d end=%d", p3, p4-1), "its end= is not where an entry ends"},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, lines, strings.Replace(good, tc.from, tc.to, 1))
			if code, out := f.tgcheck("--against", "web1="+f.log); code != 1 || !strings.Contains(out, tc.want) {
				t.Fatalf("exit %d, want %q:\n%s", code, tc.want, out)
			}
		})
	}
}

// Records after an end record are a later run's, which may read further
// into a store that grew: the end record need only reach what came before.
// And a run may feed some of the stores only: its end lists those.
func TestARunAfterAnEndRecordMayReadPastIt(t *testing.T) {
	tp := strings.Replace(threeBucketsTape, "seal 2026-10-10T13:55:10Z width=10s entries=1 at=web1:@P4@\n",
		"seal 2026-10-10T13:55:10Z width=10s entries=1 at=web1:@P4@\nend at=web1:@P4@\n", 1)
	tp = strings.Replace(tp, "end at=web1:@END@\n", "", 1)
	f := newFixture(t, threeBuckets, positions(threeBuckets, tp))
	if code, out := f.tgcheck("--against", "web1="+f.log); code != 0 || strings.Contains(out, "integrity") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

// A run may feed some of the stores only (another one is away for a
// while): its end record lists those, and the others keep their place.
func TestAnEndRecordOfARunOverSomeStoresOnly(t *testing.T) {
	tp := strings.ReplaceAll(threeBucketsTape, " at=web1:@P3@", " at=web1:@P3@,web2:0")
	tp = strings.Replace(tp, " at=web1:@P4@\n", " at=web1:@P4@,web2:0\nend at=web1:@P4@,web2:0\n", 1)
	f := newFixture(t, threeBuckets, positions(threeBuckets, tp))
	if code, out := f.tgcheck("--entries", "5"); code != 0 || strings.Contains(out, "integrity") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

// futureLine is an entry stamped two days after the others.
const futureLine = `10.0.0.1 - - [12/Oct/2026:13:55:01 +0000] "GET /x HTTP/1.1" 200 5 "-" "a"` + "\n"

// A !drop reason=future holds an entry that extracts, which tgcheck takes
// as dropped only when it is more than the document's future bound (a day)
// ahead of every entry of its store before it: tally's wall clock, which
// tgcheck does not know, was not behind those. Over an ordinary entry the
// marker is wrong, and said so.
func TestAFutureDropIsAcceptedOnlyBeyondTheBoundOfTheEntriesBeforeIt(t *testing.T) {
	lines := []string{line(1, 200, "100"), futureLine, line(5, 200, "50")}
	tp := `!drop id=web1 offset=@P1@ end=@P2@ count=1 reason=future
2026-10-10T13:55:00Z requests{status="200"} 2
2026-10-10T13:55:00Z bytes{status="200"} 150
2026-10-10T13:55:00Z biggest 100
seal 2026-10-10T13:55:00Z width=10s entries=2 at=web1:@END@
end at=web1:@END@
`
	f := newFixture(t, lines, positions(lines, tp))
	if code, out := f.tgcheck("--against", "web1="+f.log); code != 0 || !strings.Contains(out, " 0 differences") {
		t.Fatalf("a future drop two days ahead: exit %d\n%s", code, out)
	}
	// The same marker over the entry at 13:55:05, four seconds after the first.
	bogus := []string{line(1, 200, "100"), line(5, 200, "50"), futureLine}
	tp = `!drop id=web1 offset=@P1@ end=@P2@ count=1 reason=future
2026-10-10T13:55:00Z requests{status="200"} 1
2026-10-10T13:55:00Z bytes{status="200"} 100
2026-10-10T13:55:00Z biggest 100
seal 2026-10-10T13:55:00Z width=10s entries=1 at=web1:@P2@
`
	f = newFixture(t, bogus, positions(bogus, tp))
	if code, out := f.tgcheck("--against", "web1="+f.log); code != 1 || !strings.Contains(out, "holds an entry that extracts") {
		t.Fatalf("a future drop over an ordinary entry: exit %d\n%s", code, out)
	}
}

// derive is one call: given only the stores as the user names them (id and
// path), it takes from the tape how far each is known, its markers and its
// seals' at=, so no step can be forgotten that would make it derive
// nothing.
func TestDeriveTakesWhatTheTapeSaysOfEachStoreByItself(t *testing.T) {
	f := newFixture(t, threeBuckets, positions(threeBuckets, threeBucketsTape))
	s := f.load(t)
	d, err := derive(s.Doc, s.Tape, []input{{ID: "web1", Path: f.log}})
	if err != nil {
		t.Fatal(err)
	}
	if d.Fed["web1"] != 5 || len(d.Buckets) != 3 || d.Buckets[ns("13:55:00")][`requests{status="200"}`].Value != 2 {
		t.Fatalf("Derive fed %d entries into %d buckets, want 5 into 3: %+v", d.Fed["web1"], len(d.Buckets), d.Buckets)
	}
	if c := compare(s, d); len(c.Diffs) != 0 {
		t.Fatalf("differences: %+v", c.Diffs)
	}
}

// A histogram re-derives as its tape lines: a _bucket per bound,
// cumulative, le last and +Inf included, its _sum within a sum's rounding,
// its _count; a value that is not a number is in none of them.
func TestDeriveFoldsAHistogramIntoItsPrometheusSeries(t *testing.T) {
	root := t.TempDir()
	log := filepath.Join(root, "web1")
	entries := "1791640201 200 5000\n1791640202 200 5001\n1791640203 200 -\n1791640204 200 20000000\n"
	write(t, log, entries)
	d, err := doc.Parse("h", []byte("format regex ^(?P<t>\\d+) (?P<status>\\d+) (?P<us>\\S+)$\ntime t layout=unix\nwindow 10s\nmetric latency histogram=us buckets=0.005,1 scale=0.000001 by=status\n"))
	if err != nil {
		t.Fatal(err)
	}
	dv, err := derive(d, endedAt("web1", int64(len(entries))), []input{{ID: "web1", Path: log}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for text, s := range dv.Buckets[1791640200e9] {
		got[text] = s.Value
	}
	want := map[string]float64{
		`latency_bucket{status="200",le="0.005"}`: 1,
		`latency_bucket{status="200",le="1"}`:     2,
		`latency_bucket{status="200",le="+Inf"}`:  3,
		`latency_sum{status="200"}`:               0.005 + 0.005001 + 20,
		`latency_count{status="200"}`:             3,
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("derived %v\nwant %v", got, want)
	}
	if b := dv.Buckets[1791640200e9][`latency_bucket{status="200",le="1"}`]; b.Bound != "1" || !matches(b, 2) || matches(b, 2.0000000001) {
		t.Errorf("a bucket's count must match exactly and name its bound: %+v", b)
	}
}

func TestMaxDropFailsATapeWhoseDropShareIsAbove(t *testing.T) {
	lines, tapeText, _, _ := dropFixture()
	f := newFixture(t, lines, tapeText)
	if code, out := f.tgcheck("--max-drop", "20"); code != 0 || !strings.Contains(out, "drops: 1 of 5 entries (20.00%) are !drop") {
		t.Fatalf("1 drop in 5 under --max-drop 20: exit %d:\n%s", code, out)
	}
	if code, out := f.tgcheck("--max-drop", "19.9"); code != 1 || !strings.Contains(out, "above --max-drop 19.9%") {
		t.Fatalf("1 drop in 5 under --max-drop 19.9: exit %d:\n%s", code, out)
	}
	if code, out := f.tgcheck("--max-drop", "101"); code != 2 || !strings.Contains(out, "is not a percentage") {
		t.Fatalf("--max-drop 101: exit %d:\n%s", code, out)
	}
}

// A document of a histogram only has no count to conserve: tgcheck says so
// instead of printing nothing.
func TestConservationWithoutACountMetricSaysThereIsNothingToBalance(t *testing.T) {
	var out bytes.Buffer
	if !printBalances(&out, nil) || !strings.Contains(out.String(), "conservation: the document has no count metric without where=") {
		t.Errorf("printBalances(nil) wrote %q", out.String())
	}
}

func TestHelpSaysMaxDropIsOffUnlessGiven(t *testing.T) {
	var out bytes.Buffer
	if code := run([]string{"tgcheck", "--help"}, &out, &out); code != 0 {
		t.Fatalf("exit %d: %s", code, out.String())
	}
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.Contains(line, "--max-drop") && strings.Contains(line, "(default: off)") {
			return
		}
	}
	t.Errorf("no --max-drop line saying (default: off): %q", out.String())
}

// A line of a kind a later tally added is passed over, as tgpush and tally
// pass it over: the tape proves as it does without it, with a note per
// kind; a damaged line is still a failed check.
func TestALaterKindsLineIsPassedOverWithANoteAndTheTapeStillProves(t *testing.T) {
	tp := positions(threeBuckets, threeBucketsTape)
	at := strings.Index(tp, "seal 2026-10-10T13:55:10Z")
	f := newFixture(t, threeBuckets, tp[:at]+"identity id=web1 dev=1 ino=2\n"+tp[at:]+"!mark at=web1:5 why=x\n")
	code, out := f.tgcheck("--against", "web1="+f.log, "--scan", "--strict")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	for _, want := range []string{"conservation requests: tape 5 + cap 0 + late 0 + drop 0 = 5, fed 5: ok", "0 differences", "scan: 0 signatures",
		`note: ` + filepath.Join(f.dir, "tape") + `:11: records of kind "identity"`, `note: ` + filepath.Join(f.dir, "tape") + `:18: records of kind "!mark"`} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	g := newFixture(t, threeBuckets, tp[:at]+"identity Id=web1\n"+tp[at:])
	fix := "re-make it from its logs, tally --provision --replace --doc " + filepath.Join(g.dir, "document") + " " + g.dir + " (the old tape is kept beside it), then feed --reset --cursor FILE web1=" + g.log + " -- tally --run " + g.dir
	if code, out := g.tgcheck("--scan", "--against", "web1="+g.log); code != 1 || !strings.Contains(out, "line 11") || !strings.Contains(out, fix) {
		t.Errorf("a damaged line: exit %d, want 1 naming line 11 and %q:\n%s", code, fix, out)
	}
}
