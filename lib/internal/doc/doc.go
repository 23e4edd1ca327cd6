// Package doc parses tally documents (docs/design.md §4): what to extract from each
// entry, how to bucket it by its own time, and which metrics to keep.
//
// A document is plain text, one directive a line:
//
//	format apache-combined|apache-common|regex RE2
//	format apache "LOGFORMAT"       Apache's LogFormat string, or a nickname (combined, common)
//	format nginx [escape=E] 'LOG_FORMAT'...   nginx's log_format strings, or combined
//	format json|logfmt [NAME=PATH...]         fields by key path; NAME=PATH names one
//	format NAME                     a named format (named.go): goaccess's (combined, w3c, awsalb, …), varnishncsa, caddy
//	format haproxy httplog|httpslog|tcplog|'LOG-FORMAT'  HAProxy's formats (haproxy.go)
//	format envoy ['FORMAT']         Envoy's default or a format string (envoy.go)
//	envelope cri|docker             each line is a container runtime's, around the format's (origin.go)
//	time FIELD layout=LAYOUT        clf, rfc3339, unix, unixms, unixus or a Go layout
//	window DURATION [grace=DURATION]
//	cap N
//	future DURATION|none            default 24h
//	metric NAME count|sum=F|min=F|max=F [by=F1,F2] [where=F<op>VALUE]
//	metric NAME histogram=F [buckets=B1,B2,...] [scale=K] [by=F1,F2] [where=F<op>VALUE]
//
// Comments: a '#' at the start of a line or after white space starts a
// comment that runs to the end of the line. The one exception is a
// "format regex" line: everything after "regex" and the white space that
// follows it is the RE2, verbatim to the end of the line, so a '#' (or a
// trailing space) in a regex stays part of it; on an apache or nginx
// format line a comment may start only after the last closing quote. A
// Go layout is everything
// after "layout=" to the end of the line (comment and surrounding white
// space removed), so it may contain spaces.
//
// Invariants of a Doc returned by Parse:
//   - Format is set; for Regex, Regex compiles and its named groups are
//     unique and are the fields.
//   - TimeField is a field of the format and Layout is valid (the built-in
//     formats default to "time" and "clf", an apache or nginx format to
//     its first time field; json and logfmt have no default).
//   - For Apache and Nginx, LogFormat is set: no two fields are adjacent
//     without a literal between them, and no field name repeats.
//   - A JSON or logfmt format has every field the document names; a line
//     that lacks one has it empty (extract says the rule).
//   - Width > 0, Grace >= 0, Cap >= 1 (default 10000).
//   - Future >= 0 (default DefaultFuture; 0 after "future none": no bound).
//   - There is at least one metric; metric names are Prometheus metric names
//     and unique; every by= name is a Prometheus label name and a field of
//     the format, at most once per metric; every sum=/min=/max= and where=
//     field is a field of the format.
//   - A histogram's Buckets are finite and strictly ascending (+Inf is
//     implied, never listed), its Scale is finite and above zero, its by=
//     has no label le (its bound), and no other metric is named as one of
//     its series (NAME_bucket, NAME_sum, NAME_count); buckets= and scale=
//     belong to histograms only.
//   - Fields lists the format's own fields, then the common names it
//     offers beyond them (vocab.go: time status bytes method path
//     duration), each an Alias of one of its own fields, then the origin
//     fields a metric reads that it has no field of its own for
//     (origin.go: store).
//   - Every error is a *Error naming the document, the line and what was
//     expected there.
package doc

import (
	"regexp"
	"slices"
	"strconv"
	"time"
)

// FormatKind says how an entry is cut into fields.
type FormatKind int

// The formats of docs/design.md §4.
const (
	ApacheCombined FormatKind = iota + 1 // host ident user time method path proto status bytes referer agent
	ApacheCommon                         // host ident user time method path proto status bytes
	Regex                                // RE2 with named groups, one field a group
	Apache                               // an Apache LogFormat string (Doc.LogFormat)
	Nginx                                // an nginx log_format string (Doc.LogFormat)
	JSON                                 // one JSON object a line, fields by key path
	Logfmt                               // key=value pairs, fields by key
	Named                                // a predefined or compiled server format (Doc.LogFormat; named.go)
	W3CLog                               // a W3C extended log: columns named by its #Fields header (Doc.W3C; w3c.go)
)

// MetricKind is what a metric computes over a bucket's entries.
type MetricKind int

// The metric kinds of docs/design.md §4.
const (
	Count MetricKind = iota + 1
	Sum
	Min
	Max
	Histogram // counts per upper bound (le), a sum and a count, as Prometheus's classic histogram
)

// metricKindWords spell the kinds, as a metric directive and tgread
// --kind do: MetricKind is their one owner.
var metricKindWords = [...]string{Count: "count", Sum: "sum", Min: "min", Max: "max", Histogram: "histogram"}

// String returns the kind's word ("count", "sum", …).
func (k MetricKind) String() string {
	if k > 0 && int(k) < len(metricKindWords) {
		return metricKindWords[k]
	}
	return "MetricKind(" + strconv.Itoa(int(k)) + ")"
}

// ParseMetricKind returns the kind a word names.
func ParseMetricKind(word string) (MetricKind, bool) {
	for k, w := range metricKindWords {
		if w != "" && w == word {
			return MetricKind(k), true
		}
	}
	return 0, false
}

// MetricKindWords lists the kinds' words, in order, for a message.
func MetricKindWords() []string { return slices.Clone(metricKindWords[1:]) }

// Op is a where= comparison.
type Op int

// The where= operators: =, !=, <, <=, >, >=.
const (
	Eq Op = iota + 1
	Ne
	Lt
	Le
	Gt
	Ge
)

// Where is a metric's filter: FIELD OP VALUE, numeric when both sides are
// numbers, byte-wise when neither is (extract.Condition says the rest).
type Where struct {
	Field string
	Op    Op
	Value string
}

// Metric is one `metric` directive.
type Metric struct {
	Name    string
	Kind    MetricKind
	Field   string    // Sum, Min, Max, Histogram: the numeric field; "" for Count
	By      []string  // label fields, in the order written
	Where   *Where    // nil: every entry
	Buckets []float64 // Histogram: the upper bounds, ascending, +Inf implied
	Scale   float64   // Histogram: what a value is multiplied by before it is observed (1: as logged)
	Line    int       // the directive's line number in the document
}

// Doc is a parsed document.
type Doc struct {
	Name           string // the built-in name, or the path it was loaded from
	Text           []byte // the document's source, frozen into a tally store
	Format         FormatKind
	Regex          string       // Format == Regex: the RE2 source
	LogFormat      *LogFormat   // Format == Apache or Nginx: the compiled format string
	Keys           []Key        // Format == JSON or Logfmt: fields named on the format line
	Preset         string       // Format == JSON: the named format that set Keys ("caddy"), else ""
	W3C            *W3C         // Format == W3CLog: its separator and default columns
	Vocab          []Alias      // the common names the format offers (vocab.go)
	Envelope       EnvelopeKind // the container runtime's line around each entry (origin.go); NoEnvelope: none
	EnvelopeStream string       // the one stream an envelope's lines are read from ("stdout", "stderr"); "": both
	TimeField      string       // the field holding the entry's time ("time" for the built-in formats)
	Layout         string       // clf, rfc3339, unix, unixms, or a Go layout
	Width          time.Duration
	Grace          time.Duration
	Cap            int           // most series per metric per bucket
	Future         time.Duration // an entry stamped more than this ahead of the wall clock is dropped; 0: no bound
	Metrics        []Metric
}

// DefaultFuture is how far ahead of the wall clock an entry's time may be
// when the document does not say: a day covers every time zone and a
// clock some hours wrong, and no log is written a day ahead.
const DefaultFuture = 24 * time.Hour

// ReasonFuture is the !drop reason of an entry stamped more than the
// document's future bound ahead of the wall clock. It is the one place the
// wall clock enters: everything else runs on the entries' own time, but one
// line stamped in 2206 would carry its store's event time there and make
// every later entry late, across restarts. No log is written that far
// ahead, so such a time is a broken clock or a broken line, not an event.
const ReasonFuture = "future"

// The named time layouts; any other Layout is a Go layout for time.Parse.
const (
	LayoutCLF     = "clf"     // 10/Oct/2000:13:55:36 -0700
	LayoutRFC3339 = "rfc3339" // 2000-10-10T20:55:36Z, optional fraction
	LayoutUnix    = "unix"    // seconds since the epoch, optional fraction
	LayoutUnixMs  = "unixms"  // milliseconds since the epoch, optional fraction
	LayoutUnixUs  = "unixus"  // integer microseconds since the epoch (Apache's %{usec}t)
	// The named formats' own (named.go), read by hand, in UTC: the logs
	// write UTC (W3C, CloudFront) or the host's local time without a zone
	// (HAProxy's %tr, which a host on UTC writes as UTC).
	LayoutW3C        = "w3c"        // 2000-10-10 20:55:36, optional fraction
	LayoutCloudFront = "cloudfront" // 2000-10-10<TAB>20:55:36
	LayoutHAProxy    = "haproxy"    // 10/Oct/2000:20:55:36.123, optional fraction
)

// Key names a JSON key path (a.b.c, an array index a segment of digits) or
// a logfmt key as a field: NAME=PATH on the format line.
type Key struct{ Name, Path string }

// KeyPath returns the key path a JSON or logfmt field reads: the one the
// format line gives it, else the field's own name.
func (d *Doc) KeyPath(name string) string {
	for _, k := range d.Keys {
		if k.Name == name {
			return k.Path
		}
	}
	return name
}

// apacheCommonFields are the fields of the Apache common log format, in
// the order they appear on the line.
var apacheCommonFields = []string{"host", "ident", "user", "time", "method", "path", "proto", "status", "bytes"}

// apacheCombinedFields adds the combined format's two quoted fields.
var apacheCombinedFields = append(append([]string(nil), apacheCommonFields...), "referer", "agent")

// Uses reports whether any metric reads the field name: as its value, a
// label or its where= condition. The time directive's field is read
// whatever the metrics; Uses does not count it (see TimeField).
func (d *Doc) Uses(name string) bool {
	for _, m := range d.Metrics {
		if slices.Contains(m.Fields(), name) {
			return true
		}
	}
	return false
}

// Fields returns the fields m reads: its labels, its value's field and its
// where= condition's.
func (m Metric) Fields() []string {
	named := slices.Clone(m.By)
	if m.Field != "" {
		named = append(named, m.Field)
	}
	if m.Where != nil {
		named = append(named, m.Where.Field)
	}
	return named
}

// Fields returns the names of the format's fields, in order: the fixed
// fields of the Apache formats, or the regex's named groups in the order
// they open. It returns nil for a Doc whose format is unset or whose
// regex does not compile (Parse never returns such a Doc).
func (d *Doc) Fields() []string {
	own := d.ownFields()
	all := slices.Clip(own)
	for _, a := range d.aliases(own) {
		all = append(all, a.Name)
	}
	return append(all, d.origins(own)...)
}

// ownFields are the format's own fields, without the common names.
func (d *Doc) ownFields() []string {
	switch d.Format {
	case ApacheCombined:
		return append([]string(nil), apacheCombinedFields...)
	case ApacheCommon:
		return append([]string(nil), apacheCommonFields...)
	case Apache, Nginx, Named:
		return d.LogFormat.Fields()
	case JSON, Logfmt:
		return d.keyFields()
	case W3CLog:
		return d.w3cFields()
	case Regex:
		re, err := regexp.Compile(d.Regex)
		if err != nil {
			return nil
		}
		return namedGroups(re)
	}
	return nil
}

// namedGroups returns a regexp's group names, unnamed groups left out.
func namedGroups(re *regexp.Regexp) []string {
	var names []string
	for _, n := range re.SubexpNames() {
		if n != "" {
			names = append(names, n)
		}
	}
	return names
}

// keyFields are a JSON or logfmt document's fields: those its format line
// names, then those its metrics and time directive read, each once. A key
// format has every field a document asks for; one a line lacks is empty.
func (d *Doc) keyFields() []string {
	var names []string
	add := func(n string) {
		if n != "" && !slices.Contains(names, n) && !d.isAlias(n) {
			names = append(names, n)
		}
	}
	for _, k := range d.Keys {
		add(k.Name)
	}
	for _, m := range d.Metrics {
		for _, f := range m.Fields() {
			if !d.isOrigin(f) {
				add(f)
			}
		}
	}
	if !d.isOrigin(d.TimeField) {
		add(d.TimeField)
	}
	return names
}

// FormatText says what the format expects of a line, for a message about
// lines that do not have it.
func (d *Doc) FormatText() string {
	switch d.Format {
	case ApacheCombined:
		return `apache-combined (host ident user [time] "request" status bytes "referer" "agent")`
	case ApacheCommon:
		return `apache-common (host ident user [time] "request" status bytes)`
	case Apache:
		return "apache " + strconv.Quote(d.LogFormat.Source)
	case Nginx:
		return "nginx '" + d.LogFormat.Source + "'"
	case JSON:
		if d.Preset != "" {
			return d.Preset + " (Caddy's JSON access log, one object a line)"
		}
		return "json (one JSON object a line)"
	case Logfmt:
		return "logfmt (key=value pairs)"
	case Named:
		return d.LogFormat.Name + " (" + d.LogFormat.Source + ")"
	case W3CLog:
		return d.W3C.Name + " (columns as its #Fields header names them)"
	}
	return "regex " + d.Regex
}
