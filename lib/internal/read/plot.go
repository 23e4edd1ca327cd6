package read

import (
	"bufio"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/timbertally/timbertally/lib/internal/doc"
	"github.com/timbertally/timbertally/lib/internal/tape"
)

// plotRows is the height of a --plot chart in lines: 8 lines of 8 eighth
// blocks each give 64 levels, enough to tell values 2% apart.
const plotRows = 8

// minPlotColumns is the fewest columns a chart gets however narrow the
// terminal: below it a chart says nothing.
const minPlotColumns = 10

// eighths are the blocks from empty to full, one eighth of a line apart.
var eighths = []rune(" ▁▂▃▄▅▆▇█")

// writePlot draws each series of the chart as a bar chart of Unicode
// blocks, width columns wide with its labels, one chart after another on
// the same time axis. A column holds one bucket, or when there are more
// buckets than columns several, combined by the metric's kind (summed
// unless it is a min or a max) as --step would; with fewer buckets than
// columns, each bucket's bar is as many columns wide as fit. A bar with
// no value is blank.
func writePlot(w *bufio.Writer, c *chart, width int, kinds map[string]doc.MetricKind) {
	for i := range c.lines {
		if i > 0 {
			w.WriteByte('\n')
		}
		plotLine(w, c, &c.lines[i], width, kinds[c.lines[i].metric])
	}
}

func plotLine(w *bufio.Writer, c *chart, l *line, width int, kind doc.MetricKind) {
	// The labels' width sets the columns left for bars, and the bars (by
	// combining buckets) the labels: widen the labels until they fit. It
	// ends, as a label only widens and never beyond a float's.
	var bars columns
	var base, top float64
	var topLabel, baseLabel string
	for labelWidth := 1; ; {
		bars = newColumns(c, l, int64(max(width-labelWidth-2, minPlotColumns)), kind)
		base, top = valueRange(bars.rows)
		topLabel, baseLabel = string(appendPlotValue(nil, top)), string(appendPlotValue(nil, base))
		if lw := max(len(topLabel), len(baseLabel)); lw > labelWidth {
			labelWidth = lw
			continue
		}
		topLabel = strings.Repeat(" ", labelWidth-len(topLabel)) + topLabel
		baseLabel = strings.Repeat(" ", labelWidth-len(baseLabel)) + baseLabel
		break
	}
	lo, hi := l.points[0].value, l.points[0].value
	for _, p := range l.points {
		lo, hi = min(lo, p.value), max(hi, p.value)
	}
	perColumn, values, has, barWidth := bars.perColumn, bars.values, bars.has, bars.width
	labelWidth := len(topLabel)

	w.WriteString(l.name)
	w.WriteString("  min ")
	w.Write(appendPlotValue(nil, lo))
	w.WriteString("  max ")
	w.Write(appendPlotValue(nil, hi))
	if c.slot != 0 {
		w.WriteString("  a bar per ")
		w.Write(tape.AppendDuration(nil, time.Duration(perColumn*c.slot)))
	}
	w.WriteByte('\n')
	for r := plotRows - 1; r >= 0; r-- {
		label, axis := strings.Repeat(" ", labelWidth), "│"
		switch r {
		case plotRows - 1:
			label, axis = topLabel, "┤"
		case 0:
			label, axis = baseLabel, "┤"
		}
		w.WriteString(label)
		w.WriteString(" " + axis)
		for i, v := range values {
			fill := 0
			if has[i] {
				fill = min(max(level(v, base, top)-8*r, 0), 8)
			}
			for j := range barWidth {
				if j == barWidth-1 && barWidth >= 3 {
					fill = 0 // a gap that tells wide bars apart
				}
				w.WriteRune(eighths[fill])
			}
		}
		w.WriteByte('\n')
	}
	indent := strings.Repeat(" ", labelWidth+2)
	axisWidth := len(values) * int(barWidth)
	w.WriteString(indent[:labelWidth+1] + "└" + strings.Repeat("─", axisWidth) + "\n")
	from, to := string(tape.AppendTime(nil, c.first)), string(tape.AppendTime(nil, c.end()))
	gap := " .. "
	if room := axisWidth - len(from) - len(to); room >= 2 {
		gap = strings.Repeat(" ", room)
	}
	w.WriteString(indent + from + gap + to + "\n")
}

// appendPlotValue appends v for a person reading a chart: a whole number as
// the tape writes it, a fraction to 4 significant digits (a quantile's
// 0.022584745762711866 is 0.02258), since a bar's height is no finer.
func appendPlotValue(b []byte, v float64) []byte {
	if v == math.Trunc(v) {
		return tape.AppendValue(b, v)
	}
	return strconv.AppendFloat(b, v, 'g', 4, 64)
}

// level is how many eighth blocks, of plotRows*8, a value's bar stands:
// a value above the base shows at least one, so it is never mistaken for
// the base.
func level(v, base, top float64) int {
	if top == base {
		return 0
	}
	n := int(math.Round((v - base) / (top - base) * plotRows * 8))
	if n == 0 && v > base {
		return 1
	}
	return n
}

// columns is a series laid out in bars: perColumn buckets each, combined
// by the metric's kind; has tells a bar with a value from a blank one.
// Each bar is width columns wide, as many as fit when there are fewer
// buckets than columns.
type columns struct {
	perColumn int64
	values    []float64
	has       []bool
	rows      []*row // the bars' values, for valueRange
	width     int64
}

func newColumns(c *chart, l *line, cols int64, kind doc.MetricKind) columns {
	per := (c.slots() + cols - 1) / cols
	n := (c.slots() + per - 1) / per
	b := columns{perColumn: per, values: make([]float64, n), has: make([]bool, n), width: max(cols/n, 1)}
	for _, p := range l.points {
		i := c.slotOf(p.start) / per
		if b.has[i] {
			b.values[i] = combine(kind, b.values[i], p.value)
		} else {
			b.values[i], b.has[i] = p.value, true
		}
	}
	for i, v := range b.values {
		if b.has[i] {
			b.rows = append(b.rows, &row{value: v})
		}
	}
	return b
}
