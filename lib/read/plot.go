package read

import (
	"bufio"
	"math"
	"strings"
	"time"

	"github.com/timbertally/timbertally/lib/doc"
	"github.com/timbertally/timbertally/lib/tape"
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
	base, top := valueRange(l.points)
	topLabel, baseLabel := string(tape.AppendValue(nil, top)), string(tape.AppendValue(nil, base))
	labelWidth := max(len(topLabel), len(baseLabel))
	cols := int64(max(width-labelWidth-2, minPlotColumns))
	perColumn := (c.slots() + cols - 1) / cols
	values := make([]float64, (c.slots()+perColumn-1)/perColumn)
	barWidth := max(cols/int64(len(values)), 1)
	has := make([]bool, len(values))
	lo, hi := l.points[0].value, l.points[0].value
	for _, p := range l.points {
		i := c.slotOf(p.start) / perColumn
		if has[i] {
			values[i] = combine(kind, values[i], p.value)
		} else {
			values[i], has[i] = p.value, true
		}
		lo, hi = min(lo, p.value), max(hi, p.value)
	}

	w.WriteString(l.name)
	w.WriteString("  min ")
	w.Write(tape.AppendValue(nil, lo))
	w.WriteString("  max ")
	w.Write(tape.AppendValue(nil, hi))
	if c.slot != 0 {
		w.WriteString("  a bar per ")
		w.Write(tape.AppendDuration(nil, time.Duration(perColumn*c.slot)))
	}
	w.WriteByte('\n')
	for r := plotRows - 1; r >= 0; r-- {
		label, axis := "", "│"
		switch r {
		case plotRows - 1:
			label, axis = topLabel, "┤"
		case 0:
			label, axis = baseLabel, "┤"
		}
		w.WriteString(strings.Repeat(" ", labelWidth-len(label)))
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
