package read

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/timbertally/timbertally/lib/tape"
)

// streams reports whether tgread prints the tape bucket by bucket: a lone
// stdin may never end (tail -f tape | tgread -), and only --step, --markers,
// openmetrics (families contiguous, # EOF last) and pictures (one time
// axis for the whole tape) need the whole tape.
func (s *settings) streams() bool {
	return len(s.names) == 1 && s.names[0] == "-" && !s.markers && !s.plot && s.view.step == 0 &&
		s.format != "openmetrics" && s.format != "svg"
}

// stream prints stdin's tape a bucket group at a time: the lines up to each
// seal are resolved and printed, and the output flushed, as the seal
// arrives. At the end, series after the last seal are left out with a note
// (a group not yet whole), unless the tape has no seal at all (a resolved
// tape), which is printed then. A pair printed
// before and given again (a fragment after its seal: the old defect) is
// printed again, and reported on stderr when its value differs.
func (s *settings) stream(w *bufio.Writer, stdin io.Reader, stderr io.Writer) error {
	st := &streamer{s: s, w: w, stderr: stderr, printed: map[string]float64{}, seen: reported{}, header: true, sealed: map[int64]bool{}}
	tr := tape.NewReader(stdin)
	st.rv = st.newResolver()
	for {
		line, err := tr.ReadLine()
		if err == io.EOF || errors.Is(err, tape.ErrTorn) {
			return st.flush()
		}
		if err != nil {
			return fmt.Errorf("tgread: stdin: %v", err)
		}
		if err := st.rv.Add(line, tr.Line()); err != nil {
			return fmt.Errorf("tgread: stdin: %v; it was not written by tally, or was damaged", err)
		}
		if bytes.HasPrefix(line, []byte("seal ")) {
			if err := st.flush(); err != nil {
				return err
			}
		}
	}
}

// streamer is the state of a stream: the group being resolved and every
// (bucket, series) printed, with its value.
type streamer struct {
	s       *settings
	w       *bufio.Writer
	stderr  io.Writer
	rv      *tape.Resolver
	printed map[string]float64 // bucket time and series text: value printed
	seen    reported
	header  bool
	sealed  map[int64]bool // the buckets sealed so far (that --from/--to select)
	anySeal bool           // a seal was read: a tally tape, whose series wait for their seal
}

func (st *streamer) newResolver() *tape.Resolver {
	opt := st.s.opt
	opt.OnDuplicate = func(d tape.Dup) { st.seen.report(st.stderr, "stdin", d) }
	return tape.NewResolver(opt)
}

// flush prints the group resolved so far and starts the next.
func (st *streamer) flush() error {
	res := st.rv.Result()
	st.rv = st.newResolver()
	for start := range res.Seals {
		st.sealed[start] = true
	}
	st.anySeal = st.anySeal || res.Sealed
	unsealed := 0
	if st.anySeal {
		unsealed = dropUnsealed(res, st.sealed) // a group without its seal, at the end of a tally tape
	}
	for _, p := range res.Points {
		key := string(tape.AppendTime(nil, p.Start)) + " " + p.Series.Text
		if old, ok := st.printed[key]; ok {
			st.seen.report(st.stderr, "stdin", tape.Dup{Start: p.Start, Series: p.Series, Old: old, New: p.Value, Line: p.Line})
		}
		st.printed[key] = p.Value
	}
	noteUnsealed(st.stderr, "stdin", unsealed)
	if len(res.Points) == 0 {
		return nil
	}
	rows, err := st.s.view.rows([]*source{{name: "-", tape: "stdin", res: res}})
	if err != nil {
		return err
	}
	slices.SortFunc(rows, byTime)
	if rows, err = st.s.groupQuantiles(rows); err != nil {
		return err
	}
	if err := formats[st.s.format](st.w, rows, st.header); err != nil {
		return err
	}
	st.header = false
	return st.w.Flush()
}
