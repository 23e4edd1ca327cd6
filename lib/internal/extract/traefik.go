package extract

import "github.com/timbertally/timbertally/lib/internal/doc"

// Traefik's CLF is nginx's combined, which the built-in cutter reads,
// then four fields: `{request_count} "{router_name}" "{service_url}"
// {duration_ms}ms`. The compiled cutter reads those four with its loop, a
// quarter of the row's time for a tenth of the line; the straight-line
// cut below reads them as the loop's cases for their kinds do, after the
// same built-in cutter, and gives up (to the compiled cutter, the one
// owner of the drop reasons) on any line the loop would refuse.
// FuzzNamedFastCuts holds the two to the same fields, numbers and
// reasons.

// traefikTail is the layout after the combined start, which the cut is
// written for: each part's kind, literal and whether it is quoted.
var traefikTail = []struct {
	kind   doc.FieldKind
	lit    string
	quoted bool
}{{doc.Numeric, ` "`, false}, {doc.Text, `" "`, true}, {doc.Text, `" `, true}, {doc.Numeric, "ms", false}}

// traefikFields are the tail's field indexes, in order.
type traefikFields [4]int

// traefikIndexes returns the tail's fields of a compiled traefikclf
// layout, or nil when the layout is not the combined start (by the
// built-in cutter) and traefikTail.
func traefikIndexes(l *doc.LogFormat, lf *logFormat) *traefikFields {
	if lf.fast == nil || !lf.combined || lf.at != 0 || len(l.Parts) != lf.first+len(traefikTail) ||
		l.Parts[lf.first-1].Lit != `" ` {
		return nil
	}
	t := &traefikFields{}
	for i, p := range l.Parts[lf.first:] {
		if w := traefikTail[i]; p.Kind != w.kind || p.Lit != w.lit || p.Quoted != w.quoted || p.Skip != 0 || p.Field == "" {
			return nil
		}
		t[i] = lf.cuts[lf.first+i].field
	}
	return t
}

// cut is traefikclf's straight-line cut (a fastCut).
func (t *traefikFields) cut(x *Extractor, line []byte, e *Entry) bool {
	rest, _, reason := cutCombined(line, e, x.nf.main.fast, true, x.request)
	if reason != "" || len(rest) == 0 || rest[0] != ' ' { // the space of the agent's `" `
		return false
	}
	var ok bool
	if rest, ok = decimalField(e, t[0], rest[1:], ' '); !ok || len(rest) == 0 || rest[0] != '"' { // request_count
		return false
	}
	rest = rest[1:]
	j := quotedEnd(rest) // router_name
	if j < 0 || len(rest) < j+3 || rest[j+1] != ' ' || rest[j+2] != '"' {
		return false
	}
	e.Fields[t[1]], rest = rest[:j], rest[j+3:]
	if j = quotedEnd(rest); j < 0 || len(rest) < j+2 || rest[j+1] != ' ' { // service_url
		return false
	}
	e.Fields[t[2]], rest = rest[:j], rest[j+2:]
	if rest, ok = decimalField(e, t[3], rest, 'm'); !ok || len(rest) != 1 || rest[0] != 's' { // duration_ms, then "s" and the line's end
		return false
	}
	return true
}
