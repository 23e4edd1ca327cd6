package testscripts

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/timbertally/timbertally/lib/protocol"
)

// The Go tests read what the binaries wrote with their own code, not the
// toolkit's parsers: an oracle that shares the parser under test cannot
// catch its mistakes. This file is that code: the test's own reading of a
// tape line and of a cursor, and tgsynth run as a binary.

// synthStart is tgsynth's default log time of a first line.
var synthStart = time.Date(2026, 10, 10, 13, 55, 0, 0, time.UTC)

// synthesize runs tgsynth with args, writing its lines to path.
func synthesize(t *testing.T, path string, args ...string) {
	t.Helper()
	out, err := exec.Command("tgsynth", append(args, "--output", path)...).CombinedOutput()
	if err != nil {
		t.Fatalf("tgsynth %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// tapeLine is a tape line as the tests read it: a series line's metric,
// labels and value; a marker's (!late, !drop, !cap) key=value words.
type tapeLine struct {
	kind   string // "series", "!late", "!drop", "!cap", or the line's first word (seal, end, ...)
	metric string
	labels map[string]string
	value  float64
	keys   map[string]string
}

// count is a marker's count=, the entries it accounts for.
func (l tapeLine) count() int64 {
	n, _ := strconv.ParseInt(l.keys["count"], 10, 64)
	return n
}

var (
	seriesLine = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\S+ ([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$`)
	labelPair  = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"`)
)

// readTapeLine reads one tape line (without its newline) by the format
// docs/design.md states: "START METRIC{K="V",...} VALUE", or a kind word
// followed by key=value words.
func readTapeLine(line string) (tapeLine, error) {
	if m := seriesLine.FindStringSubmatch(line); m != nil {
		v, err := strconv.ParseFloat(m[3], 64)
		l := tapeLine{kind: "series", metric: m[1], value: v, labels: map[string]string{}}
		for _, p := range labelPair.FindAllStringSubmatch(m[2], -1) {
			l.labels[p[1]] = p[2]
		}
		return l, err
	}
	words := strings.Fields(line)
	if len(words) == 0 {
		return tapeLine{}, errors.New("an empty tape line")
	}
	l := tapeLine{kind: words[0], keys: map[string]string{}}
	for _, w := range words[1:] {
		if k, v, ok := strings.Cut(w, "="); ok {
			l.keys[k] = v
		}
	}
	l.metric = l.keys["metric"]
	return l, nil
}

// readTape reads every line of a tape.
func readTape(t *testing.T, tp []byte) []tapeLine {
	t.Helper()
	var lines []tapeLine
	for line := range bytes.Lines(tp) {
		l, err := readTapeLine(strings.TrimSuffix(string(line), "\n"))
		if err != nil {
			t.Fatalf("the tape line %q does not read: %v", line, err)
		}
		lines = append(lines, l)
	}
	return lines
}

// cursorOffsets is the offset of each store a cursor file names: its lines
// are the protocol's store lines (docs/design.md), read with lib/protocol,
// the public parser of them. A missing file is an empty cursor.
func cursorOffsets(path string) (map[string]int64, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]int64{}, nil
	}
	if err != nil {
		return nil, err
	}
	c := map[string]int64{}
	for line := range bytes.Lines(data) {
		h, err := protocol.ParseHeader(bytes.TrimSuffix(line, []byte("\n")))
		if err != nil {
			return nil, err
		}
		c[h.ID] = h.Offset
	}
	return c, nil
}

// accounted sums, over every line of a tape, the entries it accounts for:
// the requests series (a count by status over every entry) and the
// markers that cover requests. A fragment or a replayed group shows as
// entries counted twice.
func accounted(t *testing.T, tp []byte) int64 {
	var n int64
	for _, l := range readTape(t, tp) {
		switch {
		case l.kind == "series" && l.metric == "requests":
			n += int64(l.value)
		case l.kind == "!late" || l.kind == "!drop",
			l.kind == "!cap" && l.metric == "requests":
			n += l.count()
		}
	}
	return n
}
