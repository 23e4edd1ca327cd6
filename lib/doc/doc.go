// Package doc parses tally documents (SPEC §4): what to extract from each
// entry, how to bucket it by its own time, and which metrics to keep.
package doc

import "time"

// FormatKind says how an entry is cut into fields.
type FormatKind int

// The formats of SPEC §4.
const (
	ApacheCombined FormatKind = iota + 1 // host ident user time method path proto status bytes referer agent
	ApacheCommon                         // host ident user time method path proto status bytes
	Regex                                // RE2 with named groups, one field a group
)

// MetricKind is what a metric computes over a bucket's entries.
type MetricKind int

// The metric kinds of SPEC §4.
const (
	Count MetricKind = iota + 1
	Sum
	Min
	Max
)

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
// numbers, else a byte-wise comparison.
type Where struct {
	Field string
	Op    Op
	Value string
}

// Metric is one `metric` directive.
type Metric struct {
	Name  string
	Kind  MetricKind
	Field string   // Sum, Min, Max: the numeric field; "" for Count
	By    []string // label fields, in the order written
	Where *Where   // nil: every entry
	Line  int      // the directive's line number in the document
}

// Doc is a parsed document.
type Doc struct {
	Name      string // the built-in name, or the path it was loaded from
	Text      []byte // the document's source, frozen into a tally store
	Format    FormatKind
	Regex     string // Format == Regex: the RE2 source
	TimeField string // the field holding the entry's time ("time" for the built-in formats)
	Layout    string // clf, rfc3339, unix, unixms, or a Go layout
	Width     time.Duration
	Grace     time.Duration
	Cap       int // most series per metric per bucket
	Metrics   []Metric
}
