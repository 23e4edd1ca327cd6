package read

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/timbertally/timbertally/lib/internal/tape"
)

// The SVG's geometry in pixels: a 960-wide picture of one panel per
// metric, stacked; in each, the plot area inside margins that hold the
// value labels (left), the panel's title (top) and the time labels
// (bottom), then the legend in columns. Heights are from the panel's top.
const (
	svgWidth       = 960
	svgLeft        = 90  // the value axis
	svgRight       = 930 // the plot area's right edge
	svgPlotTop     = 50
	svgPlotBottom  = 300 // the time axis
	svgLegendTop   = 360
	svgLegendRow   = 20
	svgPanelMargin = 20
	svgCharWidth   = 7 // of the 12 px sans-serif, about, for the legend's columns
	svgTicks       = 4 // value gridlines above the base, about
	svgTimeTicks   = 8 // time labels, at most
)

// svgColors is the Tableau 10 palette: ten colours told apart by most
// eyes, the colour-blind included; series beyond ten reuse them. Each
// panel starts again at the first, so that status=200 has one colour in
// every panel of a tape whose metrics share their labels.
var svgColors = []string{"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"}

// svgTimeSteps are the spacings time labels may have: round on a clock.
var svgTimeSteps = []time.Duration{
	time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second, 30 * time.Second,
	time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute,
	time.Hour, 2 * time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour, 7 * 24 * time.Hour,
}

// writeSVG writes a line chart per metric, stacked on the same time axis,
// each with its own value axis and a legend: exactly one <path> per series
// (axes are lines, legend swatches rects), so that a reader can count
// them. A series breaks where a bucket has no value rather than bridging
// the gap; a lone point shows as a dot.
func writeSVG(w *bufio.Writer, rows []*row, _ bool) error {
	c := newChart(rows)
	panels := c.byMetric()
	height := 0
	for _, p := range panels {
		height += panelHeight(p)
	}
	fmt.Fprintf(w, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n",
		svgWidth, height, svgWidth, height)
	fmt.Fprintf(w, "<title>%s</title>\n", escapeXML(c.title()))
	fmt.Fprintf(w, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	top := 0
	for _, p := range panels {
		svgPanel(w, c, p, top)
		top += panelHeight(p)
	}
	w.WriteString("</svg>\n")
	return nil
}

// byMetric splits the lines, sorted by name, into runs of one metric.
func (c *chart) byMetric() [][]line {
	var panels [][]line
	for i, l := range c.lines {
		if i == 0 || c.lines[i-1].metric != l.metric {
			panels = append(panels, nil)
		}
		panels[len(panels)-1] = append(panels[len(panels)-1], l)
	}
	return panels
}

// title names the metrics drawn and the time range.
func (c *chart) title() string {
	var metrics []string
	for _, p := range c.byMetric() {
		metrics = append(metrics, p[0].metric)
	}
	return fmt.Sprintf("%s, %s to %s", strings.Join(metrics, ", "), tape.AppendTime(nil, c.first), tape.AppendTime(nil, c.end()))
}

// legendColumns is how many legend entries fit side by side.
func legendColumns(lines []line) int {
	longest := 0
	for _, l := range lines {
		longest = max(longest, len(l.name))
	}
	return max(1, (svgRight-svgLeft)/(26+svgCharWidth*longest+20))
}

func panelHeight(lines []line) int {
	rows := (len(lines) + legendColumns(lines) - 1) / legendColumns(lines)
	return svgLegendTop + svgLegendRow*(rows-1) + svgPanelMargin
}

func svgPanel(w *bufio.Writer, c *chart, lines []line, top int) {
	fmt.Fprintf(w, `<text x="%d" y="%d" font-size="15">%s, %s to %s</text>`+"\n", svgLeft, top+28,
		escapeXML(lines[0].metric), tape.AppendTime(nil, c.first), tape.AppendTime(nil, c.end()))
	t := newTicks(lines)
	svgValueAxis(w, t, top)
	svgTimeAxis(w, c, top)
	cols := legendColumns(lines)
	colWidth := (svgRight - svgLeft) / cols
	for i, l := range lines {
		color := svgColors[i%len(svgColors)]
		fmt.Fprintf(w, `<path fill="none" stroke="%s" stroke-width="1.5" stroke-linejoin="round" stroke-linecap="round" d="%s"/>`+"\n",
			color, svgPathData(c, t, top, l.points))
		lx, ly := svgLeft+colWidth*(i%cols), top+svgLegendTop+svgLegendRow*(i/cols)
		fmt.Fprintf(w, `<rect x="%d" y="%d" width="18" height="4" fill="%s"/>`+"\n", lx, ly-6, color)
		fmt.Fprintf(w, `<text x="%d" y="%d">%s</text>`+"\n", lx+26, ly, escapeXML(l.name))
	}
}

// ticks is a value axis: from base to top in steps of a round number
// (1, 2 or 5 times a power of ten), shown with the decimals the step needs.
type ticks struct {
	base, top, step float64
	decimals        int
}

func newTicks(lines []line) ticks {
	var base, top float64
	for _, l := range lines {
		b, t := valueRange(l.points)
		base, top = min(base, b), max(top, t)
	}
	raw := (top - base) / svgTicks
	if raw <= 0 {
		raw = 1
	}
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * mag
	for _, m := range []float64{1, 2, 5} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	t := ticks{base: math.Floor(base/step) * step, top: math.Ceil(top/step) * step, step: step}
	t.decimals = max(0, -int(math.Floor(math.Log10(step))))
	return t
}

// y is the vertical pixel of a value in the panel at top.
func (t ticks) y(v float64, top int) float64 {
	return float64(top+svgPlotBottom) - (v-t.base)/(t.top-t.base)*(svgPlotBottom-svgPlotTop)
}

func svgValueAxis(w *bufio.Writer, t ticks, top int) {
	for i := 0; ; i++ {
		v := t.base + float64(i)*t.step
		if v > t.top+t.step/2 {
			break
		}
		y := t.y(v, top)
		fmt.Fprintf(w, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>`+"\n", svgLeft, y, svgRight, y)
		fmt.Fprintf(w, `<text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n", svgLeft-8, y+4, strconv.FormatFloat(v, 'f', t.decimals, 64))
	}
	fmt.Fprintf(w, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#333"/>`+"\n", svgLeft, top+svgPlotTop, svgLeft, top+svgPlotBottom)
}

// x is the horizontal pixel of a time: the axis spans [first, end).
func x(c *chart, ns int64) float64 {
	span := c.end() - c.first
	if span == 0 {
		return (svgLeft + svgRight) / 2
	}
	return svgLeft + float64(ns-c.first)/float64(span)*(svgRight-svgLeft)
}

// svgTimeAxis labels the axis at round clock times, at most svgTimeTicks
// of them, with the date too when the axis spans more than a day.
func svgTimeAxis(w *bufio.Writer, c *chart, top int) {
	axis := top + svgPlotBottom
	fmt.Fprintf(w, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#333"/>`+"\n", svgLeft, axis, svgRight, axis)
	span := time.Duration(c.end() - c.first)
	step := svgTimeSteps[len(svgTimeSteps)-1]
	for _, s := range svgTimeSteps {
		if span/s < svgTimeTicks {
			step = s
			break
		}
	}
	layout := "15:04:05"
	if span > 24*time.Hour {
		layout = "01-02 15:04"
	}
	first := c.first + (int64(step)-c.first%int64(step))%int64(step) // the first round time on the axis
	for ns := first; ns <= c.end(); ns += int64(step) {
		px := x(c, ns)
		fmt.Fprintf(w, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#333"/>`+"\n", px, axis, px, axis+5)
		fmt.Fprintf(w, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", px, axis+20, time.Unix(0, ns).UTC().Format(layout))
	}
	fmt.Fprintf(w, `<text x="%d" y="%d" text-anchor="middle" fill="#555">time (UTC)</text>`+"\n", (svgLeft+svgRight)/2, axis+40)
}

// svgPathData draws the points at the middle of their buckets; a bucket
// without a value starts a new subpath, and each subpath starts with a
// zero-length segment (h0) so that a lone point shows as a round dot.
func svgPathData(c *chart, t ticks, top int, points []*row) string {
	var b []byte
	for i, p := range points {
		px, py := x(c, p.start+c.slot/2), t.y(p.value, top)
		if i == 0 || c.slotOf(p.start) > c.slotOf(points[i-1].start)+1 {
			b = fmt.Appendf(b, "M%.1f %.1fh0", px, py)
		} else {
			b = fmt.Appendf(b, "L%.1f %.1f", px, py)
		}
	}
	return string(b)
}

// escapeXML escapes text for an element's content; bytes XML cannot hold
// (controls) become U+FFFD.
func escapeXML(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}
