package read

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/timbertally/timbertally/lib/internal/label"

	"github.com/timbertally/timbertally/lib/internal/doc"
	"github.com/timbertally/timbertally/lib/internal/tape"
)

// formats are the --format names, each with how it writes rows; header
// asks for the column names (tsv, csv) of the first rows written.
var formats = map[string]func(w *bufio.Writer, rows []*row, header bool) error{
	"table":       writeTable,
	"tsv":         writeTSV,
	"csv":         writeCSV,
	"json":        writeJSON,
	"tape":        writeTape,
	"openmetrics": writeOpenMetrics,
	"svg":         writeSVG,
}

const hexDigits = "0123456789abcdef"

// show says how appendShown escapes a label value beyond what every
// format needs: label.Show, whose flags these are.
type show = label.Show

const (
	showControls = label.ShowControls
	showInList   = label.ShowInList
	showEdges    = label.ShowEdges
	showCR       = label.ShowCR
)

// appendShown appends a label value for a human or a text format, as
// label.AppendShown does (the one spelling of a shown value).
func appendShown(b []byte, v string, how show) []byte { return label.AppendShown(b, v, how) }

// appendLabels appends k=v,k=v of labels sorted by name. A name is a plain
// identifier; a value shows a comma as \, (and a backslash as \\).
func appendLabels(b []byte, labels []tape.Label, how show) []byte {
	for i, l := range labels {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, l.Name...)
		b = append(b, '=')
		b = appendShown(b, l.Value, how|showInList)
	}
	return b
}

func writeTSV(w *bufio.Writer, rows []*row, header bool) error {
	if header {
		w.WriteString("time\tmetric\tlabels\tvalue\n")
	}
	var b []byte
	for _, r := range rows {
		b = appendTabbed(b[:0], r, showControls)
		w.Write(b)
	}
	return nil
}

// appendTabbed appends a row as time, metric, labels and value separated by
// tabs: a tsv line, and the cells of a table. A tab in a label value shows
// as \t, so the cells stay four.
func appendTabbed(b []byte, r *row, how show) []byte {
	b = tape.AppendTime(b, r.start)
	b = append(b, '\t')
	b = append(b, r.metric...)
	b = append(b, '\t')
	b = appendLabels(b, r.sorted, how)
	b = append(b, '\t')
	b = tape.AppendValue(b, r.value)
	return append(b, '\n')
}

// writeTable writes an aligned table with its column names: a table
// streamed from stdin is a table a bucket, after a blank line.
func writeTable(w *bufio.Writer, rows []*row, header bool) error {
	if !header {
		w.WriteByte('\n')
	}
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	tw.Write([]byte("TIME\tMETRIC\tLABELS\tVALUE\n"))
	var b []byte
	for _, r := range rows {
		b = appendTabbed(b[:0], r, showControls|showEdges)
		tw.Write(b)
	}
	return tw.Flush()
}

func writeCSV(w *bufio.Writer, rows []*row, header bool) error {
	cw := csv.NewWriter(w)
	if header {
		cw.Write([]string{"time", "metric", "labels", "value"})
	}
	for _, r := range rows {
		cw.Write([]string{
			string(tape.AppendTime(nil, r.start)),
			r.metric,
			string(appendLabels(nil, r.sorted, showCR)),
			string(tape.AppendValue(nil, r.value)),
		})
	}
	cw.Flush()
	return cw.Error()
}

// writeJSON writes one object a line:
// {"time":"...","metric":"...","labels":{"k":"v"},"value":N}, N null for a
// NaN quantile.
func writeJSON(w *bufio.Writer, rows []*row, _ bool) error {
	var b, shown []byte
	for _, r := range rows {
		b = append(b[:0], `{"time":"`...)
		b = tape.AppendTime(b, r.start)
		b = append(b, `","metric":`...)
		b = appendJSONString(b, r.metric)
		b = append(b, `,"labels":{`...)
		for i, l := range r.sorted {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, l.Name)
			b = append(b, ':')
			shown = appendShown(shown[:0], l.Value, 0)
			b = appendJSONString(b, string(shown))
		}
		b = append(b, `},"value":`...)
		b = appendJSONNumber(b, r.value)
		b = append(b, "}\n"...)
		w.Write(b)
	}
	return nil
}

// appendJSONNumber appends v, or null for a NaN (a quantile of buckets
// that have none: histogram_quantile's NaN), which JSON has no number for.
func appendJSONNumber(b []byte, v float64) []byte {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return append(b, "null"...)
	}
	return tape.AppendValue(b, v)
}

// appendJSONString appends s, valid UTF-8, as a JSON string.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\t':
			b = append(b, '\\', 't')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c < 0x20:
			b = append(b, `\u00`...)
			b = append(b, hexDigits[c>>4], hexDigits[c&15])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

// writeTape writes the rows as tape series lines, labels in the tape's order.
func writeTape(w *bufio.Writer, rows []*row, _ bool) error {
	var b []byte
	for _, r := range rows {
		rec := tape.Record{Kind: tape.Series, Start: r.start, Metric: r.metric, Labels: r.labels, Value: r.value}
		b = tape.Append(b[:0], &rec)
		w.Write(b)
	}
	return nil
}

// writeOpenMetrics writes one gauge family a metric, and one histogram
// family a histogram (its _bucket, _count and _sum series, le in
// Prometheus's canonical form, tape.CanonicalBound), its samples stamped where
// tgpush stamps them (row.ms: the bucket's last millisecond, tape.SampleMs),
// in seconds, then # EOF; promtool tsdb create-blocks-from openmetrics
// backfills it. rows must be sorted by series (bySeries).
func writeOpenMetrics(w *bufio.Writer, rows []*row, _ bool) error {
	if err := oneSeriesTwice(rows); err != nil {
		return err
	}
	var b []byte
	for i, r := range rows {
		b = b[:0]
		if i == 0 || rows[i-1].family() != r.family() {
			b = append(b, "# TYPE "...)
			b = append(b, r.family()...)
			if r.hist {
				b = append(b, " histogram\n"...)
			} else {
				b = append(b, " gauge\n"...)
			}
		}
		b = tape.AppendSeriesEscaped(b, r.metric, wireLabels(r), label.AppendOpenMetrics)
		b = append(b, ' ')
		b = tape.AppendValue(b, r.value)
		b = append(b, ' ')
		b = appendSeconds(b, r.ms*int64(time.Millisecond))
		b = append(b, '\n')
		w.Write(b)
	}
	w.WriteString("# EOF\n")
	return nil
}

// wireLabels are a row's sorted labels as they leave the toolkit: a
// histogram bucket's le in Prometheus's canonical form (tape.CanonicalBound),
// which tgpush sends too.
func wireLabels(r *row) []tape.Label {
	if !r.hist || !strings.HasSuffix(r.metric, doc.BucketSuffix) {
		return r.sorted
	}
	i := slices.IndexFunc(r.sorted, isBound)
	if i < 0 {
		return r.sorted
	}
	out := slices.Clone(r.sorted)
	out[i].Value = tape.CanonicalBound(out[i].Value)
	return out
}

// oneSeriesTwice refuses rows that OpenMetrics would take for one sample
// given twice: it has no empty label (an empty value is no label), so
// {a="1",b=""} and {a="1"} at one time, which tapes of two documents
// merged can give, are one series, and Prometheus would keep one value.
// Only metrics with an empty label value are looked at.
func oneSeriesTwice(rows []*row) error {
	empty := map[string]bool{} // metrics with a row holding an empty value
	for _, r := range rows {
		if slices.ContainsFunc(r.sorted, func(l tape.Label) bool { return l.Value == "" }) {
			empty[r.metric] = true
		}
	}
	if len(empty) == 0 {
		return nil
	}
	seen := map[string]*row{}
	var labels []tape.Label
	for _, r := range rows {
		if !empty[r.metric] {
			continue
		}
		labels = labels[:0]
		for _, l := range r.sorted {
			if l.Value != "" {
				labels = append(labels, l)
			}
		}
		key := string(tape.AppendSeries(append(tape.AppendTime(nil, r.start), ' '), r.metric, labels))
		if o, ok := seen[key]; ok {
			return fmt.Errorf("tgread: %s and %s at %s are one series in OpenMetrics, where an empty label is no label, and Prometheus would keep one of the two values; read the tapes one at a time, or with --by-tape",
				tape.AppendSeries(nil, o.metric, o.sorted), tape.AppendSeries(nil, r.metric, r.sorted), tape.AppendTime(nil, r.start))
		}
		seen[key] = r
	}
	return nil
}

// appendSeconds appends Unix nanoseconds as decimal seconds, with a
// fraction only when there is one.
func appendSeconds(b []byte, ns int64) []byte {
	const second = 1e9
	sec, frac := ns/second, ns%second
	if frac < 0 {
		sec, frac = sec-1, frac+second
	}
	b = strconv.AppendInt(b, sec, 10)
	if frac == 0 {
		return b
	}
	f := strconv.AppendInt(nil, frac+second, 10)[1:] // nine digits, zero-padded
	for f[len(f)-1] == '0' {
		f = f[:len(f)-1]
	}
	b = append(b, '.')
	return append(b, f...)
}

// formatNames lists the formats for help and errors.
func formatNames() []string {
	names := make([]string, 0, len(formats))
	for n := range formats {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// ShownValue is label.Shown.
//
// Deprecated: use label.Shown (a command package is no library of another).
func ShownValue(v string) string { return label.Shown(v) }
