package extract

import (
	"bytes"

	"github.com/timbertally/timbertally/lib/internal/doc"
)

// A layout of quoted fields only, "a","b",…,"z" (Google Cloud Storage's
// usage log), costs the compiled cutter's loop a turn per field, each
// looking for its closing quote past backslash escapes. On a line with
// no backslash every '"' closes a field, so the straight-line cut below
// takes each field up to the next '"', checks the `,"` after it, and
// checks the field's kind as the loop does (checkColumn: the same
// checks); it gives up (to the compiled cutter, the one owner of the drop
// reasons) on a line with a backslash or anything the loop would refuse.
// FuzzNamedFastCuts holds the two to the same fields, numbers and
// reasons.

// quotedCSV is such a layout's columns, in order.
type quotedCSV struct {
	cols []w3cCol
}

// quotedCSVOf returns the columns of a layout of quoted fields only, or
// nil for any other layout.
func quotedCSVOf(l *doc.LogFormat, lf *logFormat) *quotedCSV {
	if l.Prefix != `"` || len(l.Parts) == 0 || len(lf.cuts) != len(l.Parts) {
		return nil
	}
	q := &quotedCSV{}
	for i, p := range l.Parts {
		lit := `","`
		if i == len(l.Parts)-1 {
			lit = `"`
		}
		switch {
		case !p.Quoted || p.Lit != lit || p.Skip != 0 || p.Field == "":
			return nil
		case p.Kind != doc.Text && p.Kind != doc.Status && p.Kind != doc.Size && p.Kind != doc.Numeric && p.Kind != doc.Stamp:
			return nil // a request, a list: not checked as checkColumn checks
		}
		q.cols = append(q.cols, w3cCol{field: lf.cuts[i].field, kind: p.Kind})
	}
	return q
}

// cut is the straight-line cut of a quotedCSV layout (a
// fastCut).
func (q *quotedCSV) cut(x *Extractor, line []byte, e *Entry) bool {
	if len(line) == 0 || line[0] != '"' || bytes.IndexByte(line, '\\') >= 0 {
		return false
	}
	cols, f := q.cols, e.Fields
	rest := line[1:]
	for i := range cols {
		c := &cols[i]
		j := indexByte(rest, '"')
		if j < 0 {
			return false
		}
		v := rest[:j]
		if c.kind != doc.Text && checkColumn(c, v, e) != "" {
			return false
		}
		f[c.field] = v
		if rest = rest[j+1:]; i < len(cols)-1 {
			if len(rest) < 2 || rest[0] != ',' || rest[1] != '"' {
				return false
			}
			rest = rest[2:]
		}
	}
	return len(rest) == 0
}
