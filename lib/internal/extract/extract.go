// Package extract cuts entries into fields and finds their time, as a
// document's format and time directives say.
//
// Invariants:
//   - Extract never panics and never guesses: an entry either has every
//     field and its time set, or is refused with a reason word ([a-z-]+)
//     that tally writes on a !drop marker.
//   - Fields are sub-slices of the entry as logged (quoted fields keep
//     the server's escapes: Apache's \" and \xhh, nginx's \xHH), or the
//     constant "-" for a request part that cannot be told; any bytes,
//     including bytes that are not UTF-8, are fine. The one exception: a
//     JSON or logfmt string with escapes is unescaped into the
//     Extractor's reused buffer, valid until the next Extract; so is a
//     squid line whose padding is squeezed (one its straight-line cut
//     gives up on: squid.go), and a common name that is a duration in
//     seconds (its own buffer).
//   - A header line (w3c's and cloudfront's '#' lines, cloudstorage's
//     column names) is no entry: Extract returns ReasonHeader or, for a
//     line that sets the columns of those after it, ReasonLayout, and
//     the caller accounts for it as nothing (no bucket, no marker).
//   - The common names (doc.Alias) are set after the format's own fields:
//     the same bytes, or a number divided into seconds; those no metric
//     reads are "-" (all are set after CutRequests).
//   - The origin fields (doc/origin.go: store; under an envelope stream,
//     runtime_time, namespace, pod, container) are the values Origin
//     declared for the store Store last named, made once per store, and
//     the envelope's that Envelope set for the entry: an entry of a store
//     never declared has them empty. A document reading the kubelet's
//     fields refuses a path in no kubelet layout (PathError).
//   - An envelope (envelope.go) is unwrapped and its split lines joined
//     outside Extract, by an Unwrapper and a Joiner per store, which tally
//     and tgcheck drive alike: a joined entry is at its first part's
//     offset, and nothing of a split line is an entry until its last part.
//   - A JSON or logfmt field whose key the line lacks (or, in JSON, holds
//     null) is empty: no label value, not a number (sum adds 0, min and
//     max skip it), and no time (reason time). It is never guessed.
//   - One trailing '\r' (a CRLF log) is not part of any field, for every
//     format.
//   - The Apache request is cut into method, path and proto only for a
//     document that reads one of them; for the others (the built-in ones)
//     they are "-". The cut never refuses a line, so skipping it (a cost
//     measured in bench/README.md) changes nothing that is dropped.
//   - An Apache request that is not METHOD TARGET PROTO (Apache's "-" for
//     an absent request, "", an HTTP/0.9 "GET /", a TLS handshake sent to
//     the HTTP port) still counts under its status: the parts that cannot
//     be told are "-", Apache's word for an absent field.
//   - Every format but regex is parsed by hand, CLF time included, and
//     extraction allocates nothing per entry (a JSON or logfmt buffer grows
//     to the longest unescaped line, then is reused). A regex format
//     allocates its submatch indices per entry.
//   - A compiled LogFormat (format apache "…", format nginx '…') is a
//     prefix, then each field up to its literal: a field between '"'s up
//     to the first '"' no backslash escapes, an nginx upstream list up to
//     a space that is not inside ", " or " : ", any other up to the
//     literal's first byte. Status, size and numeric fields are checked as
//     the built-in formats check theirs.
//   - Entry.Number(i) is Number(Fields[i]), worked out at most once per
//     extraction (the Apache size as it is checked).
//   - A regex matches anywhere in the entry unless it is anchored with ^
//     and $; a named group that does not take part in the match is an
//     empty field.
package extract

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/timbertally/timbertally/lib/internal/doc"
)

// Entry is one extracted entry. Fields are indexed as Extractor.Field says
// and alias the line given to Extract (or a constant "-"): they are valid
// until the line's bytes change, and are read, never written.
type Entry struct {
	Time   int64 // Unix nanoseconds
	Fields [][]byte
	nums   []numCache // per field: its Number, once worked out for this entry
	gen    uint32     // the entry's extraction: a num of another gen is stale
}

// numCache is a field's Number, valid for the entry extraction gen.
type numCache struct {
	gen uint32
	ok  bool
	v   float64
}

// Number returns field i's Number. The Apache formats work out their
// size as they check it, so sum=bytes does not parse it a second time
// (figures: bench/README.md, "The figures behind the code's comments").
func (e *Entry) Number(i int) (float64, bool) {
	if i >= len(e.nums) {
		return number(e.Fields[i])
	}
	c := &e.nums[i]
	if c.gen != e.gen {
		c.v, c.ok = number(e.Fields[i])
		c.gen = e.gen
	}
	return c.v, c.ok
}

// known records field i's Number for the current extraction.
func (e *Entry) known(i int, v float64, ok bool) {
	e.nums[i] = numCache{gen: e.gen, ok: ok, v: v}
}

// reset sets field i to v, forgetting a Number recorded for its earlier
// value in this extraction (a JSON key given twice: the last one counts).
func (e *Entry) reset(i int, v []byte) {
	e.Fields[i] = v
	if i < len(e.nums) {
		e.nums[i].gen = e.gen - 1
	}
}

// Extractor extracts entries for one document. It is not safe for
// concurrent use (it reuses its buffers so that extraction allocates
// nothing per entry).
type Extractor struct {
	d         *doc.Doc
	names     []string       // field names, in Entry.Fields order
	re        *regexp.Regexp // Regex format: compiled once
	groups    []int          // Regex format: field i is submatch groups[i]
	timeField int            // index of the time field
	layout    layoutKind
	clf       clfDate     // layout clf: the last date read
	rfc       rfcDate     // layout rfc3339: the last date read
	request   bool        // an Apache format whose request parts a metric reads
	lf        *logFormat  // Apache, Nginx: the compiled format string
	keys      *keyNode    // JSON: the key paths read
	numeric   []int       // JSON, Logfmt: the own fields a metric adds or compares (tooLarge)
	lkeys     []logfmtKey // Logfmt: the keys read
	lkeyLens  uint64      // Logfmt: bit n set for a key read of n bytes (63: of 63 or more)
	scratch   []byte      // JSON, Logfmt: unescaped strings of this entry; squid: the squeezed line

	// The named formats and the common names (named.go, w3c.go).
	nf      *namedFormat // Named: the layout, its variants, headers
	aliases []alias      // the common names beyond the format's own fields
	w3      *w3cState    // W3CLog: the columns, by store

	origin *origin // the origin fields, by store (origin.go)
	st     int     // the store the next entries come from (Store)
}

// The reason words Extract gives for an entry it cannot extract.
const (
	ReasonFormat = "format" // the entry does not have the format's shape
	ReasonStatus = "status" // a status that is not three digits, 0 or -1 (isStatus)
	ReasonBytes  = "bytes"  // an Apache size that is not "-" or digits below 2^53
	ReasonTime   = "time"   // the time field does not parse in the layout
	ReasonNumber = "number" // a LogFormat numeric field that is not "-" or a number; a number too large to add exactly (2^53 or more) in any format
	// ReasonHeader (named.go) is no reason for a !drop: a header line is no entry.
)

// New makes an extractor for a document as Parse returns it.
func New(d *doc.Doc) (*Extractor, error) {
	x := &Extractor{d: d, names: d.Fields(), st: -1}
	if d.Format == doc.Regex {
		re, err := regexp.Compile(d.Regex)
		if err != nil {
			return nil, fmt.Errorf("extract: document %s: the regex does not compile: %v", d.Name, err)
		}
		x.re = re
		for i, n := range re.SubexpNames() {
			if n != "" {
				x.groups = append(x.groups, i)
			}
		}
	}
	if len(x.names) == 0 {
		return nil, fmt.Errorf("extract: document %s has no format with fields; parse it with doc.Parse", d.Name)
	}
	switch d.Format {
	case doc.Apache, doc.Nginx:
		x.lf = compileLogFormat(d.LogFormat)
	case doc.Named:
		x.nf = compileNamed(d.LogFormat, x.names)
		x.lf = x.nf.main
	case doc.W3CLog:
		x.w3 = newW3C(d.W3C, x.names[:x.ownFields()])
	case doc.JSON:
		x.keys = &keyNode{index: -1, field: -1}
		for i, n := range x.names[:x.ownFields()] {
			keys, err := doc.SplitKeyPath(d.KeyPath(n))
			if err != nil {
				return nil, fmt.Errorf("extract: document %s: field %s: %v", d.Name, n, err)
			}
			x.keys.addPath(keys, i)
		}
	case doc.Logfmt:
		for i, n := range x.names[:x.ownFields()] {
			keys, err := doc.SplitKeyPath(d.KeyPath(n))
			if err != nil {
				return nil, fmt.Errorf("extract: document %s: field %s: %v", d.Name, n, err)
			}
			key := strings.Join(keys, ".") // one logfmt key, a '.' in it as written
			x.lkeys = append(x.lkeys, logfmtKey{key: []byte(key), field: i})
			x.lkeyLens |= keyLenBit(len(key))
		}
	}
	for _, a := range d.Aliases() {
		al := alias{at: x.Field(a.Name), of: x.Field(a.Of), div: a.Div,
			used: d.Uses(a.Name) || d.TimeField == a.Name, buf: make([]byte, 0, 32)}
		for _, p := range a.Plus {
			al.plus = append(al.plus, x.Field(p))
		}
		x.aliases = append(x.aliases, al)
	}
	x.origin = newOrigin(d.Origins(), len(x.names)-len(d.Origins()))
	if d.Format == doc.JSON || d.Format == doc.Logfmt {
		for _, m := range d.Metrics {
			if i := x.Field(m.Field); m.Kind != doc.Count && i >= 0 && i < x.ownFields() && !slices.Contains(x.numeric, i) {
				x.numeric = append(x.numeric, i)
			}
		}
	}
	x.timeField = slices.Index(x.names, d.TimeField)
	if x.timeField < 0 {
		return nil, fmt.Errorf("extract: document %s: time field %q is not a field of its format", d.Name, d.TimeField)
	}
	x.layout = layoutOf(d.Layout)
	for _, f := range []string{"method", "path", "proto"} {
		x.request = x.request || d.Uses(f) || d.TimeField == f
	}
	return x, nil
}

// CutRequests makes the extractor cut every request into method, path
// and proto, whether the document reads them or not (tally --try
// --fields shows every field).
func (x *Extractor) CutRequests() {
	x.request = true
	for i := range x.aliases {
		x.aliases[i].used = true
	}
}

// ownFields is how many of the fields are the format's own, before the
// common names and the origin fields it offers beyond them.
func (x *Extractor) ownFields() int {
	return len(x.names) - len(x.d.Aliases()) - len(x.d.Origins())
}

// Field returns a field's index in Entry.Fields, or -1 when the format has
// no such field.
func (x *Extractor) Field(name string) int {
	return slices.Index(x.names, name)
}

// numFields returns the number of fields of an extracted entry.
func (x *Extractor) numFields() int {
	return len(x.names)
}

// Extract parses one entry (without its '\n'). It returns "" when the entry
// was extracted into e (Time and every field set; e.Fields is reused, sized
// numFields), else a reason word for a !drop (one of the Reason constants).
// It never panics and never allocates but for the regex format.
func (x *Extractor) Extract(line []byte, e *Entry) (reason string) {
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	if cap(e.Fields) < len(x.names) {
		e.Fields = make([][]byte, len(x.names))
	}
	if len(e.nums) < len(x.names) {
		e.nums = make([]numCache, len(x.names))
	}
	e.Fields = e.Fields[:len(x.names)]
	if e.gen++; e.gen == 0 { // wrapped: no num may look current
		clear(e.nums)
		e.gen = 1
	}
	switch x.d.Format {
	case doc.ApacheCombined:
		reason = apache(line, e, true, x.request)
	case doc.ApacheCommon:
		reason = apache(line, e, false, x.request)
	case doc.Apache, doc.Nginx:
		reason = x.logFormat(line, e)
	case doc.JSON:
		reason = cmp.Or(x.json(line, e), x.tooLarge(e))
	case doc.Logfmt:
		reason = cmp.Or(x.logfmt(line, e), x.tooLarge(e))
	case doc.Named:
		reason = x.named(line, e)
	case doc.W3CLog:
		reason = x.w3c(line, e)
	default:
		reason = x.regex(line, e.Fields)
	}
	if reason != "" {
		return reason
	}
	if len(x.aliases) != 0 {
		x.fillAliases(e)
	}
	x.origin.fill(e)
	t, ok := x.time(e.Fields[x.timeField])
	if !ok {
		return ReasonTime
	}
	e.Time = t
	return ""
}

// regex cuts line by the document's regex into its named groups.
func (x *Extractor) regex(line []byte, f [][]byte) string {
	m := x.re.FindSubmatchIndex(line)
	if m == nil {
		return ReasonFormat
	}
	for i, g := range x.groups {
		if s, end := m[2*g], m[2*g+1]; s >= 0 {
			f[i] = line[s:end]
		} else {
			f[i] = line[:0]
		}
	}
	return ""
}
