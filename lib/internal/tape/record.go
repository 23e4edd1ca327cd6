// Package tape formats, parses, writes and resolves the records of a tally
// store's tape (docs/design.md §5).
//
// The tape is append-only text, one record a line:
//
//	2026-10-10T13:55:30Z requests{status="200"} 431
//	seal 2026-10-10T13:55:30Z width=10s entries=443 at=web1:186350
//	!late 2026-10-10T13:55:20Z id=web1 offset=190210 end=190900 count=3
//	!drop id=web1 offset=200111 end=200300 count=1 reason=no-time
//	!cap 2026-10-10T13:55:30Z metric=requests id=web1 offset=190000 end=190210 count=17
//	end at=web1:98709338
//
// Invariants:
//   - Append and Parse are inverses: Parse(Append(r)) == r for every record
//     Append accepts, so a tape written by tally reads back exactly.
//   - A label value is arbitrary bytes; on the tape it is escaped as \\, \",
//     \n and \xHH for each byte that is not part of valid UTF-8, so no value
//     can end its quotes, its line or its record: a log line cannot forge a
//     tape record.
//   - Times are bucket starts, RFC 3339 in UTC.
//   - A line Parse refuses is damage, except one well formed as a record
//     of a kind a later version may add (a kind word, then key=value
//     words): its error wraps ErrUnknownKind. ParseOrLater, the one
//     classifier of every reader that passes such lines over (forward or
//     backward, ScanBack), returns it as a record of Kind Later instead, so
//     that all of them agree on what is a record, of which kind, and what
//     is damage.
package tape

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/timbertally/timbertally/lib/internal/civil"
	"github.com/timbertally/timbertally/lib/internal/textslab"
	"github.com/timbertally/timbertally/lib/protocol"
)

// Kind is the kind of a tape record.
type Kind uint8

// The record kinds of docs/design.md §5.
const (
	Series Kind = iota + 1 // a sealed bucket's value for one series
	Seal                   // closes a bucket's group
	Late                   // !late: entries for a sealed bucket
	Drop                   // !drop: entries that did not parse
	Cap                    // !cap: entries over the series cap of a metric
	End                    // input was complete up to these positions
	Later                  // a well-formed record of a kind a later version added (ParseOrLater)
)

// String returns the word that starts the record's line (or "series").
func (k Kind) String() string {
	switch k {
	case Series:
		return "series"
	case Seal:
		return "seal"
	case Late:
		return "!late"
	case Drop:
		return "!drop"
	case Cap:
		return "!cap"
	case End:
		return "end"
	case Later:
		return "later"
	}
	return "unknown"
}

// Label is one label of a series. Value holds the bytes as logged, unescaped.
type Label struct {
	Name, Value string
}

// Pos is one store's position in a seal's or an end's at= list.
type Pos struct {
	ID  string
	Pos int64
}

// Record is one tape line. Which fields are meaningful depends on Kind:
//
//	Series: Start, Metric, Labels, Value
//	Seal:   Start, Width, Entries, At
//	Late:   Start, ID, Offset, End, Count
//	Drop:   ID, Offset, End, Count, Reason
//	Cap:    Start, Metric, ID, Offset, End, Count
//	End:    At
//	Later:  nothing (the kind is one this version does not know)
type Record struct {
	Kind    Kind
	Start   int64 // bucket start, Unix nanoseconds
	Metric  string
	Labels  []Label // in the document's by= order
	Value   float64
	Width   time.Duration
	Entries int64
	At      []Pos
	ID      string
	Offset  int64
	End     int64
	Count   int64
	Reason  string
}

// Append appends r's line, with its '\n', to b.
func Append(b []byte, r *Record) []byte {
	switch r.Kind {
	case Series:
		b = AppendTime(b, r.Start)
		b = append(b, ' ')
		b = AppendSeries(b, r.Metric, r.Labels)
		b = append(b, ' ')
		b = AppendValue(b, r.Value)
	case Seal:
		b = append(b, "seal "...)
		b = AppendTime(b, r.Start)
		b = append(b, " width="...)
		b = AppendDuration(b, r.Width)
		b = protocol.AppendNum(b, " entries=", r.Entries)
		b = appendAt(b, r.At)
	case Late:
		b = append(b, "!late "...)
		b = AppendTime(b, r.Start)
		b = appendRange(b, r)
	case Drop:
		b = append(b, "!drop"...)
		b = appendRange(b, r)
		b = append(b, " reason="...)
		b = append(b, r.Reason...)
	case Cap:
		b = append(b, "!cap "...)
		b = AppendTime(b, r.Start)
		b = append(b, " metric="...)
		b = append(b, r.Metric...)
		b = appendRange(b, r)
	case End:
		b = append(b, "end"...)
		b = appendAt(b, r.At)
	default:
		panic(fmt.Sprintf("tape: Append of a record of kind %d", r.Kind))
	}
	return append(b, '\n')
}

func appendRange(b []byte, r *Record) []byte {
	b = append(b, " id="...)
	b = append(b, r.ID...)
	b = protocol.AppendNum(b, " offset=", r.Offset)
	b = protocol.AppendNum(b, " end=", r.End)
	return protocol.AppendNum(b, " count=", r.Count)
}

func appendAt(b []byte, at []Pos) []byte {
	if len(at) == 0 {
		return b
	}
	b = append(b, " at="...)
	for i, p := range at {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, p.ID...)
		b = append(b, ':')
		b = strconv.AppendInt(b, p.Pos, 10)
	}
	return b
}

// AppendTime appends a bucket start as RFC 3339 in UTC, with a fraction only
// when the start is not on a whole second.
func AppendTime(b []byte, ns int64) []byte {
	t := time.Unix(0, ns).UTC()
	if ns%int64(time.Second) == 0 {
		return t.AppendFormat(b, time.RFC3339)
	}
	return t.AppendFormat(b, time.RFC3339Nano)
}

// The span of times that Unix nanoseconds in an int64 can hold: outside it
// UnixNano is undefined, so a tape time there could not read back.
var (
	minTime = time.Unix(0, math.MinInt64)
	maxTime = time.Unix(0, math.MaxInt64)
)

// ParseTime parses an RFC 3339 time into Unix nanoseconds.
func ParseTime(s string) (int64, error) {
	if ns, ok := wholeSecondUTC(s); ok {
		return ns, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0, fmt.Errorf("%q is not an RFC 3339 time", s)
	}
	if t.Before(minTime) || t.After(maxTime) {
		return 0, fmt.Errorf("%q is outside the years 1678 to 2262 that a tape can hold", s)
	}
	return t.UnixNano(), nil
}

// wholeSecondUTC reads the time AppendTime writes for a whole second,
// YYYY-MM-DDTHH:MM:SSZ, of a year from 1970 to 2199, exactly as time.Parse
// does, without it: every series line of a tape starts with one, and
// time.Parse was a fifth of reading such a line. Anything else (a
// fraction, an offset, another year, a day the month has not) is false,
// for time.Parse to read or refuse.
func wholeSecondUTC(s string) (int64, bool) {
	if len(s) != 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[19] != 'Z' {
		return 0, false
	}
	year, ok1 := digits(s[0:4])
	month, ok2 := digits(s[5:7])
	day, ok3 := digits(s[8:10])
	hour, ok4 := digits(s[11:13])
	minute, ok5 := digits(s[14:16])
	sec, ok6 := digits(s[17:19])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || year < 1970 || year > 2199 ||
		month < 1 || month > 12 || day < 1 || day > int64(civil.DaysIn(int(month), int(year))) || hour > 23 || minute > 59 || sec > 59 {
		return 0, false
	}
	days := civil.DaysFromCivil(int(year), int(month), int(day))
	return (((days*24+hour)*60+minute)*60 + sec) * int64(time.Second), true
}

// AppendDuration appends d in the largest whole unit of h, m, s, ms, us, ns
// ("10s", "5m", "1h", "250ms"), which time.ParseDuration reads back.
func AppendDuration(b []byte, d time.Duration) []byte {
	units := []struct {
		d    time.Duration
		name string
	}{{time.Hour, "h"}, {time.Minute, "m"}, {time.Second, "s"}, {time.Millisecond, "ms"}, {time.Microsecond, "us"}}
	for _, u := range units {
		if d != 0 && d%u.d == 0 {
			b = strconv.AppendInt(b, int64(d/u.d), 10)
			return append(b, u.name...)
		}
	}
	b = strconv.AppendInt(b, int64(d), 10)
	return append(b, "ns"...)
}

// AppendValue appends v in its shortest exact decimal form, without exponent
// ("431", "0.25").
// Whole numbers below 2^53 (counts, byte sums: nearly every value) are
// formatted as integers, which strconv does ~3x faster and to the same
// digits; -0 keeps its sign through AppendFloat.
func AppendValue(b []byte, v float64) []byte {
	if v == math.Trunc(v) && math.Abs(v) < 1<<53 && (v != 0 || !math.Signbit(v)) {
		return strconv.AppendInt(b, int64(v), 10)
	}
	return strconv.AppendFloat(b, v, 'f', -1, 64)
}

// AppendSeries appends metric{name="value",...}, escaping each value, or
// the bare metric name when there are no labels.
func AppendSeries(b []byte, metric string, labels []Label) []byte {
	return AppendSeriesEscaped(b, metric, labels, AppendEscaped[string])
}

// AppendSeriesEscaped is AppendSeries with the label values escaped by
// escape instead (OpenMetrics has its own escapes).
func AppendSeriesEscaped(b []byte, metric string, labels []Label, escape func([]byte, string) []byte) []byte {
	b = append(b, metric...)
	if len(labels) == 0 {
		return b
	}
	b = append(b, '{')
	for i, l := range labels {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, l.Name...)
		b = append(b, '=', '"')
		b = escape(b, l.Value)
		b = append(b, '"')
	}
	return append(b, '}')
}

// plain holds the bytes a label value keeps as they are: ASCII but for \\, "
// and \n. One lookup a byte instead of four comparisons (by=path prints
// ~500 000 label values over 500 000 entries).
var plain = func() (t [256]bool) {
	for c := range utf8.RuneSelf {
		t[c] = c != '\\' && c != '"' && c != '\n'
	}
	return t
}()

// AppendEscaped appends v escaped for the tape: \\, \", \n, and \xHH for
// each byte that is not part of valid UTF-8.
// Runs of bytes that need no escape (nearly all of a label value) are
// appended whole rather than byte by byte.
func AppendEscaped[S ~string | ~[]byte](b []byte, v S) []byte {
	const hex = "0123456789abcdef"
	for i := 0; i < len(v); {
		j := i
		for j < len(v) && plain[v[j]] {
			j++
		}
		b = append(b, v[i:j]...)
		if i = j; i == len(v) {
			break
		}
		c := v[i]
		switch {
		case c == '\\':
			b = append(b, '\\', '\\')
		case c == '"':
			b = append(b, '\\', '"')
		case c == '\n':
			b = append(b, '\\', 'n')
		case c < utf8.RuneSelf:
			b = append(b, c)
		default:
			r, n := decodeRune(v[i:])
			if r == utf8.RuneError && n <= 1 {
				b = append(b, '\\', 'x', hex[c>>4], hex[c&15])
				i++
				continue
			}
			b = append(b, v[i:i+n]...)
			i += n
			continue
		}
		i++
	}
	return b
}

func decodeRune[S ~string | ~[]byte](v S) (rune, int) {
	switch s := any(v).(type) {
	case string:
		return utf8.DecodeRuneInString(s)
	case []byte:
		return utf8.DecodeRune(s)
	}
	return utf8.DecodeRuneInString(string(v))
}

// unescape reverses AppendEscaped.
func unescape(s string) (string, error) {
	if strings.IndexByte(s, '\\') < 0 {
		return s, nil
	}
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		if i+1 >= len(s) {
			return "", errors.New("a label value ends in a lone backslash")
		}
		i++
		switch s[i] {
		case '\\', '"':
			out = append(out, s[i])
		case 'n':
			out = append(out, '\n')
		case 'x':
			if i+3 > len(s) {
				return "", errors.New(`a label value ends inside a \x escape`)
			}
			v, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
			if err != nil {
				return "", fmt.Errorf(`\x%s is not a hex byte`, s[i+1:i+3])
			}
			out = append(out, byte(v))
			i += 2
		default:
			return "", fmt.Errorf(`\%c is not a tape escape`, s[i])
		}
	}
	return string(out), nil
}

// Parse parses one tape line, without its '\n'.
func Parse(line []byte) (Record, error) { return parseLine(line, string(line)) }

// parseLine parses line, whose text s is.
func parseLine(line []byte, s string) (Record, error) {
	r, err := parse(s)
	if err != nil {
		return Record{}, malformed(line, err)
	}
	return r, nil
}

// malformed is the error of a line that is no record, for why.
func malformed(line []byte, why error) error {
	return fmt.Errorf("malformed tape record %q: %w", clip(line), why)
}

// A Parser parses lines as ParseOrLater does, but a record's strings and
// label slice come from the parser's slabs instead of an allocation each
// (lib/internal/textslab): a reader that parses every line of a backlog
// (tgpush) allocates nothing once its slabs are made, and leaves the
// collector nothing to do.
//
// Series records (the bulk of a tape) take their strings and labels from
// slabs used again after RewindSeries: the caller calls it once every
// series record parsed before is dead (tgpush: when a read's records are
// written over by the next read's), or the slabs grow with everything it
// parsed. The other records' strings come from slabs never reused, which
// the collector frees with the last string held: a reader may keep a seal
// or a marker across reads.
type Parser struct {
	text   textslab.Slab  // the other records' strings
	series textslab.Arena // the series records' strings
	labels []Label        // the rest of the current chunk of labels
	chunks [][]Label      // the chunks of labels, used again after RewindSeries
	used   int            // chunks[:used] are taken
	last   lastTime       // the last series line's time: a group's lines share theirs
}

// lastTime is the last time a Parser read, its text a copy of its own
// (the line's, in a slab used again, can change under it).
type lastTime struct {
	text [maxTimeText]byte
	n    int
	ns   int64
}

// maxTimeText bounds the times lastTime keeps: RFC 3339 with nanoseconds
// and an offset is 35 bytes.
const maxTimeText = 40

// parse is ParseTime, the time the line before had read from l (when l
// is not nil) without parsing it again.
func (l *lastTime) parse(ts string) (int64, error) {
	if l == nil {
		return ParseTime(ts)
	}
	if l.n > 0 && ts == string(l.text[:l.n]) {
		return l.ns, nil
	}
	ns, err := ParseTime(ts)
	if err == nil && len(ts) <= maxTimeText {
		l.n, l.ns = copy(l.text[:], ts), ns
	}
	return ns, err
}

// labelChunk is how many labels a Parser's chunk holds; a chunk with
// fewer than labelRoom left (more than a document's by= labels and a
// histogram's le) is left for the next, so that a line's labels fit.
const (
	labelChunk = 1024
	labelRoom  = 16
)

// ParseInto is ParseOrLater, from the parser's slabs, into *r, which it overwrites whole: a series
// line, the bulk of a tape, is parsed in place (a Record is 160 bytes,
// copied once a call level otherwise).
func (p *Parser) ParseInto(r *Record, line []byte) error {
	if len(line) == 0 || line[0] < '0' || line[0] > '9' { // no series: no time first
		var err error
		*r, err = orLater(parseLine(line, p.text.String(line)))
		return err
	}
	if len(p.labels) < labelRoom {
		p.labels = p.nextChunk()
	}
	// A line that starts with a digit is a series line or damage (parse:
	// no kind word starts with one).
	s := p.series.String(line)
	ts, rest, _ := strings.Cut(s, " ")
	if err := parseSeriesInto(r, ts, rest, p.labels[:0:len(p.labels)], &p.last); err != nil {
		*r = Record{}
		return malformed(line, err)
	}
	if n := len(r.Labels); n > 0 {
		if &r.Labels[0] == &p.labels[0] { // not grown out of the chunk
			p.labels = p.labels[n:]
		}
		r.Labels = r.Labels[:n:n] // an append by the caller copies out
	}
	return nil
}

// nextChunk returns the next free chunk of labels.
func (p *Parser) nextChunk() []Label {
	if p.used == len(p.chunks) {
		p.chunks = append(p.chunks, make([]Label, labelChunk))
	}
	p.used++
	return p.chunks[p.used-1]
}

// maxKeptChunks bounds the label chunks kept across a RewindSeries.
const maxKeptChunks = 256

// RewindSeries makes the series slabs free again: every series record
// parsed before is dead.
func (p *Parser) RewindSeries() {
	p.series.Rewind()
	if len(p.chunks) > maxKeptChunks {
		p.chunks = nil
	}
	p.labels, p.used = nil, 0
}

// clipLen bounds how much of a malformed line an error quotes: a label
// value may be megabytes long.
const clipLen = 160

func clip(line []byte) string {
	if len(line) <= clipLen {
		return string(line)
	}
	return string(line[:clipLen]) + "..."
}

func parse(s string) (Record, error) {
	word, rest, more := strings.Cut(s, " ")
	switch word {
	case "seal":
		return parseSeal(rest)
	case "!late":
		return parseMarker(Late, rest, true, false)
	case "!cap":
		return parseMarker(Cap, rest, true, true)
	case "!drop":
		return parseMarker(Drop, rest, false, false)
	case "end":
		return parseEnd(rest, s == "end")
	}
	if laterKind(word, rest, more) {
		return Record{}, ErrUnknownKind
	}
	if word == "" || word[0] < '0' || word[0] > '9' {
		return Record{}, errNoRecord // no time: no series line either
	}
	return parseSeries(word, rest)
}

// errNoRecord is why a line that starts with neither a time nor a kind
// this version knows is damage: saying its first word is no time would
// hide why it is not a later kind's record.
var errNoRecord = errors.New("a tape line is a series (a time first), a seal, !late, !drop, !cap or end record, or a later kind's: a kind word ([!]?[a-z][a-z0-9_-]*) and then key=value words one space apart, keys [a-z][a-z0-9_]*, values printable ASCII without a space, and nothing else (no tab, CR or trailing space)")

func parseSeries(ts, rest string) (Record, error) {
	var r Record
	err := parseSeriesInto(&r, ts, rest, nil, nil)
	return r, err
}

// parseSeriesInto parses a series line's time ts and the rest into *r,
// which it overwrites whole: a reader of many lines parses each into its
// place in an array rather than copying a record up through the calls.
// A non-nil last reads a time the line before had without parsing it.
func parseSeriesInto(r *Record, ts, rest string, labels []Label, last *lastTime) error {
	*r = Record{Kind: Series}
	var err error
	if r.Start, err = last.parse(ts); err != nil {
		return err
	}
	sp := strings.LastIndexByte(rest, ' ')
	if sp < 0 {
		return errors.New("a series line is TIME SERIES VALUE")
	}
	if r.Value, err = parseValue(rest[sp+1:]); err != nil {
		return err
	}
	r.Metric, r.Labels, err = parseSeriesText(rest[:sp], labels)
	return err
}

// parseValue parses a finite decimal value.
func parseValue(s string) (float64, error) {
	if v, ok := smallWhole(s); ok {
		return v, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) || strings.ContainsAny(s, "xXpPiInN_") {
		return 0, fmt.Errorf("%q is not a finite decimal value", s)
	}
	return v, nil
}

// smallWhole reads the value AppendValue writes for a whole number of up
// to 15 digits without a sign (a count, a sum of bytes: nearly every
// value), exactly as strconv.ParseFloat does (below 2^53 every whole
// number is a float64), without its general path. Anything else is false.
func smallWhole(s string) (float64, bool) {
	if len(s) == 0 || len(s) > 15 {
		return 0, false
	}
	n, ok := digits(s)
	return float64(n), ok
}

// digits reads a string of ASCII digits (at most 18, or it overflows).
func digits(s string) (int64, bool) {
	var n int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// parseSeriesText parses metric{name="value",...} as AppendSeries writes
// it, its labels appended to labels.
func parseSeriesText(s string, labels []Label) (string, []Label, error) {
	brace := strings.IndexByte(s, '{')
	if brace < 0 {
		if !ValidMetric(s) {
			return "", nil, fmt.Errorf("%q is not a metric name", s)
		}
		return s, nil, nil
	}
	metric := s[:brace]
	if !ValidMetric(metric) {
		return "", nil, fmt.Errorf("%q is not a metric name", metric)
	}
	p := s[brace+1:]
	for {
		eq := strings.IndexByte(p, '=')
		if eq < 0 || len(p) < eq+2 || p[eq+1] != '"' {
			return "", nil, errors.New(`a label is name="value"`)
		}
		name := p[:eq]
		if !ValidLabel(name) {
			return "", nil, fmt.Errorf("%q is not a label name", name)
		}
		for _, l := range labels {
			if l.Name == name {
				return "", nil, fmt.Errorf("label %s appears twice", name)
			}
		}
		end, err := closingQuote(p, eq+2)
		if err != nil {
			return "", nil, err
		}
		val, err := unescape(p[eq+2 : end])
		if err != nil {
			return "", nil, err
		}
		labels = append(labels, Label{name, val})
		p = p[end+1:]
		switch {
		case p == "}":
			return metric, labels, nil
		case strings.HasPrefix(p, ","):
			p = p[1:]
		default:
			return "", nil, errors.New(`labels are separated by "," and closed by "}"`)
		}
	}
}

// closingQuote returns the index of the quote that ends the value starting
// at i, skipping escaped characters.
func closingQuote(s string, i int) (int, error) {
	for ; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i, nil
		}
	}
	return 0, errors.New("a label value is not closed")
}

// ValidMetric reports whether s is a Prometheus metric name.
func ValidMetric(s string) bool { return validName(s, true) }

// ValidLabel reports whether s is a Prometheus label name.
func ValidLabel(s string) bool { return validName(s, false) }

func validName(s string, colon bool) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || (colon && c == ':') || (i > 0 && c >= '0' && c <= '9')
		if !ok {
			return false
		}
	}
	return true
}

// kv splits key=value words as the protocol does (protocol.SplitWords)
// and wants exactly the keys given, in their order: the tape has one
// spelling for each record, so a reordered or extra key is a torn or
// forged line.
func kv(s string, keys ...string) (map[string]string, error) {
	var w protocol.Words
	if err := protocol.SplitWords(s, &w); err != nil {
		return nil, err
	}
	if err := w.Want(keys...); err != nil {
		return nil, err
	}
	out := make(map[string]string, len(keys))
	for i := range keys {
		k, v := w.At(i)
		out[k] = v
	}
	return out, nil
}

func parseSeal(rest string) (Record, error) {
	r := Record{Kind: Seal}
	ts, rest, _ := strings.Cut(rest, " ")
	var err error
	if r.Start, err = ParseTime(ts); err != nil {
		return r, err
	}
	keys := []string{"width", "entries", "at"}
	if strings.Count(rest, " ") == 1 {
		keys = keys[:2]
	}
	m, err := kv(rest, keys...)
	if err != nil {
		return r, err
	}
	if r.Width, err = time.ParseDuration(m["width"]); err != nil || r.Width <= 0 {
		return r, fmt.Errorf("width=%s is not a positive duration", m["width"])
	}
	if r.Entries, err = protocol.ParseNum("entries", m["entries"]); err != nil {
		return r, err
	}
	r.At, err = parseAt(m["at"], len(keys) == 3)
	return r, err
}

func parseEnd(rest string, bare bool) (Record, error) {
	r := Record{Kind: End}
	if bare {
		return r, nil
	}
	m, err := kv(rest, "at")
	if err != nil {
		return r, err
	}
	r.At, err = parseAt(m["at"], true)
	return r, err
}

func parseAt(s string, present bool) ([]Pos, error) {
	if !present {
		return nil, nil
	}
	var at []Pos
	for _, w := range strings.Split(s, ",") {
		id, p, ok := strings.Cut(w, ":")
		if !ok || !protocol.ValidID(id) {
			return nil, fmt.Errorf("at=%s is not id:pos,id:pos", s)
		}
		n, err := protocol.ParseNum("at", p)
		if err != nil {
			return nil, err
		}
		at = append(at, Pos{id, n})
	}
	return at, nil
}

func parseMarker(k Kind, rest string, timed, metric bool) (Record, error) {
	r := Record{Kind: k}
	var err error
	if timed {
		var ts string
		ts, rest, _ = strings.Cut(rest, " ")
		if r.Start, err = ParseTime(ts); err != nil {
			return r, err
		}
	}
	keys := []string{"id", "offset", "end", "count"}
	if metric {
		keys = append([]string{"metric"}, keys...)
	}
	if k == Drop {
		keys = append(keys, "reason")
	}
	m, err := kv(rest, keys...)
	if err != nil {
		return r, err
	}
	r.Metric, r.ID, r.Reason = m["metric"], m["id"], m["reason"]
	if metric && !ValidMetric(r.Metric) {
		return r, fmt.Errorf("metric=%s is not a metric name", r.Metric)
	}
	if !protocol.ValidID(r.ID) {
		return r, fmt.Errorf("id=%s is not [A-Za-z0-9._-]+", r.ID)
	}
	if k == Drop && !protocol.ValidWord(r.Reason) {
		return r, fmt.Errorf("reason=%q is not a word (printable, no space or =)", r.Reason)
	}
	if r.Offset, err = protocol.ParseNum("offset", m["offset"]); err != nil {
		return r, err
	}
	if r.End, err = protocol.ParseNum("end", m["end"]); err != nil {
		return r, err
	}
	if r.Count, err = protocol.ParseNum("count", m["count"]); err != nil {
		return r, err
	}
	if r.End <= r.Offset || r.Count == 0 || r.Count > r.End-r.Offset {
		return r, fmt.Errorf("offset=%d end=%d cannot hold count=%d entries", r.Offset, r.End, r.Count)
	}
	return r, nil
}
