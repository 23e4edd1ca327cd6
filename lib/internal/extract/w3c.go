package extract

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"
	"strings"

	"github.com/timbertally/timbertally/lib/internal/doc"
)

// ReasonLayout is what Extract returns for a header line that sets the
// columns of the lines after it (a W3C "#Fields:" line): no entry, as
// ReasonHeader; and the caller must replay from it, not past it, after a
// restart, for the columns to be known again (tally holds its durable
// offset there).
const ReasonLayout = "layout"

// w3cCol is a column of a W3C layout: the field it is (-1: one the
// document does not read) and how it is checked.
type w3cCol struct {
	field int
	kind  doc.FieldKind
}

// w3cLayout is the columns a #Fields header names; date and clock are
// the columns of the date and the time (-1: none), which are one field.
type w3cLayout struct {
	cols        []w3cCol
	ids         []string // the column identifiers, as the header names them
	date, clock int
	// unset are the own fields no column sets (and the time field when
	// the layout has no time): empty on every line, so cleared alone,
	// not every field before the columns set theirs again.
	unset []int
}

// w3cState is a W3C format's columns: the default, and each store's as
// its last #Fields header set them (a header changes them mid-file, for
// the lines of that file after it).
type w3cState struct {
	sep    byte
	def    *w3cLayout
	stores []*w3cLayout // by store; nil: the default
	cur    *w3cLayout
	st     int
	time   int // the time field
}

// newW3C makes the columns' state; own are the format's own fields (the
// names after them are common names, which a column never sets: a bare
// W3C "bytes" column is not the common bytes, sc-bytes is).
func newW3C(w *doc.W3C, own []string) *w3cState {
	names := own
	s := &w3cState{sep: w.Sep, time: indexOf(names, "time")}
	s.def = s.layout(w.Default, names)
	s.cur = s.def
	return s
}

// layout makes the layout of a header's column identifiers.
func (s *w3cState) layout(ids []string, names []string) *w3cLayout {
	l := &w3cLayout{date: -1, clock: -1, ids: ids}
	for i, id := range ids {
		switch id {
		case "date":
			l.date = i
		case "time":
			l.clock = i
		}
		f := doc.W3CField(id)
		col := w3cCol{field: indexOf(names, f), kind: doc.W3CKind(f)}
		if id == "date" || id == "time" {
			col.field = -1 // the time field is both, set whole below
		}
		l.cols = append(l.cols, col)
	}
	for i := range names {
		if i == s.time && l.timed() || slices.ContainsFunc(l.cols, func(c w3cCol) bool { return c.field == i }) {
			continue
		}
		l.unset = append(l.unset, i)
	}
	return l
}

// Store says which store the next lines come from: their origin fields
// are its (Origin), and a W3C format reads each store by its own #Fields
// header.
func (x *Extractor) Store(st int) {
	if st != x.st {
		x.st = st
		x.origin.selectStore(st)
	}
	s := x.w3
	if s == nil || (st == s.st && s.cur != nil) {
		return
	}
	s.st, s.cur = st, s.def
	if st >= 0 && st < len(s.stores) && s.stores[st] != nil {
		s.cur = s.stores[st]
	}
}

// w3c cuts a W3C extended log line: a '#' line is a directive (no entry;
// "#Fields:" sets the store's columns), any other the columns the last
// #Fields named, separated by one sep byte. The date and time columns
// are the field time (they must be adjacent); a field the columns do not
// have is empty.
func (x *Extractor) w3c(line []byte, e *Entry) string {
	s := x.w3
	if len(line) > 0 && line[0] == '#' {
		if ids, ok := bytes.CutPrefix(line, []byte("#Fields:")); ok {
			s.setFields(ids, x.names[:x.ownFields()])
			return ReasonLayout
		}
		return ReasonHeader
	}
	f := e.Fields
	l := s.cur
	for _, i := range l.unset {
		f[i] = line[:0]
	}
	// The separators are found a word (8 bytes) at a time, each word's
	// mask walked bit by bit: a CloudFront line is ~33 columns, most of
	// them short ("-", a status, a count), several to a word, where a
	// search per column would load the same word again.
	last := len(l.cols) - 1
	start, dateAt := 0, -1
	m, base := uint64(0), -8 // m: the separators of the word at base not yet passed
	for ci := range l.cols {
		for m == 0 && base+8 < len(line) {
			if base += 8; base+8 > len(line) {
				m = tailSepMask(line[base:], s.sep)
				break
			}
			if m = sepMask(binary.LittleEndian.Uint64(line[base:]), s.sep); m == 0 && base-start >= 16 {
				// A long column (a user agent, a request id): the rest
				// of it by bytes.IndexByte, which reads 32 bytes a step.
				k := bytes.IndexByte(line[base+8:], s.sep)
				if k < 0 {
					base = len(line)
					break
				}
				if base += 8 + k; base+8 <= len(line) {
					m = sepMask(binary.LittleEndian.Uint64(line[base:]), s.sep)
				} else {
					m = tailSepMask(line[base:], s.sep)
				}
			}
		}
		j := len(line)
		if m != 0 {
			j = base + bits.TrailingZeros64(m)>>3
			m &= m - 1
			if ci == last {
				return ReasonFormat // more columns than the header names
			}
		} else if ci < last {
			return ReasonFormat // fewer columns than the header names
		}
		switch ci {
		case l.date:
			dateAt = start
		case l.clock:
			if dateAt >= 0 && l.timed() {
				f[s.time] = line[dateAt:j]
			}
		}
		if c := &l.cols[ci]; c.field >= 0 {
			v := line[start:j]
			if c.kind == doc.Numeric && j < len(line) {
				// time-taken and the like: decimalTo reads a decimal up to
				// the separator as number does, without its slow path for
				// a fraction (CloudFront's seconds).
				if n, num := decimalTo(line[start:], s.sep); n > 0 {
					f[c.field] = v
					e.known(c.field, num, true)
					start = j + 1
					continue
				}
			}
			if c.kind != doc.Text { // most columns: no call for nothing to check
				if r := checkColumn(c, v, e); r != "" {
					return r
				}
			}
			f[c.field] = v
		}
		start = j + 1
	}
	return ""
}

// sepMask has the high bit of each byte of w that is c set, and no other
// bit: exact, unlike byteMask, whose borrow may flag a byte after a match,
// for its bits are walked one by one.
func sepMask(w uint64, c byte) uint64 {
	const lows = 0x7f7f7f7f7f7f7f7f
	x := w ^ 0x0101010101010101*uint64(c)
	return ^(x&lows + lows | x | lows)
}

// tailSepMask is sepMask for the last bytes of a line, fewer than 8.
func tailSepMask(b []byte, c byte) uint64 {
	var m uint64
	for k, d := range b {
		if d == c {
			m |= 0x80 << (8 * k)
		}
	}
	return m
}

// checkColumn checks a column of a checked kind and records its number.
func checkColumn(c *w3cCol, v []byte, e *Entry) string {
	switch c.kind {
	case doc.Status:
		if !isStatus(v) {
			return ReasonStatus
		}
	case doc.Size:
		n, isNum, valid := bytesField(v)
		if !valid {
			return ReasonBytes
		}
		e.known(c.field, n, isNum)
	case doc.Numeric:
		if n, ok := number(v); ok {
			e.known(c.field, n, true)
		} else if len(v) != 1 || v[0] != '-' {
			return ReasonNumber
		}
	}
	return ""
}

// Why says why the line just extracted dropped for reason, when the
// format knows more than the reason: a W3C header that names no date and
// time columns side by side gives its lines no time (IIS leaves them out
// when a site's logging fields untick them). "" otherwise.
func (x *Extractor) Why(reason string) string {
	s := x.w3
	if s == nil || reason != ReasonTime || s.cur == nil || s.cur.timed() {
		return ""
	}
	for _, id := range []string{"date", "time"} {
		if n := countOf(s.cur.ids, id); n > 1 {
			return fmt.Sprintf("the #Fields header names the %s column %d times (it names: %s), and a W3C line's time is one date column and the time column right after it: fix the server's logging fields so that each is named once; the lines logged under this header stay !drop reason=time", id, n, strings.Join(s.cur.ids, " "))
		}
	}
	return fmt.Sprintf("the #Fields header names no date and time columns side by side (it names: %s), and a W3C line's time is the two: have the server log both (IIS: tick Date and Time in the site's logging fields); the lines logged without them stay !drop reason=time", strings.Join(s.cur.ids, " "))
}

// countOf counts id in ids.
func countOf(ids []string, id string) int {
	n := 0
	for _, s := range ids {
		if s == id {
			n++
		}
	}
	return n
}

// timed reports whether the layout has a time: a date column and the time
// column right after it.
func (l *w3cLayout) timed() bool { return l.date >= 0 && l.clock == l.date+1 }

// setFields makes a #Fields header the current store's columns.
func (s *w3cState) setFields(ids []byte, names []string) {
	var list []string
	for _, id := range bytes.Fields(ids) {
		list = append(list, string(id))
	}
	l := s.layout(list, names)
	for len(s.stores) <= s.st {
		s.stores = append(s.stores, nil)
	}
	if s.st >= 0 {
		s.stores[s.st] = l
	}
	s.cur = l
}
