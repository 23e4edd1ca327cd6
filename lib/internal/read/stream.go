package read

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/timbertally/timbertally/lib/internal/tape"
)

// streams reports whether tgread prints the tape bucket by bucket: a lone
// stdin may never end (tail -f tape | tgread -), --follow never does, and
// only --step, --markers, openmetrics (families contiguous, # EOF last) and
// pictures (one time axis for the whole tape) need the whole tape.
func (s *settings) streams() bool {
	return (s.follow || len(s.names) == 1 && s.names[0] == "-") && s.streamable()
}

// streamable reports whether the output can be printed a group at a time.
func (s *settings) streamable() bool {
	return !s.markers && !s.plot && s.view.step == 0 && s.format != "openmetrics" && s.format != "svg"
}

// streamMemory is how many of the newest sealed buckets a stream remembers
// the printed values of: a fragment after its seal (the old defect wrote
// them within a few buckets) is reported against them, and memory does not
// grow with the hours a stream runs. tgcheck --scan finds every fragment.
const streamMemory = 64

// stream prints a tape a bucket group at a time: the lines up to each
// seal are resolved and printed, and the output flushed, as the seal
// arrives. At the end, series after the last seal are left out with a note
// (a group not yet whole), unless the tape has no seal at all (a resolved
// tape), which is printed then; a followed tape (follow) ends only when
// tgread is stopped, and its last group, being written, is left out
// without a note. A pair printed before and given again (a fragment after
// its seal: the old defect) is printed again, and reported on stderr when
// its value differs and its bucket is among the streamMemory newest sealed.
func (s *settings) stream(w *bufio.Writer, r io.Reader, name string, follow bool, stderr io.Writer) error {
	st := s.newStreamer(w, name, stderr)
	tr := tape.NewReader(r)
	for {
		line, err := tr.ReadLine()
		if err == io.EOF || errors.Is(err, tape.ErrTorn) {
			if follow {
				return nil
			}
			return st.flush()
		}
		if err != nil {
			return fmt.Errorf("tgread: %s: %v", name, err)
		}
		if err := st.add(line, tr.Line()); err != nil {
			return err
		}
	}
}

// streamer is the state of a stream: the group being resolved, and the
// newest sealed buckets with the values printed for them.
type streamer struct {
	s       *settings
	w       *bufio.Writer
	name    string // stdin, or the tape's path
	stderr  io.Writer
	rv      *tape.Resolver
	printed map[int64]map[string]float64 // per remembered bucket: series text, value printed
	order   []int64                      // the remembered buckets, oldest first
	floor   int64                        // the newest bucket forgotten; valid when forgot
	forgot  bool
	seen    reported
	later   tape.LaterKinds // the later kinds noted: each Resolver (one a group) knows only its own
	header  bool
	anySeal bool // a seal was read: a tally tape, whose series wait for their seal
}

func (s *settings) newStreamer(w *bufio.Writer, name string, stderr io.Writer) *streamer {
	st := &streamer{s: s, w: w, name: name, stderr: stderr, printed: map[int64]map[string]float64{}, seen: reported{}, header: true}
	st.rv = st.newResolver()
	return st
}

// add takes line number n of the tape, printing the group it closes.
func (st *streamer) add(line []byte, n int) error {
	if err := st.rv.Add(line, n); err != nil {
		return unreadable(st.name, err)
	}
	if bytes.HasPrefix(line, []byte("seal ")) {
		return st.flush()
	}
	return nil
}

func (st *streamer) newResolver() *tape.Resolver {
	opt := st.s.opt
	opt.OnDuplicate = func(d tape.Dup) { st.seen.report(st.stderr, st.name, d) }
	opt.OnLater = func(k tape.LaterKind) {
		if k, ok := st.later.Name(k.Word, k.Line); ok {
			noteLater(st.stderr, st.name, k)
		}
	}
	return tape.NewResolver(opt)
}

// sealed reports whether the bucket at start was sealed: remembered, or
// older than every remembered bucket (tally seals in order, so a series
// line for such a bucket is a fragment after its seal).
func (st *streamer) sealed(start int64) bool {
	_, ok := st.printed[start]
	return ok || st.forgot && start <= st.floor
}

// remember keeps the bucket at start among the newest sealed, forgetting
// the oldest beyond streamMemory.
func (st *streamer) remember(start int64) {
	if _, ok := st.printed[start]; ok {
		return
	}
	st.printed[start] = map[string]float64{}
	st.order = append(st.order, start)
	if len(st.order) > streamMemory {
		old := st.order[0]
		st.order = slices.Delete(st.order, 0, 1)
		delete(st.printed, old)
		st.floor, st.forgot = max(st.floor, old), true
	}
}

// flush prints the group resolved so far and starts the next.
func (st *streamer) flush() error {
	res := st.rv.Result()
	st.rv = st.newResolver()
	for _, start := range slices.Sorted(maps.Keys(res.Seals)) {
		st.remember(start)
	}
	st.anySeal = st.anySeal || res.Sealed
	unsealed := 0
	if st.anySeal {
		unsealed = dropUnsealed(res, st.sealed) // a group without its seal, at the end of a tally tape
	}
	for _, p := range res.Points {
		values := st.printed[p.Start] // nil for a forgotten bucket: nothing to compare
		if old, ok := values[p.Series.Text]; ok {
			st.seen.report(st.stderr, st.name, tape.Dup{Start: p.Start, Series: p.Series, Old: old, New: p.Value, Line: p.Line})
		}
		if values != nil {
			values[p.Series.Text] = p.Value
		}
	}
	noteUnsealed(st.stderr, st.name, unsealed)
	if len(res.Points) == 0 {
		return nil
	}
	rows, err := st.s.view.rows([]*source{{name: "-", tape: st.name, res: res}})
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
