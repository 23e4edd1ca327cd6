package extract

import (
	"bytes"
	"math"
	"strconv"
	"time"

	"github.com/timbertally/timbertally/lib/internal/civil"
	"github.com/timbertally/timbertally/lib/internal/doc"
)

// ReasonHeader is what Extract returns for a header line of a format that
// has them (w3c's and cloudfront's #-lines, cloudstorage's column names):
// not an entry, so neither a bucket's nor a !drop marker's. A caller
// accounts for it as nothing: the line's bytes are passed over, as the
// '\n' between two entries is.
const ReasonHeader = "header"

// namedFormat is a compiled named format (doc.Named): its layout, the
// variants a line may have instead, and what its lines may add.
type namedFormat struct {
	main     *logFormat
	variants []variant
	header   []byte  // a line starting so is a header
	last     int     // the variant the line before fitted, -1: the main form
	fast     fastCut // a default format's straight-line cutter, a method of its fields' indexes (haproxy.go, envoy.go, squid.go, awselb.go, traefik.go, quotedcsv.go), or nil
	squeeze  bool
	syslog   bool
}

// variant is another form of the layout: its cuts write to the main
// form's fields, and the fields it lacks are "-".
type variant struct {
	lf      *logFormat
	missing []int
	// open: the field the form ends with, when it is text up to the
	// line's end and not the layout's own last field (-1 else): an older,
	// shorter form's. It must hold no separator, or the line is a longer
	// form, not this one with a field full of the others. (A form that
	// ends as the layout does, HAProxy's without its captures, reads its
	// last field as the layout does.)
	open int
}

// alias is a common name for a field (doc.Alias): the field's bytes, or
// its number divided by div, formatted into buf.
type alias struct {
	at, of int
	plus   []int // fields added to of's number (doc.Alias.Plus)
	div    float64
	used   bool // a metric or the time reads it (or --try --fields shows it)
	buf    []byte
}

func compileNamed(l *doc.LogFormat, names []string) *namedFormat {
	nf := &namedFormat{main: compileLogFormat(l), squeeze: l.Squeeze, syslog: l.Syslog, last: -1}
	if l.Header != "" {
		nf.header = []byte(l.Header)
	}
	switch l.Name {
	case "haproxy httplog", "haproxy httpslog":
		nf.fast = haproxyIndexes(names, false).httpLog
	case "haproxy tcplog":
		nf.fast = haproxyIndexes(names, true).tcpLog
	case "squid":
		nf.fast = squidIndexes(names).cut
	case "awselb":
		if a := elbIndexes(l, nf.main); a != nil {
			nf.fast = a.cut
		}
	case "envoy":
		if l.Source == doc.EnvoyDefault {
			nf.fast = envoyIndexes(names).cut
		}
	case "traefikclf":
		if t := traefikIndexes(l, nf.main); t != nil {
			nf.fast = t.cut
		}
	case "cloudstorage":
		if q := quotedCSVOf(l, nf.main); q != nil {
			nf.fast = q.cut
		}
	}
	for _, vl := range l.Variants {
		lf := compileLogFormat(vl)
		lf.fast = nil // its field indexes are the variant's own; the cuts are remapped below
		own := vl.Fields()
		var has []bool = make([]bool, len(names))
		for i := range lf.cuts {
			c := &lf.cuts[i]
			if c.field >= 0 {
				c.field = indexOf(names, own[c.field])
				has[c.field] = true
			}
			if c.kind == doc.Request {
				c.req = indexOf(names, own[c.req])
				has[c.req], has[c.req+1], has[c.req+2] = true, true, true
			}
		}
		v := variant{lf: lf, open: -1}
		if last := vl.Parts[len(vl.Parts)-1]; last.Lit == "" && last.Kind == doc.Text && !last.Quoted && last.Field != l.Parts[len(l.Parts)-1].Field {
			v.open = lf.cuts[len(lf.cuts)-1].field
		}
		for i, n := range l.Fields() {
			if !has[i] {
				v.missing = append(v.missing, indexOf(names, n))
			}
		}
		nf.variants = append(nf.variants, v)
	}
	return nf
}

func indexOf(names []string, n string) int {
	for i, m := range names {
		if m == n {
			return i
		}
	}
	return -1
}

// named cuts a line of a named format: a header is no entry; a syslog
// header is passed over; a straight-line cut reads it if it can (squid's
// on the line as logged, its padding in place); squid's padding is
// squeezed; then the form the line before fitted, the layout, and each
// variant in turn. A line no form fits gets the main form's reason.
func (x *Extractor) named(line []byte, e *Entry) string {
	nf := x.nf
	if len(nf.header) != 0 && bytes.HasPrefix(line, nf.header) {
		return ReasonHeader
	}
	if nf.syslog {
		line = afterSpaces(afterSyslog(line))
	}
	if nf.fast != nil {
		if nf.fast(x, line, e) {
			return ""
		}
		if e.gen++; e.gen == 0 { // what the fast cut read is not the compiled cutter's
			clear(e.nums)
			e.gen = 1
		}
	}
	if nf.squeeze { // after the fast cut: squid's reads the padding in place, without this copy
		line = x.squeeze(line)
	}
	if nf.last >= 0 && x.form(line, e, nf.last) { // the form of the line before: a log keeps to one
		return ""
	}
	reason := x.logFormat(line, e)
	if reason == "" || len(nf.variants) == 0 {
		nf.last = -1
		return reason
	}
	for i := range nf.variants {
		if i != nf.last && x.form(line, e, i) {
			nf.last = i
			return ""
		}
	}
	return reason
}

// form cuts line as variant i, and reports whether it fits.
func (x *Extractor) form(line []byte, e *Entry, i int) bool {
	v := &x.nf.variants[i]
	if e.gen++; e.gen == 0 { // another form's numbers are not this one's
		clear(e.nums)
		e.gen = 1
	}
	x.lf = v.lf
	r := x.logFormat(line, e)
	x.lf = x.nf.main
	if r != "" || v.open >= 0 && bytes.ContainsAny(e.Fields[v.open], " \t") {
		return false
	}
	for _, k := range v.missing {
		e.reset(k, dash)
	}
	return true
}

// squeeze copies line into the scratch buffer with each run of spaces
// as one space (squid pads its elapsed-time column).
func (x *Extractor) squeeze(line []byte) []byte {
	if !bytes.Contains(line, []byte("  ")) {
		return line
	}
	x.scratch = x.scratch[:0]
	for i, c := range line {
		if c == ' ' && i > 0 && line[i-1] == ' ' {
			continue
		}
		x.scratch = append(x.scratch, c)
	}
	return x.scratch
}

// afterSyslog returns line after the syslog header written before a
// message, or line as it is when it has none:
//
//	[<PRI>]Mmm dd hh:mm:ss[.frac] [HOST ]TAG: (RFC 3164: rsyslog's traditional file format; HAProxy's local and rfc3164 formats; syslog-ng's with frac-digits, journalctl's short-precise)
//	[<PRI>]yyyy-mm-ddThh:mm:ss[.frac]zone [HOST ]TAG: (RFC 3339: rsyslog's RSYSLOG_FileFormat)
//	[<PRI>]TIME (either time and no TAG: HAProxy's timed and iso formats, rsyslog's %timegenerated%%msg% template)
//	<PRI>1 TIME HOST APP PROCID MSGID SD (RFC 5424: HAProxy's rfc5424 format, rsyslog's RSYSLOG_SyslogProtocol23Format)
//	[<PRI>]name[pid]: (a TAG alone, without a time)
//	<PRI> (alone: HAProxy's priority and short formats)
//
// TAG has no space and ends in ": "; HOST ends in neither. A line without
// a header is left for the format to judge: an access log line starts
// with an address, whose ':' is never followed by a space.
func afterSyslog(line []byte) []byte {
	b := afterPri(line)
	if len(b) < len(line) && len(b) > 2 && b[0] == '1' && b[1] == ' ' { // RFC 5424's VERSION, after a <PRI> only
		if rest, ok := after5424(b[2:]); ok {
			return rest
		}
	}
	b, ok := afterTime(b)
	if !ok {
		if rest, ok := afterPidTag(b); ok {
			return rest
		}
		return b // the <PRI> alone, or no header
	}
	sp := indexByte(b, ' ')
	if sp >= 2 && b[sp-1] == ':' { // a TAG, no HOST
		return b[sp+1:]
	}
	if sp > 0 {
		if rest, ok := afterTag(b[sp+1:]); ok { // after the HOST
			return rest
		}
	}
	return b // the time alone: HAProxy's timed and iso formats write no HOST or TAG
}

// afterSpaces returns b after the spaces at its start. rsyslog's msg
// property keeps the space that followed an RFC 3164 TAG (its templates
// have sp-if-no-1st-sp for it), so a template of "%msg%\n" writes a line
// starting with a space, and RSYSLOG_SyslogProtocol23Format ("... %STRUCTURED-DATA% %msg%")
// two spaces after its header; HAProxy's manual reads a line's fields
// as delimited by any number of spaces.
func afterSpaces(b []byte) []byte {
	for len(b) > 0 && b[0] == ' ' {
		b = b[1:]
	}
	return b
}

// afterPri returns b after a <PRI> at its start: 1 to 3 digits in angle
// brackets (a '<' without them is a TAG's, or the message's).
func afterPri(b []byte) []byte {
	if len(b) < 3 || b[0] != '<' {
		return b
	}
	i := 1
	for i < len(b) && i < 4 && isDigit(b[i]) {
		i++
	}
	if i > 1 && i < len(b) && b[i] == '>' {
		return b[i+1:]
	}
	return b
}

// afterTime returns b after a syslog time at its start and the space
// after it: RFC 3164's Mmm dd hh:mm:ss, which syslog-ng (frac-digits) and
// journalctl (short-precise) write with a fraction, or any word starting
// yyyy-mm-ddT (RFC 3339, a fraction and a zone or not).
func afterTime(b []byte) ([]byte, bool) {
	switch {
	case len(b) > 16 && monthOf(b[0], b[1], b[2]) != 0 && b[3] == ' ' && (b[4] == ' ' || isDigit(b[4])) && isDigit(b[5]) &&
		b[6] == ' ' && digits(b[7:9]) && b[9] == ':' && digits(b[10:12]) && b[12] == ':' && digits(b[13:15]):
		i := 15
		if b[i] == '.' {
			for i++; i < len(b) && isDigit(b[i]); i++ {
			}
			if i == 16 {
				return b, false
			}
		}
		if i < len(b)-1 && b[i] == ' ' {
			return b[i+1:], true
		}
	case len(b) > 20 && digits(b[0:4]) && b[4] == '-' && digits(b[5:7]) && b[7] == '-' && digits(b[8:10]) && b[10] == 'T':
		if sp := indexByte(b, ' '); sp > 0 {
			return b[sp+1:], true
		}
	}
	return b, false
}

// after5424 returns b, an RFC 5424 header after its VERSION, after the
// rest of the header and the space before the MSG: TIMESTAMP HOSTNAME
// APP-NAME PROCID MSGID, each a word ("-" when absent), then
// STRUCTURED-DATA, "-" or [elements], whose quoted values may hold
// spaces and escaped quotes (HAProxy's log-format-sd writes them).
func after5424(b []byte) ([]byte, bool) {
	for range 5 {
		sp := indexByte(b, ' ')
		if sp <= 0 {
			return nil, false
		}
		b = b[sp+1:]
	}
	if len(b) == 0 || b[0] != '-' && b[0] != '[' {
		return nil, false
	}
	n := 1 // "-"
	if b[0] == '[' {
		for n = 0; n < len(b) && b[n] == '['; {
			end := sdElementEnd(b[n:])
			if end < 0 {
				return nil, false
			}
			n += end
		}
	}
	if n >= len(b) || b[n] != ' ' {
		return nil, false
	}
	return b[n+1:], true
}

// sdElementEnd returns the length of the [SD-ELEMENT] at b's start: up to
// the first ']' outside a quoted value, where a '\' escapes the byte
// after it; -1 when it does not end.
func sdElementEnd(b []byte) int {
	quoted := false
	for i := 1; i < len(b); i++ {
		switch c := b[i]; {
		case quoted && c == '\\':
			i++
		case c == '"':
			quoted = !quoted
		case !quoted && c == ']':
			return i + 1
		}
	}
	return -1
}

// afterTag returns b after a syslog TAG and its ": " at its start: bytes
// without a space, the first ':' followed by a space (so the byte before
// b's first space).
func afterTag(b []byte) ([]byte, bool) {
	sp := indexByte(b, ' ')
	if sp < 2 || b[sp-1] != ':' {
		return nil, false
	}
	return b[sp+1:], true
}

// afterPidTag returns b after a TAG of the form name[pid]: and its space,
// the only TAG taken without a time before it: an access log's own first
// word (an address and port) never has that shape.
func afterPidTag(b []byte) ([]byte, bool) {
	rest, ok := afterTag(b)
	if !ok {
		return nil, false
	}
	tag := b[:len(b)-len(rest)-2]
	open := bytes.IndexByte(tag, '[')
	if open <= 0 || bytes.IndexByte(tag[:open], ':') >= 0 || tag[len(tag)-1] != ']' || !digits(tag[open+1:len(tag)-1]) || open+1 == len(tag)-1 {
		return nil, false
	}
	return rest, true
}

// digits reports whether b is all ASCII digits.
func digits(b []byte) bool {
	for _, c := range b {
		if !isDigit(c) {
			return false
		}
	}
	return true
}

// fillAliases sets the common names the document reads from their
// fields: the same bytes, or a duration's number in seconds.
func (x *Extractor) fillAliases(e *Entry) {
	for i := range x.aliases {
		a := &x.aliases[i]
		switch {
		case !a.used:
			e.reset(a.at, dash)
		case len(a.plus) > 0:
			a.sum(e)
		case a.div == 0 || a.div == 1:
			e.reset(a.at, e.Fields[a.of])
		default:
			v, ok := e.Number(a.of)
			if !ok {
				e.reset(a.at, e.Fields[a.of])
				continue
			}
			v /= a.div
			a.buf = strconv.AppendFloat(a.buf[:0], v, 'f', -1, 64)
			e.Fields[a.at] = a.buf
			e.known(a.at, v, true)
		}
	}
}

// sum sets a's field to the sum of its fields' numbers, or to "-" when
// one is not a number or is negative (doc.Alias.Plus). The sum is the
// decimals' exact sum, rounded once: the float sum rounded to the most
// fraction digits a part has (AWS's 0.1 + 0.2 is 0.3, as the log means,
// not 0.30000000000000004, which a histogram bound of 0.3 would miss).
func (a *alias) sum(e *Entry) {
	v, ok := e.Number(a.of)
	digits := fractionDigits(e.Fields[a.of])
	for _, p := range a.plus {
		w, wok := e.Number(p)
		v, ok = v+w, ok && wok && w >= 0
		digits = max(digits, fractionDigits(e.Fields[p]))
	}
	if !ok || v < 0 {
		e.reset(a.at, dash)
		return
	}
	if scale := math.Pow10(min(digits, 9)); v*scale < 1<<53 {
		v = math.Round(v*scale) / scale
	}
	if a.div != 0 && a.div != 1 {
		v /= a.div
	}
	a.buf = strconv.AppendFloat(a.buf[:0], v, 'f', -1, 64)
	e.Fields[a.at] = a.buf
	e.known(a.at, v, true)
}

// fractionDigits is how many digits follow the '.' of a decimal's text.
func fractionDigits(b []byte) int {
	if i := bytes.IndexByte(b, '.'); i >= 0 {
		return len(b) - i - 1
	}
	return 0
}

// parseDateTime reads yyyy-mm-dd<sep>hh:mm:ss[.fraction] in UTC (W3C's
// and CloudFront's date and time columns, sep ' ' or '\t').
func (c *rfcDate) parseDateTime(b []byte, sep byte) (int64, bool) {
	if len(b) < 19 || b[4] != '-' || b[7] != '-' || b[10] != sep || b[13] != ':' || b[16] != ':' {
		return 0, false
	}
	if !c.set || string(b[:10]) != string(c.date[:]) {
		year, month, day := num(b[0:4]), num(b[5:7]), num(b[8:10])
		if year < 0 || month < 1 || month > 12 || day < 1 || day > civil.DaysIn(month, year) {
			return 0, false
		}
		copy(c.date[:], b[:10])
		c.secs, c.set = civil.DaysFromCivil(year, month, day)*86400, true
	}
	return clock(c.secs, b[11:])
}

// parseHAProxy reads HAProxy's dd/Mon/yyyy:hh:mm:ss[.fraction] (%t, %tr:
// the host's local time, without a zone), in UTC.
//
// The last second read is remembered (many lines a second): a time of
// the same second and three fraction digits adds its milliseconds to it.
// lastNS is then that second's, not the whole time's as parseCLF keeps.
func (c *clfDate) parseHAProxy(b []byte) (int64, bool) {
	if len(b) == 24 && c.hit && string(b[:21]) == string(c.last[:21]) {
		if ms := num(b[21:24]); ms >= 0 {
			return c.lastNS + int64(ms)*int64(time.Millisecond), true
		}
	}
	ns, ok := c.haproxy(b)
	if c.hit = ok && len(b) == 24 && b[20] == '.'; c.hit {
		copy(c.last[:], b)
		c.lastNS = ns - int64(num(b[21:24]))*int64(time.Millisecond)
	}
	return ns, ok
}

// haproxy is parseHAProxy without the last time's shortcut.
func (c *clfDate) haproxy(b []byte) (int64, bool) {
	if len(b) < 20 || b[11] != ':' {
		return 0, false
	}
	if !c.set || string(b[:11]) != string(c.date[:]) {
		secs, ok := dateSecs(b[:11])
		if !ok {
			return 0, false
		}
		copy(c.date[:], b[:11])
		c.secs, c.set = secs, true
	}
	return clock(c.secs, b[12:])
}

// clock reads hh:mm:ss[.fraction] after a date's midnight, secs.
func clock(secs int64, b []byte) (int64, bool) {
	if len(b) < 8 || b[2] != ':' || b[5] != ':' {
		return 0, false
	}
	hour, minute, sec := num(b[0:2]), num(b[3:5]), num(b[6:8])
	if hour < 0 || hour > 23 || minute < 0 || minute > 59 || sec < 0 || sec > 59 {
		return 0, false
	}
	var frac int64
	if len(b) > 8 {
		if b[8] != '.' || len(b) == 9 {
			return 0, false
		}
		read := 0
		for _, d := range b[9:] {
			if !isDigit(d) {
				return 0, false
			}
			if read < 9 {
				frac = frac*10 + int64(d-'0')
				read++
			}
		}
		for ; read < 9; read++ {
			frac *= 10
		}
	}
	s := secs + int64(hour*3600+minute*60+sec)
	if s < minSec || s >= maxSec-1 {
		return 0, false
	}
	return s*int64(time.Second) + frac, true
}
