package tally

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/timbertally/timbertally/lib/doc"
)

// pipeReader returns at most n bytes a read, as a pipe does.
type pipeReader struct {
	r io.Reader
	n int
}

func (p *pipeReader) Read(b []byte) (int, error) {
	return p.r.Read(b[:min(len(b), p.n)])
}

// frameBatches frames lines as batches of per entries of store web.
func frameBatches(lines []string, per int) string {
	var b strings.Builder
	b.WriteString("feed v=1\nstore id=web offset=0\n")
	pos := 0
	for i := 0; i < len(lines); i += per {
		body := strings.Join(lines[i:min(i+per, len(lines))], "\n") + "\n"
		fmt.Fprintf(&b, "batch id=web offset=%d end=%d entries=%d\n%s", pos, pos+len(body), min(per, len(lines)-i), body)
		pos += len(body)
	}
	b.WriteString("end id=web\n")
	return b.String()
}

func TestLinesAroundTheInputBufferSizeGiveTheTapeOfTryInAnyBatching(t *testing.T) {
	d, err := doc.Parse("test", []byte(testDoc))
	if err != nil {
		t.Fatal(err)
	}
	// long is an entry of n bytes with its '\n', the last before it a '\r' when cr.
	long := func(n int, cr bool) string {
		s := "130 " + strings.Repeat("x", n-1-len("130 "))
		if cr {
			s = s[:len(s)-1] + "\r"
		}
		return s
	}
	var lines []string
	short := func(k int) {
		for i := range k {
			lines = append(lines, fmt.Sprintf("%d %d", 100+i%50, 200+i%7))
		}
	}
	lines = append(lines, long(inputSize-1, false)) // first
	short(3)
	lines = append(lines, long(inputSize, false), long(inputSize+1, true), long(inputSize, true)) // consecutive
	short(30000)                                                                                  // ~300 KiB: the next starts inside a piece
	lines = append(lines, long(inputSize+1, false))
	short(3)
	lines = append(lines, long(inputSize-1, true), long(inputSize+2, false)) // last
	whole := strings.Join(lines, "\n") + "\n"
	var want bytes.Buffer
	if err := try(d, nil, strings.NewReader(whole), &want, func(string, ...any) {}); err != nil {
		t.Fatal(err)
	}
	for _, per := range []int{1, 7, len(lines)} {
		for _, read := range []int{1 << 20, 4093} {
			dir := newStore(t)
			var out bytes.Buffer
			if err := run(dir, &pipeReader{strings.NewReader(frameBatches(lines, per)), read}, &out, func(string, ...any) {}); err != nil {
				t.Fatalf("batches of %d entries, reads of %d bytes: %v", per, read, err)
			}
			if got, w := readTape(t, dir), strings.ReplaceAll(want.String(), "id=stdin", "id=web"); got != strings.ReplaceAll(w, "at=stdin:", "at=web:") {
				t.Fatalf("batches of %d entries, reads of %d bytes: a tape of %d bytes, not try's %d", per, read, len(got), len(w))
			}
		}
	}
}

func TestABadBatchWithALineOverTheInputBufferIsNamedByItsOwnHeader(t *testing.T) {
	body := "101 200\n130 " + strings.Repeat("x", inputSize) + "\n102 200\n"
	head := func(end, entries int) string {
		return fmt.Sprintf("batch id=web offset=0 end=%d entries=%d", end, entries)
	}
	next, _ := batch(int64(len(body)), 140)
	for name, tc := range map[string]struct{ in, msg string }{
		"too many entries": {head(len(body), 4) + "\n" + body + next + "end id=web\n", head(len(body), 4) + `": its ` + fmt.Sprint(len(body)) + " bytes hold 3 whole lines"},
		"too few entries":  {head(len(body), 2) + "\n" + body + next + "end id=web\n", head(len(body), 2) + `": its ` + fmt.Sprint(len(body)) + " bytes hold 3 whole lines"},
		"a cut batch":      {head(len(body), 3) + "\n" + body[:len(body)-3], head(len(body), 3) + `": input ended inside the batch`},
		"a short end":      {head(len(body)-1, 3) + "\n" + body + next + "end id=web\n", head(len(body)-1, 3) + `": its`},
	} {
		t.Run(name, func(t *testing.T) {
			for _, read := range []int{1 << 20, 4093} {
				in := "feed v=1\nstore id=web offset=0\n" + tc.in
				err := run(newStore(t), &pipeReader{strings.NewReader(in), read}, io.Discard, func(string, ...any) {})
				if err == nil || !strings.HasPrefix(err.Error(), `"`+tc.msg) {
					t.Fatalf("reads of %d bytes: want an error starting %q, got %.200v", read, `"`+tc.msg, err)
				}
			}
		})
	}
}
