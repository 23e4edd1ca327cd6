// Package protocol parses and formats the line protocol between feed and a
// consumer (docs/design.md §3).
//
// feed writes header lines (feed, store, batch, skip, idle, end) on the
// consumer's stdin, each batch header followed by its entries verbatim; the
// consumer answers with progress reports on its stdout.
//
// It owns the word syntax of every line the toolkit writes, the tape's
// seals and markers and the cursors included (words.go): SplitWords and
// SplitLine split it, ParseNum and AppendNum spell its numbers.
//
// Invariants:
//   - Every line is a kind word followed by key=value words separated by one
//     space; values contain no space and no newline.
//   - Numbers are unsigned decimal, fit in an int64, and have no sign and no
//     leading '+'; anything else is an error that quotes the line.
//   - A parser ignores keys it does not know (versions are additive within
//     v=1); a header line of a kind it does not know parses as KindUnknown so
//     that a consumer can skip it. A report parser refuses any line that is
//     not a progress report, because feed must stop on garbage.
//   - A repeated key is an error: a line must not be able to say two things.
package protocol

import (
	"cmp"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Version is the protocol version feed announces in its first line.
const Version = "1"

// Kind is the kind of a feed → consumer header line.
type Kind int

// The header kinds of docs/design.md §3. KindUnknown is a line of a kind this version
// does not know; a consumer ignores it.
const (
	KindUnknown Kind = iota
	KindHello        // feed v=1 [window=] [cursor=]
	KindStore        // store id= offset= [gen= sig= siglen=] [from=] [spec=]
	KindBatch        // batch id= offset= end= entries=
	KindSkip         // skip id= offset= end= reason=
	KindIdle         // idle id= quiet=
	KindEnd          // end id=
)

// Header is one parsed feed → consumer line (not an entry).
type Header struct {
	Kind    Kind
	V       string // KindHello: the protocol version
	ID      string // every kind but KindHello
	Offset  int64  // KindStore: resume position; KindBatch, KindSkip: first byte
	End     int64  // KindBatch, KindSkip: the byte after the last
	Entries int    // KindBatch: how many entry lines follow
	Reason  string // KindSkip: a word saying why the bytes are no entry
	QuietMS int64  // KindIdle: milliseconds since the store last delivered an entry
	Window  int64  // KindHello: the most bytes of a store's batches feed keeps in flight when asked; 0: one batch
	Gen     Gen    // KindStore: the generation holding the resume position, when given
	From    string // KindStore: where the resume position came from (FromCursor, ...), "" when not said
	Cursor  string // KindHello: the path of feed's cursor file (absolute), "" when not said (no --cursor, or an older feed)
	Spec    string // KindStore: how the store was named on feed's command line (ID=GEN1,…,PATH, paths absolute), "" when not said
}

// Gen is a store generation's identity on a store line: the position of its
// file's first byte and the CRC-32 (IEEE) of its first SigLen bytes (at
// most 256), so that a consumer can tell whether the content it is about to
// be sent at positions it already holds is the content it holds. Known is
// false when the line did not carry it (an older feed).
type Gen struct {
	Known  bool
	Base   int64
	Sig    uint32
	SigLen int
}

// Where a store line's resume position came from (from=): the cursor, or,
// for a store the cursor does not hold (or under --reset), the store's
// start or its end (feed --from end). Only a position from the cursor
// claims that the consumer accounts for everything before it.
const (
	FromCursor = "cursor"
	FromStart  = "start"
	FromEnd    = "end"
)

// Report is one consumer → feed progress line. Taken equals Offset when the
// consumer omitted it.
type Report struct {
	ID     string
	Offset int64 // durable: everything before it is reflected in durable state
	Taken  int64 // flow control: everything before it has been absorbed
	Window int64 // flow control: the bytes of batches beyond Taken the consumer asks feed to send ahead; 0: one batch (the park)
}

// MaxBatchEntries bounds the entries= of a batch header, so that a corrupt
// header cannot make a consumer allocate without limit.
const MaxBatchEntries = 1 << 24

// ValidID reports whether s is a store id: [A-Za-z0-9._-]+.
func ValidID(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
		if !ok {
			return false
		}
	}
	return true
}

// ValidWord reports whether s can be a reason word: non-empty, printable
// ASCII without space or '='.
func ValidWord(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' || s[i] == '=' {
			return false
		}
	}
	return true
}

// ParseHeader parses one feed → consumer line, without its '\n'.
func ParseHeader(line []byte) (Header, error) {
	var kv fields
	kind, err := split(line, &kv)
	if err != nil {
		return Header{}, fmt.Errorf("malformed line %q: %w", line, err)
	}
	var h Header
	switch kind {
	case "feed":
		h.Kind = KindHello
		h.V, err = kv.str("v")
		if err == nil {
			err = cmp.Or(kv.optNum("window", &h.Window), kv.text("cursor", &h.Cursor))
		}
	case "store":
		h.Kind = KindStore
		err = cmp.Or(kv.id(&h.ID), kv.num("offset", &h.Offset), kv.gen(&h.Gen), kv.opt("from", &h.From), kv.text("spec", &h.Spec))
	case "batch":
		h.Kind = KindBatch
		var n int64
		err = cmp.Or(kv.id(&h.ID), kv.num("offset", &h.Offset), kv.num("end", &h.End), kv.num("entries", &n))
		if err == nil {
			err = checkBatch(h.Offset, h.End, n)
		}
		h.Entries = int(n)
	case "skip":
		h.Kind = KindSkip
		err = cmp.Or(kv.id(&h.ID), kv.num("offset", &h.Offset), kv.num("end", &h.End), kv.word("reason", &h.Reason))
		if err == nil && h.End <= h.Offset {
			err = errors.New("end must be after offset")
		}
	case "idle":
		h.Kind = KindIdle
		err = cmp.Or(kv.id(&h.ID), kv.num("quiet", &h.QuietMS))
	case "end":
		h.Kind = KindEnd
		err = kv.id(&h.ID)
	default:
		h.Kind = KindUnknown
	}
	if err != nil {
		return Header{}, fmt.Errorf("malformed %s line %q: %w", kind, line, err)
	}
	return h, nil
}

// checkBatch holds the invariant a consumer relies on to read a batch: n
// entries of at least one byte ('\n') each fill exactly end-offset bytes.
func checkBatch(offset, end, n int64) error {
	switch {
	case n == 0:
		return errors.New("a batch holds at least one entry")
	case n > MaxBatchEntries:
		return fmt.Errorf("entries=%d is over the limit of %d", n, MaxBatchEntries)
	case end-offset < n:
		return fmt.Errorf("%d entries cannot fit in %d bytes", n, end-offset)
	}
	return nil
}

// ParseReport parses one consumer → feed line, without its '\n'.
func ParseReport(line []byte) (Report, error) {
	var kv fields
	kind, err := split(line, &kv)
	if err == nil && kind != "progress" {
		err = errors.New(`a report starts with "progress"`)
	}
	var r Report
	if err == nil {
		err = cmp.Or(kv.id(&r.ID), kv.num("offset", &r.Offset))
	}
	if err == nil {
		r.Taken = r.Offset
		err = cmp.Or(kv.optNum("taken", &r.Taken), kv.optNum("window", &r.Window))
	}
	if err == nil && r.Taken < r.Offset {
		err = fmt.Errorf("taken=%d is below offset=%d", r.Taken, r.Offset)
	}
	if err != nil {
		return Report{}, fmt.Errorf("malformed report %q: %w", line, err)
	}
	return r, nil
}

// AppendHello appends "feed v=1\n", with window= when window > 0.
func AppendHello(b []byte, window int64) []byte {
	return AppendHeader(b, Header{Kind: KindHello, Window: window})
}

// AppendStore appends a store line.
func AppendStore(b []byte, id string, offset int64) []byte {
	return AppendHeader(b, Header{Kind: KindStore, ID: id, Offset: offset})
}

// AppendStoreFrom appends a store line that also gives the generation
// holding the resume position and where that position came from.
func AppendStoreFrom(b []byte, id string, offset int64, g Gen, from string) []byte {
	return AppendHeader(b, Header{Kind: KindStore, ID: id, Offset: offset, Gen: g, From: from})
}

// AppendHeader appends the feed line (KindHello) or store line
// (KindStore) h, each optional word only when h has it: the lines with
// words a consumer may not know, whose every field ParseHeader reads back.
// Other kinds have their own appenders (AppendBatch, ...); it panics on
// them.
func AppendHeader(b []byte, h Header) []byte {
	switch h.Kind {
	case KindHello:
		b = append(b, "feed v="+Version...)
		if h.Window > 0 {
			b = AppendNum(b, " window=", h.Window)
		}
		b = appendText(b, " cursor=", h.Cursor)
	case KindStore:
		b = append(b, "store id="...)
		b = append(b, h.ID...)
		b = AppendNum(b, " offset=", h.Offset)
		if h.Gen.Known {
			b = AppendNum(b, " gen=", h.Gen.Base)
			b = append(b, " sig="...)
			b = fmt.Appendf(b, "%08x", h.Gen.Sig)
			b = AppendNum(b, " siglen=", int64(h.Gen.SigLen))
		}
		if h.From != "" {
			b = append(b, " from="...)
			b = append(b, h.From...)
		}
		b = appendText(b, " spec=", h.Spec)
	default:
		panic("protocol: AppendHeader of a line without optional words")
	}
	return append(b, '\n')
}

// appendText appends key (with its leading space and '=') and v as
// AppendText spells it, when v is not empty.
func appendText(b []byte, key, v string) []byte {
	if v == "" {
		return b
	}
	return AppendText(append(b, key...), v)
}

// AppendBatch appends a batch header; the caller appends the entries.
func AppendBatch(b []byte, id string, offset, end int64, entries int) []byte {
	b = append(b, "batch id="...)
	b = append(b, id...)
	b = AppendNum(b, " offset=", offset)
	b = AppendNum(b, " end=", end)
	b = AppendNum(b, " entries=", int64(entries))
	return append(b, '\n')
}

// AppendSkip appends a skip line.
func AppendSkip(b []byte, id string, offset, end int64, reason string) []byte {
	b = append(b, "skip id="...)
	b = append(b, id...)
	b = AppendNum(b, " offset=", offset)
	b = AppendNum(b, " end=", end)
	b = append(b, " reason="...)
	b = append(b, reason...)
	return append(b, '\n')
}

// AppendIdle appends an idle line.
func AppendIdle(b []byte, id string, quietMS int64) []byte {
	b = append(b, "idle id="...)
	b = append(b, id...)
	b = AppendNum(b, " quiet=", quietMS)
	return append(b, '\n')
}

// AppendEnd appends an end line.
func AppendEnd(b []byte, id string) []byte {
	b = append(b, "end id="...)
	b = append(b, id...)
	return append(b, '\n')
}

// AppendReport appends a progress line; taken= is written only when it
// differs from offset, so that the simplest consumer's line is the canonical
// one, and window= only when it asks for one.
func AppendReport(b []byte, r Report) []byte {
	b = append(b, "progress id="...)
	b = append(b, r.ID...)
	b = AppendNum(b, " offset=", r.Offset)
	if r.Taken != r.Offset {
		b = AppendNum(b, " taken=", r.Taken)
	}
	if r.Window > 0 {
		b = AppendNum(b, " window=", r.Window)
	}
	return append(b, '\n')
}

// str returns the value of k, copied out of the line (see split).
func (kv *fields) str(k string) (string, error) {
	v, err := kv.view(k)
	return strings.Clone(v), err
}

// view returns the value of k as it lies in the line: valid only while
// the line is.
func (kv *fields) view(k string) (string, error) {
	v, ok := kv.get(k)
	if !ok || v == "" {
		return "", fmt.Errorf("%s= is missing", k)
	}
	return v, nil
}

func (kv *fields) id(dst *string) error {
	v, err := kv.str("id")
	if err == nil && !ValidID(v) {
		err = fmt.Errorf("id=%q is not [A-Za-z0-9._-]+", v)
	}
	*dst = v
	return err
}

func (kv *fields) word(k string, dst *string) error {
	v, err := kv.str(k)
	if err == nil && !ValidWord(v) {
		err = fmt.Errorf("%s=%q is not a word", k, v)
	}
	*dst = v
	return err
}

// optNum parses key k as num does when the line has it, and leaves dst alone
// when it does not.
func (kv *fields) optNum(k string, dst *int64) error {
	if _, ok := kv.get(k); !ok {
		return nil
	}
	return kv.num(k, dst)
}

// opt reads the word at k when the line has it.
func (kv *fields) opt(k string, dst *string) error {
	if _, ok := kv.get(k); !ok {
		return nil
	}
	return kv.word(k, dst)
}

// text reads the value of k as ParseText spells it, when the line has it.
func (kv *fields) text(k string, dst *string) error {
	v, ok := kv.get(k)
	if !ok {
		return nil
	}
	t, err := ParseText(v)
	if err == nil && t == "" {
		err = errors.New("it is empty")
	}
	if err != nil {
		return fmt.Errorf("%s=%q: %w", k, v, err)
	}
	*dst = strings.Clone(t) // t may alias the line (see split)
	return nil
}

// gen reads a store line's generation: gen= sig= siglen=, all or none.
func (kv *fields) gen(g *Gen) error {
	_, a := kv.get("gen")
	_, b := kv.get("sig")
	_, c := kv.get("siglen")
	if !a && !b && !c {
		return nil
	}
	var n int64
	err := cmp.Or(kv.num("gen", &g.Base), kv.num("siglen", &n))
	if err == nil && n > 256 {
		err = fmt.Errorf("siglen=%d is over 256", n)
	}
	if err != nil {
		return err
	}
	v, err := kv.view("sig")
	if err != nil {
		return err
	}
	sig, perr := strconv.ParseUint(v, 16, 32)
	if perr != nil || len(v) != 8 {
		return fmt.Errorf("sig=%q is not 8 hex digits", v)
	}
	g.Known, g.Sig, g.SigLen = true, uint32(sig), int(n)
	return nil
}

// num reads the number of k (ParseNum).
func (kv *fields) num(k string, dst *int64) error {
	v, err := kv.view(k)
	if err != nil {
		return err
	}
	*dst, err = ParseNum(k, v)
	return err
}
