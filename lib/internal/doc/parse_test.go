package doc

import (
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// base is a valid document that the error cases below break one line of.
const base = "format apache-combined\nwindow 10s\nmetric requests count by=status\n"

func TestParseErrorsNameTheLineAndWhatWasExpected(t *testing.T) {
	for _, c := range []struct {
		name, text string
		line       int
		msg        string
	}{
		{"unknown directive", base + "buckets 10s\n", 4, `unknown directive "buckets"; want format, envelope, time, window, cap, future or metric`},
		{"no format", "window 10s\nmetric r count\n", 2, "the document ends without a format; add one, e.g. format apache-combined"},
		{"unknown format", "format nginx-plus\nwindow 10s\nmetric r count\n", 1, formatWant},
		{"format with extra word", "format apache-common extra\n", 1, formatWant},
		{"second format", base + "format apache-common\n", 4, `a second "format" directive (the first is on line 1); keep one`},
		{"empty regex", "format regex \n", 1, `"format regex" wants an RE2 with named groups, e.g. format regex ^(?P<time>\S+) (?P<status>\d+)$`},
		{"bad regex", "format regex (?P<a>x\n", 1, "the regex does not compile: error parsing regexp: missing closing ): `(?P<a>x`"},
		{"regex without groups", "format regex ^x$\n", 1, "the regex has no named groups; name each field as (?P<name>...)"},
		{"regex naming a group twice", "format regex (?P<a>x)(?P<a>y)\n", 1, `the regex names group "a" twice; give each field one group`},
		{"regex without time", "format regex (?P<t>x)\nwindow 1s\nmetric r count\n", 1, `"format regex" needs a time directive naming a group, e.g. time ts layout=rfc3339`},
		{"time without layout", base + "time time\n", 4, timeWant},
		{"time without field", base + "time layout=clf\n", 4, timeWant},
		{"time with two fields", base + "time a b layout=clf\n", 4, timeWant},
		{"time layout glued to field", base + "time timelayout=clf\n", 4, timeWant},
		{"time with empty layout", base + "time time layout=  # none\n", 4, timeWant},
		{"time layout without elements", base + "time time layout=hello\n", 4, `layout "hello" has no Go time elements (2006, 01, Jan, 02, 15, 04, 05, -0700); ` + timeWant},
		{"time field missing", base + "time when layout=clf\n", 4, `time field "when" is not a field of the format (host ident user time method path proto status bytes referer agent)`},
		{"second time", base + "time time layout=clf\ntime time layout=clf\n", 5, `a second "time" directive (the first is on line 4); keep one`},
		{"no window", "format apache-common\nmetric r count\n", 2, "the document ends without a window; add one, e.g. window 10s grace=30s"},
		{"window without duration", "format apache-common\nwindow\n", 2, windowWant},
		{"window zero", "format apache-common\nwindow 0s\n", 2, `window "0s" is not a duration above zero; ` + windowWant},
		{"window not a duration", "format apache-common\nwindow ten\n", 2, `window "ten" is not a duration above zero; ` + windowWant},
		{"negative grace", "format apache-common\nwindow 10s grace=-1s\n", 2, `grace "-1s" is not a duration of zero or more; ` + windowWant},
		{"grace without key", "format apache-common\nwindow 10s 5s\n", 2, windowWant},
		{"second window", base + "window 5s\n", 4, `a second "window" directive (the first is on line 2); keep one`},
		{"cap zero", base + "cap 0\n", 4, capWant},
		{"cap not a number", base + "cap many\n", 4, capWant},
		{"cap with a sign", base + "cap +5\n", 4, capWant},
		{"future zero", base + "future 0s\n", 4, `future "0s" is not a duration above zero; ` + futureWant},
		{"future in days", base + "future 1d\n", 4, `future "1d" is not a duration above zero; ` + futureWant},
		{"future without a bound", base + "future\n", 4, futureWant},
		{"second future", base + "future 1h\nfuture 2h\n", 5, `a second "future" directive (the first is on line 4); keep one`},
		{"second cap", base + "cap 5\ncap 6\n", 5, `a second "cap" directive (the first is on line 4); keep one`},
		{"no metric", "format apache-common\nwindow 10s\n", 2, "the document ends without a metric; add one, e.g. metric requests count by=status"},
		{"metric without kind", base + "metric requests\n", 4, metricWant},
		{"metric name not prometheus", base + "metric 2xx count\n", 4, `metric name "2xx" is not a Prometheus metric name ([a-zA-Z_:][a-zA-Z0-9_:]*); ` + metricWant},
		{"metric name twice", base + "metric requests count\n", 4, "metric requests is already defined on line 3; give each metric its own name"},
		{"unknown kind", base + "metric r avg=bytes\n", 4, `metric r: kind "avg=bytes" is not one; ` + kindWant},
		{"sum without field", base + "metric r sum=\n", 4, `metric r: kind "sum=" is not one; ` + kindWant},
		{"sum of missing field", base + "metric r sum=size\n", 4, `metric r names field "size", which the format does not have (host ident user time method path proto status bytes referer agent)`},
		{"min of missing field", base + "metric r min=size\n", 4, `metric r names field "size", which the format does not have (host ident user time method path proto status bytes referer agent)`},
		{"by label not prometheus", base + "metric r count by=sta-tus\n", 4, `metric r: by= label "sta-tus" is not a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*, not starting with __)`},
		{"by reserved label", base + "metric r count by=__name\n", 4, `metric r: by= label "__name" is not a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*, not starting with __)`},
		{"by empty label", base + "metric r count by=status,\n", 4, `metric r: by= label "" is not a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*, not starting with __)`},
		{"by label twice", base + "metric r count by=status,status\n", 4, `metric r: by= names "status" twice; name each label once`},
		{"by missing field", "format apache-common\nwindow 1s\nmetric r count by=agent\n", 3, `metric r names field "agent", which the format does not have (host ident user time method path proto status bytes)`},
		{"second by", base + "metric r count by=status by=host\n", 4, "metric r: a second by=; write it once"},
		{"unknown option", base + "metric r count every=1\n", 4, `metric r: unknown option "every=1"; want by=F1,F2 or where=F<op>VALUE`},
		{"where without op", base + "metric r count where=status\n", 4, "metric r: where=status wants FIELD<op>VALUE with op one of = != < <= > >=, e.g. where=status>=500"},
		{"where without value", base + "metric r count where=status>=\n", 4, "metric r: where=status>= wants FIELD<op>VALUE with op one of = != < <= > >=, e.g. where=status>=500"},
		{"where without field", base + "metric r count where=>=5\n", 4, "metric r: where=>=5 wants FIELD<op>VALUE with op one of = != < <= > >=, e.g. where=status>=500"},
		{"where missing field", base + "metric r count where=code=5\n", 4, `metric r names field "code", which the format does not have (host ident user time method path proto status bytes referer agent)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, err := Parse("site.tally", []byte(c.text))
			var de *Error
			if !errors.As(err, &de) {
				t.Fatalf("Parse = %v, %v; want a *Error", d, err)
			}
			if de.Line != c.line || de.Msg != c.msg {
				t.Errorf("error at line %d: %s\nwant line %d: %s", de.Line, de.Msg, c.line, c.msg)
			}
			if !strings.HasPrefix(err.Error(), "doc site.tally:") {
				t.Errorf("error %q does not start with the document's name", err)
			}
		})
	}
}

func TestParseReadsEveryDirective(t *testing.T) {
	text := "# a document\n" +
		"format regex ^(?P<ts>\\S+) (?P<code>\\d+) (?P<size>\\d+)#?$\r\n" +
		"  time ts layout=2006-01-02 15:04:05 # a Go layout with a space\n" +
		"window 1m grace=5s\t# trailing comment\n" +
		"cap 50\n" +
		"\n" +
		"metric hits count\n" +
		"metric big max=size by=code where=size>=1000\n" +
		"metric ok:ish sum=size where=code!=#5\n"
	d, err := Parse("x.tally", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	want := &Doc{
		Name: "x.tally", Text: []byte(text), Format: Regex,
		Regex:     `^(?P<ts>\S+) (?P<code>\d+) (?P<size>\d+)#?$`,
		TimeField: "ts", Layout: "2006-01-02 15:04:05",
		Width: time.Minute, Grace: 5 * time.Second, Cap: 50, Future: DefaultFuture,
		Metrics: []Metric{
			{Name: "hits", Kind: Count, Line: 7},
			{Name: "big", Kind: Max, Field: "size", By: []string{"code"}, Where: &Where{Field: "size", Op: Ge, Value: "1000"}, Line: 8},
			{Name: "ok:ish", Kind: Sum, Field: "size", Where: &Where{Field: "code", Op: Ne, Value: "#5"}, Line: 9},
		},
	}
	if !reflect.DeepEqual(d, want) {
		t.Errorf("Parse =\n%+v\nwant\n%+v", d, want)
	}
	if got := d.Fields(); !reflect.DeepEqual(got, []string{"ts", "code", "size"}) {
		t.Errorf("Fields = %q", got)
	}
}

func TestParseReadsEachWhereOperatorLongestFirst(t *testing.T) {
	for val, want := range map[string]Where{
		"status=200":  {"status", Eq, "200"},
		"status!=200": {"status", Ne, "200"},
		"status<200":  {"status", Lt, "200"},
		"status<=200": {"status", Le, "200"},
		"status>200":  {"status", Gt, "200"},
		"status>=200": {"status", Ge, "200"},
	} {
		d, err := Parse("w", []byte(base+"metric w count where="+val+"\n"))
		if err != nil {
			t.Fatalf("where=%s: %v", val, err)
		}
		if got := *d.Metrics[1].Where; got != want {
			t.Errorf("where=%s parsed as %+v, want %+v", val, got, want)
		}
	}
	// A value starting with an operator is a typo, not a value: "<>" would
	// read as < ">5", "=>" as = ">5".
	for _, val := range []string{"status<>5", "status=>5", "status==5", "status!==5"} {
		if _, err := Parse("w", []byte(base+"metric w count where="+val+"\n")); err == nil || !strings.Contains(err.Error(), "wants FIELD<op>VALUE") {
			t.Errorf("where=%s: want a refusal, got %v", val, err)
		}
	}
}

func TestLayoutsThatCannotPlaceATimeAreRefused(t *testing.T) {
	for layout, msg := range map[string]string{
		"2006-01-02 15:04:05 MST": "zone name",
		"Jan _2 15:04:05":         "no year",
		"15:04":                   "no year",
	} {
		_, err := Parse("l", []byte("format regex ^(?P<t>.+)$\ntime t layout="+layout+"\nwindow 10s\nmetric n count\n"))
		if err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("layout %q: want an error saying %q, got %v", layout, msg, err)
		}
	}
	for _, layout := range []string{"2006-01-02 15:04:05 -0700", "2006-01-02T15:04:05Z07:00", "02/Jan/2006:15:04", "2006-01-02 15:04:05.000", "2006-01-02"} {
		if _, err := Parse("l", []byte("format regex ^(?P<t>.+)$\ntime t layout="+layout+"\nwindow 10s\nmetric n count\n")); err != nil {
			t.Errorf("layout %q: %v", layout, err)
		}
	}
}

func TestParseDefaultsTimeCapAndGraceForBuiltinFormats(t *testing.T) {
	d, err := Parse("d", []byte(base))
	if err != nil {
		t.Fatal(err)
	}
	if d.TimeField != "time" || d.Layout != LayoutCLF || d.Cap != DefaultCap || d.Grace != 0 {
		t.Errorf("defaults: time %q layout %q cap %d grace %v", d.TimeField, d.Layout, d.Cap, d.Grace)
	}
}

func TestParseAcceptsEachNamedLayout(t *testing.T) {
	for _, l := range []string{LayoutCLF, LayoutRFC3339, LayoutUnix, LayoutUnixMs, "02/Jan/2006:15:04:05.000 -0700"} {
		d, err := Parse("l", []byte(base+"time time layout="+l+"\n"))
		if err != nil || d.Layout != l {
			t.Errorf("layout=%s: %v, %v", l, d, err)
		}
	}
}

func TestParseAcceptsADocumentWithoutAFinalNewline(t *testing.T) {
	if _, err := Parse("n", []byte(strings.TrimSuffix(base, "\n"))); err != nil {
		t.Error(err)
	}
}

func TestCommentNeedsWhiteSpaceBeforeIt(t *testing.T) {
	for line, want := range map[string]string{
		"# all":         "",
		"a # b":         "a ",
		"a\t# b":        "a\t",
		"where=path=#x": "where=path=#x",
		"a#b # c":       "a#b ",
	} {
		if got := stripComment(line); got != want {
			t.Errorf("stripComment(%q) = %q, want %q", line, got, want)
		}
	}
}

func FuzzParseDoc(f *testing.F) {
	f.Add([]byte(base))
	f.Add([]byte("format regex (?P<t>\\d+) (?P<s>\\S*)\ntime t layout=unix\nwindow 1s grace=1s\ncap 3\nmetric m min=s by=s where=s<=4\n"))
	f.Add([]byte("time x layout=2006 01\nformat apache-common # c\n"))
	f.Add([]byte(base + "metric h histogram=bytes buckets=0.1,1e3,5 scale=0.001 by=host\n"))
	for _, b := range Builtins() {
		text, _ := BuiltinText(b.Name)
		f.Add(text)
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		d, err := Parse("fuzz", text)
		if (d == nil) == (err == nil) {
			t.Fatalf("Parse = %v, %v; want exactly one", d, err)
		}
		if err != nil {
			var de *Error
			if !errors.As(err, &de) || de.Line < 1 {
				t.Fatalf("error %v is not a *Error with a line", err)
			}
			return
		}
		if d.Width <= 0 || d.Grace < 0 || d.Cap < 1 || len(d.Metrics) == 0 || len(d.Fields()) == 0 {
			t.Fatalf("Parse accepted an invalid document: %+v", d)
		}
		for _, m := range d.Metrics {
			if m.Kind == Histogram && (len(m.Buckets) == 0 || !(m.Scale > 0) || math.IsInf(m.Scale, 0) ||
				!slices.IsSorted(m.Buckets) || slices.ContainsFunc(m.Buckets, func(b float64) bool { return math.IsInf(b, 0) || math.IsNaN(b) })) {
				t.Fatalf("Parse accepted an invalid histogram: %+v", m)
			}
		}
	})
}

func TestUsesNamesTheFieldsAMetricReads(t *testing.T) {
	d, err := Parse("t", []byte(base+"metric b sum=bytes by=host where=agent!=x\n"))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{"status": true, "bytes": true, "host": true, "agent": true, "path": false, "method": false, "time": false} {
		if got := d.Uses(name); got != want {
			t.Errorf("Uses(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestEachMetricKindReadsBackFromItsWord(t *testing.T) {
	words := MetricKindWords()
	if strings.Join(words, "|") != "count|sum|min|max|histogram" {
		t.Fatalf("the words are %q", words)
	}
	for _, w := range words {
		k, ok := ParseMetricKind(w)
		if !ok || k.String() != w {
			t.Errorf("%q: kind %v (%v), which spells %q", w, k, ok, k.String())
		}
	}
	if _, ok := ParseMetricKind("avg"); ok {
		t.Error("avg is no kind")
	}
}

// A document bounds how far ahead of the wall clock an entry may be: a day
// unless it says otherwise, and "none" lifts the bound.
func TestFutureDefaultsToADayAndADirectiveChangesOrLiftsIt(t *testing.T) {
	for _, c := range []struct {
		line string
		want time.Duration
	}{{"", DefaultFuture}, {"future 90m\n", 90 * time.Minute}, {"future none # old logs replayed with a wrong clock\n", 0}} {
		d, err := Parse("t", []byte("format apache-common\nwindow 10s\n"+c.line+"metric r count\n"))
		if err != nil || d.Future != c.want {
			t.Errorf("%q: future %v, %v; want %v", c.line, d.Future, err, c.want)
		}
	}
}
