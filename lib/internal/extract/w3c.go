package extract

import (
	"bytes"
	"fmt"
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
	for i := range f {
		f[i] = line[:0]
	}
	l := s.cur
	rest, at := line, 0
	dateAt := -1
	for ci := range l.cols {
		c := &l.cols[ci]
		j := len(rest)
		if ci < len(l.cols)-1 {
			if j = bytes.IndexByte(rest, s.sep); j < 0 {
				return ReasonFormat // fewer columns than the header names
			}
		} else if bytes.IndexByte(rest, s.sep) >= 0 {
			return ReasonFormat // more columns than the header names
		}
		v := rest[:j]
		switch ci {
		case l.date:
			dateAt = at
		case l.clock:
			if dateAt >= 0 && l.timed() {
				f[s.time] = line[dateAt : at+j]
			}
		}
		if c.field >= 0 {
			if r := checkColumn(c, v, e); r != "" {
				return r
			}
			f[c.field] = v
		}
		if ci < len(l.cols)-1 {
			rest, at = rest[j+1:], at+j+1
		}
	}
	return ""
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
	return fmt.Sprintf("the #Fields header names no date and time columns side by side (it names: %s), and a W3C line's time is the two: have the server log both (IIS: tick Date and Time in the site's logging fields); the lines logged without them stay !drop reason=time", strings.Join(s.cur.ids, " "))
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
