package doc

import (
	"math"
	"reflect"
	"testing"
)

func TestAHistogramParsesWithItsBoundsScaleAndDefaults(t *testing.T) {
	d, err := Parse("h", []byte(base+
		"metric latency histogram=bytes buckets=0.1,0.5,1,2.5 scale=0.000001 by=status where=method=GET\n"+
		"metric size histogram=bytes\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := d.Metrics[1]
	want := Metric{Name: "latency", Kind: Histogram, Field: "bytes", By: []string{"status"}, Where: &Where{Field: "method", Op: Eq, Value: "GET"},
		Buckets: []float64{0.1, 0.5, 1, 2.5}, Scale: 0.000001, Line: 4}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("histogram = %+v\nwant %+v", got, want)
	}
	if def := d.Metrics[2]; !reflect.DeepEqual(def.Buckets, DefaultBuckets) || def.Scale != 1 {
		t.Errorf("default histogram = %v scale %v, want Prometheus's default bounds and scale 1", def.Buckets, def.Scale)
	}
}

func TestHistogramErrorsNameTheLineAndWhatWasExpected(t *testing.T) {
	for _, c := range []struct {
		name, text string
		line       int
		msg        string
	}{
		{"histogram without field", base + "metric h histogram=\n", 4, `metric h: kind "histogram=" is not one; ` + kindWant},
		{"histogram of missing field", base + "metric h histogram=duration\n", 4, `metric h names field "duration", which the format does not have (host ident user time method path proto status bytes referer agent)`},
		{"unsorted bounds", base + "metric h histogram=bytes buckets=1,0.5\n", 4, "metric h: bucket bound 0.5 does not follow 1 upward; list the bounds once each, ascending"},
		{"repeated bound", base + "metric h histogram=bytes buckets=1,1\n", 4, "metric h: bucket bound 1 does not follow 1 upward; list the bounds once each, ascending"},
		{"bound not a number", base + "metric h histogram=bytes buckets=0.1,fast\n", 4, `metric h: bucket bound "fast" is not a finite number; want buckets=B1,B2,... ascending, e.g. buckets=0.1,0.5,1`},
		{"empty bound", base + "metric h histogram=bytes buckets=\n", 4, `metric h: bucket bound "" is not a finite number; want buckets=B1,B2,... ascending, e.g. buckets=0.1,0.5,1`},
		{"NaN bound", base + "metric h histogram=bytes buckets=NaN\n", 4, `metric h: bucket bound "NaN" is not a finite number; want buckets=B1,B2,... ascending, e.g. buckets=0.1,0.5,1`},
		{"+Inf listed", base + "metric h histogram=bytes buckets=1,+Inf\n", 4, "metric h: buckets= lists +Inf, which every histogram has; leave it out"},
		{"zero scale", base + "metric h histogram=bytes scale=0\n", 4, "metric h: scale=0 is not a number above zero; e.g. scale=0.000001 for microseconds (Apache %D) to seconds"},
		{"negative scale", base + "metric h histogram=bytes scale=-1\n", 4, "metric h: scale=-1 is not a number above zero; e.g. scale=0.000001 for microseconds (Apache %D) to seconds"},
		{"buckets on a count", base + "metric r count buckets=1\n", 4, "metric r: buckets= belongs to a histogram; write " + histogramWant},
		{"scale on a sum", base + "metric r sum=bytes scale=2\n", 4, "metric r: scale= belongs to a histogram; write " + histogramWant},
		{"unknown histogram option", base + "metric h histogram=bytes every=1\n", 4, `metric h: unknown option "every=1"; want by=F1,F2 or where=F<op>VALUE, buckets=B1,B2,... or scale=K`},
		{"second buckets", base + "metric h histogram=bytes buckets=1 buckets=2\n", 4, "metric h: a second buckets=; write it once"},
		{"by le", "format regex (?P<t>\\S+) (?P<le>\\S+)\ntime t layout=unix\nwindow 1s\nmetric h histogram=le by=le\n", 4, "metric h: by= names le, the label of a histogram's bound; rename the field in the format"},
		{"a metric named as a histogram's series", base + "metric latency histogram=bytes\nmetric latency_count count\n", 5, "metric latency_count is a series of histogram latency (line 4); give it another name"},
	} {
		_, err := Parse("t", []byte(c.text))
		de, ok := err.(*Error)
		if !ok || de.Line != c.line || de.Msg != c.msg {
			t.Errorf("%s: err = %v\nwant line %d: %s", c.name, err, c.line, c.msg)
		}
	}
}

// The decimal bounds an operator writes must hold the values on them: a
// duration of 25000 µs with scale=0.000001 is on le="0.025".
func TestAScaleOfAWholeReciprocalDividesSoThatValuesLandOnTheirBounds(t *testing.T) {
	for _, c := range []struct {
		scale, v, want float64
	}{
		{0.000001, 25000, 0.025},
		{0.000001, 100000, 0.1},
		{0.001, 50, 0.05},
		{1, 0.1, 0.1},
		{1000, 0.25, 250},
		{0.3, 10, 3},
	} {
		mul, div := Metric{Kind: Histogram, Scale: c.scale}.ScaleBy()
		if got := c.v * mul / div; got != c.want && !(c.scale == 0.3 && math.Abs(got-c.want) < 1e-15) {
			t.Errorf("scale=%v of %v = %v, want %v", c.scale, c.v, got, c.want)
		}
	}
	if mul, div := (Metric{Kind: Histogram, Scale: 0.000001}).ScaleBy(); mul != 1 || div != 1e6 {
		t.Errorf("scale=0.000001 ScaleBy = %v, %v; want 1, 1e6", mul, div)
	}
}

func TestHistogramOfNamesTheBaseOfEachSeries(t *testing.T) {
	for name, want := range map[string]string{"latency_bucket": "latency", "latency_sum": "latency", "latency_count": "latency", "latency": "", "_count": ""} {
		base, _, ok := HistogramOf(name)
		if base != want || ok != (want != "") {
			t.Errorf("HistogramOf(%q) = %q, %v; want %q", name, base, ok, want)
		}
	}
}
