package doc

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// DefaultCap is the series cap per metric per bucket when a document has
// no cap directive.
const DefaultCap = 10000

// Error is a document error: where it is and what was expected there.
type Error struct {
	Name string // the document's name
	Line int    // 1-based
	Msg  string
}

func (e *Error) Error() string {
	return fmt.Sprintf("doc %s:%d: %s", e.Name, e.Line, e.Msg)
}

// parser holds a document being parsed: the Doc so far and where each
// once-only directive was seen (0: not yet).
type parser struct {
	d                                *Doc
	groups                           []string // Regex: the named groups
	formatLine, timeLine, windowLine int
	envelopeLine                     int
	capLine, lastLine, futureLine    int
}

// Parse parses a document's text; name says which document it is in
// errors and becomes Doc.Name.
func Parse(name string, text []byte) (*Doc, error) {
	p := &parser{d: &Doc{Name: name, Text: slices.Clone(text), Cap: DefaultCap}}
	lines := strings.Split(string(text), "\n")
	if len(lines) > 1 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1] // the final newline ends the last line; it starts none
	}
	for i, line := range lines {
		p.lastLine = i + 1
		if err := p.directive(i+1, strings.TrimSuffix(line, "\r")); err != nil {
			return nil, err
		}
	}
	if err := p.finish(); err != nil {
		return nil, err
	}
	return p.d, nil
}

func (p *parser) errorf(line int, format string, args ...any) error {
	return &Error{Name: p.d.Name, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// directive parses one line.
func (p *parser) directive(n int, line string) error {
	if re, ok := regexSource(line); ok {
		return p.regexFormat(n, re)
	}
	if ok, err := p.serverFormat(n, line); ok {
		return err
	}
	if ok, err := p.namedFormat(n, line); ok {
		return err
	}
	line = stripComment(line)
	words := strings.Fields(line)
	if len(words) == 0 {
		return nil
	}
	switch words[0] {
	case "format":
		return p.format(n, words)
	case "time":
		return p.time(n, line)
	case "window":
		return p.window(n, words)
	case "cap":
		return p.cap(n, words)
	case "future":
		return p.future(n, words)
	case "metric":
		return p.metric(n, words)
	case "envelope":
		return p.envelope(n, words)
	}
	return p.errorf(n, "unknown directive %q; want format, envelope, time, window, cap, future or metric", words[0])
}

// regexSource returns the RE2 of a "format regex RE2" line: everything
// after "regex" and the white space after it, verbatim (comments do not
// apply, so a '#' in the regex stays).
func regexSource(line string) (string, bool) {
	rest, ok := cutWord(strings.TrimLeft(line, " \t"), "format")
	if !ok {
		return "", false
	}
	rest, ok = cutWord(strings.TrimLeft(rest, " \t"), "regex")
	if !ok {
		return "", false
	}
	return strings.TrimLeft(rest, " \t"), true
}

// cutWord returns s after its first word when that word is w.
func cutWord(s, w string) (string, bool) {
	rest, ok := strings.CutPrefix(s, w)
	if !ok || (rest != "" && rest[0] != ' ' && rest[0] != '\t') {
		return "", false
	}
	return rest, true
}

// stripComment removes a comment: from a '#' at the start of the line or
// after white space to the end.
func stripComment(line string) string {
	for i := 0; i < len(line); i++ {
		if line[i] == '#' && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t') {
			return line[:i]
		}
	}
	return line
}

// once refuses a second directive of a kind that may appear once; *seen
// is the line of the first.
func (p *parser) once(n int, word string, seen *int) error {
	if *seen != 0 {
		return p.errorf(n, "a second %q directive (the first is on line %d); keep one", word, *seen)
	}
	*seen = n
	return nil
}

const formatWant = `"format" wants apache-combined, apache-common, apache "LOGFORMAT", nginx 'LOG_FORMAT', json, logfmt, regex RE2, or a named format (combined, vcombined, common, vcommon, w3c, cloudfront, cloudstorage, awselb, awsalb, awss3, squid, caddy, traefikclf, varnishncsa, haproxy httplog|httpslog|tcplog|'LOG-FORMAT', envoy ['FORMAT']), e.g. format apache-combined`

func (p *parser) format(n int, words []string) error {
	if err := p.once(n, "format", &p.formatLine); err != nil {
		return err
	}
	if len(words) > 2 && (words[1] == "json" || words[1] == "logfmt") {
		return p.keys(n, words)
	}
	if len(words) != 2 {
		return p.errorf(n, formatWant)
	}
	switch words[1] {
	case "apache-combined":
		p.d.Format = ApacheCombined
	case "apache-common":
		p.d.Format = ApacheCommon
	case "json":
		p.d.Format = JSON
	case "logfmt":
		p.d.Format = Logfmt
	default:
		return p.errorf(n, formatWant)
	}
	return nil
}

const keysWant = `names a field as NAME=KEYPATH, e.g. format json method=request.method ua=request.headers.User-Agent.0`

// keys parses "format json|logfmt NAME=PATH…": fields whose key path is not
// a label name (by= needs one) or that the document names otherwise.
func (p *parser) keys(n int, words []string) error {
	p.d.Format = JSON
	if words[1] == "logfmt" {
		p.d.Format = Logfmt
	}
	for _, w := range words[2:] {
		name, path, ok := strings.Cut(w, "=")
		if !ok || !isLabelName(name) || path == "" {
			return p.errorf(n, "format %s: %q is not NAME=KEYPATH with NAME a label name; format %s %s", words[1], w, words[1], keysWant)
		}
		if _, err := SplitKeyPath(path); err != nil {
			return p.errorf(n, "format %s: %s: %v; a key that holds a '.' is written with \\., e.g. host=hosts.hg\\.nginx\\.org", words[1], w, err)
		}
		if slices.ContainsFunc(p.d.Keys, func(k Key) bool { return k.Name == name }) {
			return p.errorf(n, "format %s: field %s is named twice; name it once", words[1], name)
		}
		p.d.Keys = append(p.d.Keys, Key{Name: name, Path: path})
	}
	return nil
}

func (p *parser) regexFormat(n int, src string) error {
	if err := p.once(n, "format", &p.formatLine); err != nil {
		return err
	}
	if src == "" {
		return p.errorf(n, `"format regex" wants an RE2 with named groups, e.g. format regex ^(?P<time>\S+) (?P<status>\d+)$`)
	}
	re, err := regexp.Compile(src)
	if err != nil {
		return p.errorf(n, "the regex does not compile: %v", err)
	}
	groups := namedGroups(re)
	if len(groups) == 0 {
		return p.errorf(n, "the regex has no named groups; name each field as (?P<name>...)")
	}
	for i, g := range groups {
		if slices.Contains(groups[:i], g) {
			return p.errorf(n, "the regex names group %q twice; give each field one group", g)
		}
	}
	p.d.Format, p.d.Regex, p.groups = Regex, src, groups
	return nil
}

const timeWant = `"time" wants FIELD layout=LAYOUT (clf, rfc3339, unix, unixms or a Go layout), e.g. time time layout=clf`

// time parses "time FIELD layout=LAYOUT"; the layout runs to the end of
// the line because a Go layout may contain spaces.
func (p *parser) time(n int, line string) error {
	if err := p.once(n, "time", &p.timeLine); err != nil {
		return err
	}
	body, _ := cutWord(strings.TrimLeft(line, " \t"), "time")
	i := strings.Index(body, "layout=")
	if i < 1 || (body[i-1] != ' ' && body[i-1] != '\t') {
		return p.errorf(n, timeWant)
	}
	field := strings.Fields(body[:i])
	layout := strings.TrimSpace(body[i+len("layout="):])
	if len(field) != 1 || layout == "" {
		return p.errorf(n, timeWant)
	}
	if err := checkLayout(layout); err != nil {
		return p.errorf(n, "%v; %s", err, timeWant)
	}
	p.d.TimeField, p.d.Layout = field[0], layout
	return nil
}

// layoutProbe is a time whose every element differs from Go's reference
// time (Mon Jan 2 15:04:05 MST 2006), so that a layout with any time
// element formats it into something other than the layout itself.
var layoutProbe = time.Date(2011, time.November, 13, 21, 32, 43, 0, time.UTC)

// checkLayout accepts a named layout or a Go layout that formats the
// reference time into something it parses back.
func checkLayout(layout string) error {
	switch layout {
	case LayoutCLF, LayoutRFC3339, LayoutUnix, LayoutUnixMs, LayoutUnixUs, LayoutW3C, LayoutCloudFront, LayoutHAProxy:
		return nil
	}
	s := layoutProbe.Format(layout)
	if s == layout {
		return fmt.Errorf("layout %q has no Go time elements (2006, 01, Jan, 02, 15, 04, 05, -0700)", layout)
	}
	if strings.Contains(layout, "MST") {
		// Go reads a zone name as UTC, or as the host's zone when it knows
		// the name: the same log would bucket differently on another host.
		return fmt.Errorf("layout %q reads a zone name (MST), which Go places by guess; use a numeric zone (-0700, Z07:00) or none (UTC)", layout)
	}
	t, err := time.Parse(layout, s)
	switch {
	case err != nil:
		return fmt.Errorf("layout %q cannot read back its own times", layout)
	case t.Year() != layoutProbe.Year():
		return fmt.Errorf("layout %q has no year (2006): its times could not be placed in a bucket (a year is never guessed)", layout)
	}
	return nil
}

const windowWant = `"window" wants DURATION [grace=DURATION], e.g. window 10s grace=30s`

func (p *parser) window(n int, words []string) error {
	if err := p.once(n, "window", &p.windowLine); err != nil {
		return err
	}
	if len(words) < 2 || len(words) > 3 {
		return p.errorf(n, windowWant)
	}
	width, err := time.ParseDuration(words[1])
	if err != nil || width <= 0 {
		return p.errorf(n, "window %q is not a duration above zero; %s", words[1], windowWant)
	}
	p.d.Width = width
	if len(words) == 3 {
		v, ok := strings.CutPrefix(words[2], "grace=")
		if !ok {
			return p.errorf(n, windowWant)
		}
		grace, err := time.ParseDuration(v)
		if err != nil || grace < 0 {
			return p.errorf(n, "grace %q is not a duration of zero or more; %s", v, windowWant)
		}
		p.d.Grace = grace
	}
	return nil
}

const capWant = `"cap" wants a number of series of 1 or more, e.g. cap 10000`

func (p *parser) cap(n int, words []string) error {
	if err := p.once(n, "cap", &p.capLine); err != nil {
		return err
	}
	if len(words) != 2 {
		return p.errorf(n, capWant)
	}
	c, err := strconv.Atoi(words[1])
	if err != nil || c < 1 || words[1][0] == '+' {
		return p.errorf(n, capWant)
	}
	p.d.Cap = c
	return nil
}

const futureWant = `"future" wants a duration above zero or none, e.g. future 24h`

// future sets how far ahead of the wall clock an entry's time may be.
func (p *parser) future(n int, words []string) error {
	if err := p.once(n, "future", &p.futureLine); err != nil {
		return err
	}
	if len(words) != 2 {
		return p.errorf(n, futureWant)
	}
	if words[1] == "none" {
		p.d.Future = 0
		return nil
	}
	d, err := time.ParseDuration(words[1])
	if err != nil || d <= 0 {
		return p.errorf(n, "future %q is not a duration above zero; %s", words[1], futureWant)
	}
	p.d.Future = d
	return nil
}

// finish checks what needs the whole document: the required directives,
// and that every field named exists in the format.
func (p *parser) finish() error {
	d, end := p.d, p.lastLine
	if d.Format == 0 {
		return p.errorf(end, "the document ends without a format; add one, e.g. format apache-combined")
	}
	if d.LogFormat != nil {
		d.Vocab = d.LogFormat.Vocab
	}
	if d.TimeField == "" {
		if err := p.defaultTime(); err != nil {
			return err
		}
	}
	if p.futureLine == 0 {
		d.Future = DefaultFuture
	}
	if d.Width == 0 {
		return p.errorf(end, "the document ends without a window; add one, e.g. window 10s grace=30s")
	}
	if len(d.Metrics) == 0 {
		return p.errorf(end, "the document ends without a metric; add one, e.g. metric requests count by=status")
	}
	fields := d.Fields()
	if !slices.Contains(fields, d.TimeField) {
		return p.errorf(p.timeLine, "time field %q is not a field of the format (%s)", d.TimeField, strings.Join(fields, " "))
	}
	for _, m := range d.Metrics {
		if err := p.checkFields(m, fields); err != nil {
			return err
		}
		if err := p.checkHistogram(m); err != nil {
			return err
		}
	}
	return nil
}

// defaultTime sets the time of a document without a time directive: the
// built-in formats' CLF time, a LogFormat's first time field; the other
// formats need the directive.
func (p *parser) defaultTime() error {
	d := p.d
	switch d.Format {
	case ApacheCombined, ApacheCommon:
		d.TimeField, d.Layout = "time", LayoutCLF
		return nil
	case Apache, Nginx, Named:
		for _, part := range d.LogFormat.Parts {
			if part.Kind == Stamp {
				d.TimeField, d.Layout = part.Field, part.Layout
				return nil
			}
		}
		return p.errorf(p.formatLine, "the format string has no time (%%t, $time_local, $time_iso8601 or $msec); log one, or add a time directive naming the field that holds it")
	case W3CLog:
		d.TimeField, d.Layout = "time", LayoutW3C
		if d.W3C.Sep == '\t' {
			d.Layout = LayoutCloudFront
		}
		return nil
	case JSON:
		return p.errorf(p.formatLine, `"format json" needs a time directive naming the key, e.g. time ts layout=unix`)
	case Logfmt:
		return p.errorf(p.formatLine, `"format logfmt" needs a time directive naming the key, e.g. time ts layout=rfc3339`)
	}
	return p.errorf(p.formatLine, `"format regex" needs a time directive naming a group, e.g. time ts layout=rfc3339`)
}

// checkFields refuses a metric that names a field the format lacks.
func (p *parser) checkFields(m Metric, fields []string) error {
	for _, f := range m.Fields() {
		if !slices.Contains(fields, f) {
			return p.errorf(m.Line, "metric %s names field %q, which the format does not have (%s)", m.Name, f, strings.Join(fields, " "))
		}
	}
	return nil
}
