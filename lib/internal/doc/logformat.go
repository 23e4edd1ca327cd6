package doc

import (
	"fmt"
	"strings"
)

// FieldKind says how a LogFormat field is checked and read.
type FieldKind int

// The field kinds of a compiled LogFormat.
const (
	Text     FieldKind = iota // any bytes (quoted ones keep the server's escapes)
	Status                    // a status (three digits, 0 or -1: extract.isStatus), else !drop reason=status
	Size                      // "-" or digits, else !drop reason=bytes
	Numeric                   // "-" or a number, else !drop reason=number
	List                      // nginx's upstream lists ("0.012, 0.003 : 0.1"): its number is the sum
	TextList                  // nginx's upstream lists of text ($upstream_addr "10.0.0.1:80, 10.0.0.2:80"): cut as a List, not checked
	Request                   // the request line: also method, path and proto
	Stamp                     // a time (its Layout says how it reads)
)

// Part is one field of a compiled LogFormat and the literal text that
// follows it ("" for the last field of a line that ends with it).
type Part struct {
	Field  string
	Kind   FieldKind
	Layout string // Stamp: how the field reads as a time
	Quoted bool   // between '"'s: the field ends at the first '"' not escaped by '\'
	Lit    string // the literal text after the field
	// Skip is how many times Lit's first byte occurs inside the field
	// itself (a CLF time ends a space-terminated field one space later).
	Skip int
	// Delimited: the literals around the field delimit it ({…}), so it
	// may be empty where a bare field is "-".
	Delimited bool
	// Addr: an address before ":" and a port (HAProxy's %ci:%cp, Apache's
	// %a:%{remote}p). It ends at the last ':' before the port's own end,
	// since an IPv6 address, which these servers write without brackets,
	// has colons of its own. A port is a number, never a ':', so no line
	// that read by the first ':' reads otherwise. (Not when a ':' ends the
	// port too: then the last ':' before the port's end is the address's.)
	Addr bool
}

// LogFormat is a server's log line layout: a literal prefix, then fields
// each followed by its literal text.
type LogFormat struct {
	Server string // "apache", "nginx", or the named format's ("haproxy", "envoy", "awsalb", …)
	Source string // the format string as the document gave it (unquoted)
	Prefix string
	Parts  []Part
	// What named formats (named.go) add; zero for Apache's and nginx's.
	Name    string  // how the format line named it ("awsalb", "haproxy httplog")
	Vocab   []Alias // the common names it offers (vocab.go)
	Header  string  // a line starting so is a header: no entry (w3c, cloudfront, cloudstorage)
	Squeeze bool    // a run of spaces is one space (squid pads its columns)
	Syslog  bool    // a syslog header (rsyslog's, RFC 3164 or 5424) may come before the line
	// Variants are other forms of the layout a line may have, tried in
	// order when the line does not have this one: an older, shorter form
	// (AWS adds fields at the end), HAProxy's without the captures a
	// frontend does not have. Their fields are some of this one's; a
	// line of a variant has the others "-".
	Variants []*LogFormat
}

// Fields returns the field names in line order; a Request part gives
// method, path and proto after its own name (Apache's %r has none: its
// fields are those of apache-combined).
func (l *LogFormat) Fields() []string {
	var names []string
	for _, p := range l.Parts {
		if p.Field != "" {
			names = append(names, p.Field)
		}
		if p.Kind == Request {
			names = append(names, "method", "path", "proto")
		}
	}
	return names
}

// name is how a message names a part.
func (p Part) name() string {
	if p.Field == "" && p.Kind == Request {
		return "request"
	}
	return p.Field
}

// The LogFormat strings of the servers' own nicknames, which a document may
// name instead of spelling them out.
var (
	apacheNicknames = map[string]string{
		"common":   `%h %l %u %t "%r" %>s %b`,
		"combined": `%h %l %u %t "%r" %>s %b "%{Referer}i" "%{User-Agent}i"`,
	}
	nginxNicknames = map[string]string{
		"combined": `$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent"`,
	}
)

// element is a field or a literal of a format string, before the two are
// paired into Parts.
type element struct {
	lit  string // a literal, when part.Field is ""
	part Part
}

// literalUpTo returns the literal text of a format string from i up to
// the next directive byte c (or the end), and where it ends.
func literalUpTo(src string, i int, c byte) (element, int) {
	j := strings.IndexByte(src[i:], c)
	if j < 0 {
		j = len(src) - i
	}
	return element{lit: src[i : i+j]}, i + j
}

// compileLogFormat pairs elements into a LogFormat: literals between
// fields are merged, and two fields with nothing between them, which no
// reader could tell apart, are refused.
func compileLogFormat(server, src string, elems []element) (*LogFormat, error) {
	l := &LogFormat{Server: server, Source: src}
	seen := map[string]bool{}
	var lit strings.Builder
	flush := func() {
		if len(l.Parts) == 0 {
			l.Prefix += lit.String()
		} else {
			l.Parts[len(l.Parts)-1].Lit += lit.String()
		}
		lit.Reset()
	}
	for _, e := range elems {
		if e.part.name() == "" {
			lit.WriteString(e.lit)
			continue
		}
		if n := len(l.Parts); n > 0 && lit.Len() == 0 {
			return nil, fmt.Errorf("fields %s and %s have nothing between them, so no reader can tell where one ends; put a space or other text between them", l.Parts[n-1].name(), e.part.name())
		}
		flush()
		for _, name := range append([]string{e.part.name()}, requestParts(e.part)...) {
			if seen[name] {
				return nil, fmt.Errorf("two directives give field %s; log it once", name)
			}
			seen[name] = true
		}
		l.Parts = append(l.Parts, e.part)
	}
	flush()
	if len(l.Parts) == 0 {
		return nil, fmt.Errorf("the format string has no fields; give the string your server's config has, e.g. %s", exampleFormat(server))
	}
	for i := range l.Parts {
		p := &l.Parts[i]
		before := l.Prefix
		if i > 0 {
			before = l.Parts[i-1].Lit
		}
		p.Quoted = strings.HasSuffix(before, `"`) && strings.HasPrefix(p.Lit, `"`)
		if p.Kind == Stamp && p.Lit != "" {
			p.Skip = strings.Count(stampSample(l.Server, p.Layout), p.Lit[:1])
		}
	}
	for i := 1; i < len(l.Parts); i++ {
		p, port := &l.Parts[i-1], l.Parts[i]
		// (A port followed by ':' too leaves the address's end to its
		// first ':': the last one before the port's end would be inside
		// the address.)
		p.Addr = p.Kind == Text && !p.Quoted && p.Lit == ":" && (port.Kind == Numeric || port.Kind == Size) && !port.Quoted &&
			!strings.HasPrefix(port.Lit, ":")
	}
	return l, nil
}

func requestParts(p Part) []string {
	if p.Kind == Request {
		return []string{"method", "path", "proto"}
	}
	return nil
}

func exampleFormat(server string) string {
	if server == "nginx" {
		return `format nginx '` + nginxNicknames["combined"] + ` $request_time'`
	}
	return `format apache "` + strings.ReplaceAll(apacheNicknames["combined"], `"`, `\"`) + ` %D"`
}

// stampSample is a time as a layout writes it on server, for counting
// the bytes such a field holds.
func stampSample(server, layout string) string {
	switch layout {
	case LayoutCLF:
		return "10/Oct/2000:13:55:36 -0700"
	case LayoutW3C:
		return "2000-10-10 13:55:36"
	case LayoutCloudFront:
		return "2000-10-10\t13:55:36"
	case LayoutHAProxy:
		return "10/Oct/2000:13:55:36.123"
	case LayoutRFC3339:
		return "2000-10-10T13:55:36-07:00"
	case LayoutUnix, LayoutUnixMs, LayoutUnixUs:
		if server == "apache" {
			// %{sec}t, %{msec}t and %{usec}t are whole units: in
			// "%{sec}t.%{msec_frac}t" the '.' is the literal's.
			return "1700000000"
		}
		return "1700000000.123" // nginx's $msec has its milliseconds
	}
	return layoutProbe.Format(layout)
}

// quotedStrings reads the format strings of a format line: one or more
// strings in double or single quotes (as the servers' config files write
// them, and nginx joins), a backslash escaping the next byte; \n and \t
// are a newline and a tab. A bare word alone is a server's nickname. So
// that a config line can be pasted as it is, a word before the strings
// (nginx's log_format name), one after them (Apache's LogFormat nickname)
// and a final ';' are left out.
func quotedStrings(s string, nicknames map[string]string) (string, error) {
	s = strings.TrimSpace(s)
	if v, ok := nicknames[s]; ok {
		return v, nil
	}
	if s == "" {
		return "", fmt.Errorf("the format string is missing")
	}
	if name, rest, ok := strings.Cut(s, " "); ok && !strings.ContainsAny(name, `"'`) {
		if rest = strings.TrimLeft(rest, " \t"); rest != "" && (rest[0] == '"' || rest[0] == '\'') {
			s = rest // log_format NAME '…'
		}
	}
	var out strings.Builder
	for {
		tail := strings.TrimSuffix(strings.TrimSpace(s), ";")
		if tail == "" {
			break
		}
		q := s[0]
		if q != '"' && q != '\'' {
			if out.Len() > 0 && !strings.ContainsAny(tail, " \t\"'") {
				break // LogFormat "…" NICKNAME
			}
			return "", fmt.Errorf("the format string must be quoted, starting at %q", s)
		}
		i := 1
		for ; i < len(s) && s[i] != q; i++ {
			if s[i] == '\\' && i+1 < len(s) {
				i++
				switch s[i] {
				case 'n':
					out.WriteByte('\n')
				case 't':
					out.WriteByte('\t')
				default:
					out.WriteByte(s[i])
				}
				continue
			}
			out.WriteByte(s[i])
		}
		if i == len(s) {
			return "", fmt.Errorf("the format string has no closing %c", q)
		}
		s = strings.TrimLeft(s[i+1:], " \t")
	}
	return out.String(), nil
}

// afterQuotes returns where a comment may start on a format line: past the
// last closing quote, so a '#' inside the string stays part of it.
func afterQuotes(line string) int {
	var q byte
	last := 0
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case q == 0 && (c == '"' || c == '\''):
			q = c
		case q != 0 && c == '\\':
			i++
		case q != 0 && c == q:
			q, last = 0, i+1
		}
	}
	return last
}
