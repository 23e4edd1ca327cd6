package doc

import (
	"math"
	"slices"
	"strconv"
	"strings"
)

// DefaultBuckets are the upper bounds a histogram without buckets= has:
// Prometheus's default buckets (client_golang's DefBuckets), in seconds.
var DefaultBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// The series a histogram named NAME writes, Prometheus's classic layout:
// NAME_bucket{...,le="B"} per upper bound B (cumulative, +Inf last),
// NAME_sum{...} and NAME_count{...}.
const (
	BucketSuffix = "_bucket"
	SumSuffix    = "_sum"
	CountSuffix  = "_count"
	BoundLabel   = "le"
)

// HistogramSuffixes are the suffixes of a histogram's series, in the order
// its group on the tape lists them.
var HistogramSuffixes = []string{BucketSuffix, SumSuffix, CountSuffix}

// HistogramOf returns the histogram a series' metric name would belong to
// (latency for latency_bucket, latency_sum or latency_count) and the
// suffix; ok is false for any other name. Whether it is one is the
// document's to say: kinds[base] == Histogram.
func HistogramOf(metric string) (base, suffix string, ok bool) {
	for _, s := range HistogramSuffixes {
		if b, ok := strings.CutSuffix(metric, s); ok && b != "" {
			return b, s, true
		}
	}
	return "", "", false
}

// ScaleBy returns what a histogram's value is multiplied by, then divided
// by, before it is observed. A scale that is the reciprocal of a whole
// number (0.001, 0.000001) divides by that number, which rounds once and
// correctly: 25000 µs × 0.000001 is 0.024999999999999998, above nothing
// it should be, but 25000 / 1000000 is 0.025, on the bound le="0.025" as
// the operator means it.
func (m Metric) ScaleBy() (mul, div float64) {
	if m.Scale == 0 || m.Scale == 1 {
		return 1, 1
	}
	if d := math.Round(1 / m.Scale); m.Scale < 1 && d < 1<<53 && 1/d == m.Scale {
		return 1, d
	}
	return m.Scale, 1
}

const histogramWant = `histogram=FIELD [buckets=B1,B2,...] [scale=K], e.g. metric latency histogram=duration buckets=0.1,0.5,1 scale=0.000001`

// buckets parses buckets=B1,B2,...: finite numbers, strictly ascending.
func (p *parser) buckets(n int, m *Metric, val string) error {
	if m.Kind != Histogram {
		return p.errorf(n, "metric %s: buckets= belongs to a histogram; write %s", m.Name, histogramWant)
	}
	m.Buckets = nil
	for _, s := range strings.Split(val, ",") {
		b, err := strconv.ParseFloat(s, 64)
		switch {
		case err == nil && math.IsInf(b, 1) && len(m.Buckets) > 0:
			return p.errorf(n, "metric %s: buckets= lists +Inf, which every histogram has; leave it out", m.Name)
		case err != nil || math.IsNaN(b) || math.IsInf(b, 0):
			return p.errorf(n, "metric %s: bucket bound %q is not a finite number; want buckets=B1,B2,... ascending, e.g. buckets=0.1,0.5,1", m.Name, s)
		case len(m.Buckets) > 0 && b <= m.Buckets[len(m.Buckets)-1]:
			return p.errorf(n, "metric %s: bucket bound %s does not follow %s upward; list the bounds once each, ascending", m.Name, s, strconv.FormatFloat(m.Buckets[len(m.Buckets)-1], 'g', -1, 64))
		}
		m.Buckets = append(m.Buckets, b)
	}
	return nil
}

// scale parses scale=K: a finite number above zero.
func (p *parser) scale(n int, m *Metric, val string) error {
	if m.Kind != Histogram {
		return p.errorf(n, "metric %s: scale= belongs to a histogram; write %s", m.Name, histogramWant)
	}
	k, err := strconv.ParseFloat(val, 64)
	if err != nil || !(k > 0) || math.IsInf(k, 0) {
		return p.errorf(n, "metric %s: scale=%s is not a number above zero; e.g. scale=0.000001 for microseconds (Apache %%D) to seconds", m.Name, val)
	}
	m.Scale = k
	return nil
}

// checkHistogram refuses what would make a histogram's series ambiguous:
// a by= label le (its bound's label), or another metric named as one of
// its series.
func (p *parser) checkHistogram(m Metric) error {
	if m.Kind != Histogram {
		return nil
	}
	if slices.Contains(m.By, BoundLabel) {
		return p.errorf(m.Line, "metric %s: by= names %s, the label of a histogram's bound; rename the field in the format", m.Name, BoundLabel)
	}
	for _, o := range p.d.Metrics {
		for _, s := range HistogramSuffixes {
			if o.Name == m.Name+s {
				return p.errorf(o.Line, "metric %s is a series of histogram %s (line %d); give it another name", o.Name, m.Name, m.Line)
			}
		}
	}
	return nil
}
