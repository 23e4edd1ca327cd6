package read

import (
	"encoding/xml"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
)

// plotTape has two series over four 10 s buckets, the third bucket of
// status=500 missing.
const plotTape = `2026-10-10T13:55:00Z requests{status="200"} 8
2026-10-10T13:55:00Z requests{status="500"} 1
seal 2026-10-10T13:55:00Z width=10s entries=9 at=web:100
2026-10-10T13:55:10Z requests{status="200"} 4
2026-10-10T13:55:10Z requests{status="500"} 2
seal 2026-10-10T13:55:10Z width=10s entries=6 at=web:200
2026-10-10T13:55:20Z requests{status="200"} 2
seal 2026-10-10T13:55:20Z width=10s entries=2 at=web:300
2026-10-10T13:55:30Z requests{status="200"} 1
2026-10-10T13:55:30Z requests{status="500"} 2
seal 2026-10-10T13:55:30Z width=10s entries=3 at=web:400
`

func TestPlotDrawsEachSeriesWithItsRangeAndTheTimeAxis(t *testing.T) {
	want := `requests{status=200}  min 1  max 8  a bar per 10s
8 ┤████                
  │████                
  │████                
  │████                
  │████ ████           
  │████ ████           
  │████ ████ ████      
0 ┤████ ████ ████ ████ 
  └────────────────────
   2026-10-10T13:55:00Z .. 2026-10-10T13:55:40Z

requests{status=500}  min 1  max 2  a bar per 10s
2 ┤     ████      ████ 
  │     ████      ████ 
  │     ████      ████ 
  │     ████      ████ 
  │████ ████      ████ 
  │████ ████      ████ 
  │████ ████      ████ 
0 ┤████ ████      ████ 
  └────────────────────
   2026-10-10T13:55:00Z .. 2026-10-10T13:55:40Z
`
	tgread(t, plotTape, "--plot", "--width", "24", "-").want(t, 0, want)
}

func TestSVGIsWellFormedXMLWithOnePathPerSeries(t *testing.T) {
	r := tgread(t, plotTape+"2026-10-10T13:55:00Z bytes{status=\"<&>\\xff\"} 100\nseal 2026-10-10T13:55:00Z width=10s entries=1 at=web:500\n", "--format", "svg", "-")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	d := xml.NewDecoder(strings.NewReader(r.stdout))
	paths, root := 0, ""
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("the SVG is not well-formed XML: %v\n%s", err, r.stdout)
		}
		if e, ok := tok.(xml.StartElement); ok {
			if root == "" {
				root = e.Name.Local
			}
			if e.Name.Local == "path" {
				paths++
			}
		}
	}
	if root != "svg" || paths != 3 {
		t.Errorf("root <%s> with %d paths, want <svg> with 3 (one per series):\n%s", root, paths, r.stdout)
	}
	if !strings.Contains(r.stdout, "bytes{status=&lt;&amp;&gt;\\xff}") {
		t.Errorf("the legend does not name the series with its value shown and escaped:\n%s", r.stdout)
	}
}

func TestASeriesBreaksAtABucketWithoutValue(t *testing.T) {
	r := tgread(t, plotTape, "--format", "svg", "--metric", "requests", "-")
	for _, l := range strings.Split(r.stdout, "\n") {
		if strings.Contains(l, "<path") && strings.Count(l, "M") != 1 && strings.Count(l, "M") != 2 {
			t.Errorf("path with %d subpaths: %s", strings.Count(l, "M"), l)
		}
	}
	if !strings.Contains(r.stdout, `#f28e2b" stroke-width="1.5" stroke-linejoin="round" stroke-linecap="round" d="M`) ||
		strings.Count(r.stdout, "h0") != 3 {
		t.Errorf("want status=200 one subpath and status=500 two (the third bucket has no value), 3 in all:\n%s", r.stdout)
	}
}

func TestPlotTakesNoFormatAndNoMarkers(t *testing.T) {
	for _, args := range [][]string{{"--plot", "--format", "csv"}, {"--plot", "--markers"}} {
		r := tgread(t, plotTape, args...)
		if r.code != 2 || !strings.Contains(r.stderr, "tgread: --plot draws the values") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and a refusal", args, r.code, r.stderr)
		}
	}
}

func TestPlotWidthComesFromColumns(t *testing.T) {
	t.Setenv("COLUMNS", "40")
	r := tgread(t, plotTape, "--plot", "--metric", "requests", "-")
	if first := strings.Split(r.stdout, "\n")[1]; len([]rune(first)) != 39 {
		t.Errorf("with COLUMNS=40 a chart line is %d runes, want 39 (a label of 1, an axis of 2, 4 bars of the 37 columns left: 9 each):\n%s", len([]rune(first)), r.stdout)
	}
}

func TestPlotWidthComesFromTheTerminalWhenColumnsIsUnset(t *testing.T) {
	asked := terminalWidth
	defer func() { terminalWidth = asked }()
	terminalWidth = func() (int, bool) { return 40, true }
	t.Setenv("COLUMNS", "") // restored after the test
	os.Unsetenv("COLUMNS")
	r := tgread(t, plotTape, "--plot", "--metric", "requests", "-")
	if first := strings.Split(r.stdout, "\n")[1]; len([]rune(first)) != 39 {
		t.Errorf("in a terminal 40 wide a chart line is %d runes, want 39:\n%s", len([]rune(first)), r.stdout)
	}
	t.Setenv("COLUMNS", "30") // an exported COLUMNS, then --width, win over the terminal
	if first := strings.Split(tgread(t, plotTape, "--plot", "--metric", "requests", "-").stdout, "\n")[1]; len([]rune(first)) > 30 {
		t.Errorf("COLUMNS=30 in a terminal 40 wide: a chart line of %d runes", len([]rune(first)))
	}
	if first := strings.Split(tgread(t, plotTape, "--plot", "--width", "24", "--metric", "requests", "-").stdout, "\n")[1]; len([]rune(first)) > 24 {
		t.Errorf("--width 24 in a terminal 40 wide: a chart line of %d runes", len([]rune(first)))
	}
}

func TestPlotCombinesBucketsByKindWhenTheyOutnumberTheColumns(t *testing.T) {
	var tape strings.Builder
	for m := range 20 {
		tape.WriteString("2026-10-10T13:" + string(rune('0'+m/10)) + string(rune('0'+m%10)) + ":00Z requests 1\n")
	}
	r := tgread(t, tape.String(), "--plot", "--width", "13", "--kind", "requests=count", "-")
	if !strings.Contains(r.stdout, "min 1  max 1  a bar per 2m\n2 ┤██████████\n") {
		t.Errorf("20 buckets of 1m in 10 columns: want bars of 2m summing two buckets each:\n%s", r.stdout)
	}
}

func TestAPlotLabelsAFractionToFourSignificantDigits(t *testing.T) {
	const fractions = `2026-10-10T13:55:00Z latency 0.022584745762711866
seal 2026-10-10T13:55:00Z width=10s entries=1 at=web:100
2026-10-10T13:55:10Z latency 0.01819078947368421
seal 2026-10-10T13:55:10Z width=10s entries=1 at=web:200
`
	r := tgread(t, fractions, "--plot", "--width", "30", "-")
	if r.code != 0 || !strings.Contains(r.stdout, "latency  min 0.01819  max 0.02258") || !strings.Contains(r.stdout, "0.02258 ┤") {
		t.Fatalf("exit %d, stdout:\n%s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
}
