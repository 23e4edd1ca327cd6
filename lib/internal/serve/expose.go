package serve

import (
	"bytes"
	"cmp"
	"math"
	"slices"
	"strconv"

	"github.com/timbertally/timbertally/lib/internal/cumulative"
	"github.com/timbertally/timbertally/lib/internal/doc"
	"github.com/timbertally/timbertally/lib/internal/label"
	"github.com/timbertally/timbertally/lib/internal/tape"
)

// StoreLabel is the label that tells the stores of one tgserve apart: the
// tally store directory's name.
const StoreLabel = "tally_store"

// row is one sample of a scrape.
type row struct {
	family  string
	shape   cumulative.Shape
	name    string
	labels  []byte // name="value",... without le, escaped for the exposition
	le      float64
	leText  string // le in Prometheus's canonical float form; "" for a series not a _bucket
	part    int    // a histogram's: 0 _bucket, 1 _count, 2 _sum (OpenMetrics' order)
	value   float64
	created int64 // Unix ns
}

// rows returns the samples of every store, sorted as an exposition lists
// them: by family, then label set, then (a histogram's) bucket bound and
// part.
func (sv *server) rows() []row {
	var out []row
	for _, s := range sv.stores {
		extra := append(slices.Clone(sv.labels), tape.Label{Name: StoreLabel, Value: s.name})
		s.mu.Lock()
		s.totals.Each(func(c *cumulative.Series) { out = append(out, newRow(c, extra)) })
		s.mu.Unlock()
	}
	slices.SortFunc(out, func(a, b row) int {
		return cmp.Or(cmp.Compare(a.family, b.family), bytes.Compare(a.labels, b.labels),
			cmp.Compare(a.part, b.part), cmp.Compare(a.le, b.le), cmp.Compare(a.name, b.name))
	})
	return out
}

// newRow is a series' sample, with the labels extra (sorted by name; none
// of them a label of the tape's, which Run refuses) after its own.
func newRow(c *cumulative.Series, extra []tape.Label) row {
	r := row{family: c.Family, shape: c.Shape, name: c.Name(), value: c.Value, created: c.Created}
	var b []byte
	for _, l := range c.Labels {
		if c.Shape == cumulative.Histogram && l.Name == doc.BoundLabel {
			r.leText = tape.CanonicalBound(l.Value)
			r.le, _ = strconv.ParseFloat(r.leText, 64)
			continue
		}
		b = appendLabel(b, l.Name, l.Value, label.AppendOpenMetrics)
	}
	for _, l := range extra {
		b = appendLabel(b, l.Name, l.Value, label.AppendOpenMetrics)
	}
	r.labels = b
	if c.Shape == cumulative.Histogram {
		switch c.Metric {
		case c.Family + doc.CountSuffix:
			r.part, r.le = 1, math.Inf(1)
		case c.Family + doc.SumSuffix:
			r.part, r.le = 2, math.Inf(1)
		}
	}
	return r
}

// appendLabel appends name="value" after a comma unless it is the first,
// the value escaped by escape: a tape's value shown and escaped as both
// expositions want it (label.AppendOpenMetrics), a --label's or a
// store name's (UTF-8 text, shown as it is) escaped only (\\, \", \n, as
// tape.AppendEscaped escapes UTF-8).
func appendLabel(b []byte, name, value string, escape func([]byte, string) []byte) []byte {
	if len(b) > 0 {
		b = append(b, ',')
	}
	b = append(b, name...)
	b = append(b, '=', '"')
	b = escape(b, value)
	return append(b, '"')
}

// appendExposition appends the rows in the Prometheus text format
// (version 0.0.4), or OpenMetrics 1.0 when om (with _created, without the
// closing # EOF, which the handler writes after the process's metrics).
func appendExposition(b []byte, rows []row, om bool) []byte {
	for i, r := range rows {
		if i == 0 || rows[i-1].family != r.family {
			b = appendType(b, r, om)
		}
		b = appendSample(b, r.name, r.labels, r.leText, r.value)
		if om && created(r) {
			b = appendCreated(b, r)
		}
	}
	return b
}

// created reports whether a _created sample follows r: after a counter's
// _total, and after the last series (_sum) of a histogram's label set.
func created(r row) bool {
	return r.shape == cumulative.Counter || r.shape == cumulative.Histogram && r.part == 2
}

// appendType appends the # TYPE line of r's family: in the text format a
// counter's family is its sample name (requests_total), in OpenMetrics
// the name without _total.
func appendType(b []byte, r row, om bool) []byte {
	b = append(b, "# TYPE "...)
	switch r.shape {
	case cumulative.Counter:
		if om {
			b = append(b, r.family...)
		} else {
			b = append(b, r.name...)
		}
		return append(b, " counter\n"...)
	case cumulative.Histogram:
		b = append(b, r.family...)
		return append(b, " histogram\n"...)
	}
	b = append(b, r.family...)
	return append(b, " gauge\n"...)
}

func appendSample(b []byte, name string, labels []byte, le string, v float64) []byte {
	b = append(b, name...)
	if len(labels) > 0 || le != "" {
		b = append(b, '{')
		b = append(b, labels...)
		if le != "" {
			if len(labels) > 0 {
				b = append(b, ',')
			}
			b = append(b, `le="`...)
			b = append(b, le...)
			b = append(b, '"')
		}
		b = append(b, '}')
	}
	b = append(b, ' ')
	b = appendFloat(b, v)
	return append(b, '\n')
}

// appendCreated appends the _created sample of r's counter or histogram:
// the start of the first bucket that held it, in seconds.
func appendCreated(b []byte, r row) []byte {
	return appendSample(b, r.family+"_created", r.labels, "", float64(r.created)/1e9)
}

// appendFloat appends a sample value: a whole number as an integer, else
// the shortest form that reads back the same.
func appendFloat(b []byte, v float64) []byte {
	switch {
	case math.IsInf(v, 1):
		return append(b, "+Inf"...)
	case math.IsInf(v, -1):
		return append(b, "-Inf"...)
	case math.IsNaN(v):
		return append(b, "NaN"...)
	}
	return tape.AppendValue(b, v)
}
