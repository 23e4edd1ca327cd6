package protocol

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzParseReport: no input panics, and a report that parses formats to a
// line that parses back to the same report.
func FuzzParseReport(f *testing.F) {
	for _, s := range []string{
		"progress id=web1 offset=5",
		"progress id=web1 offset=5 taken=9",
		"progress id=web1 offset=5 taken=9 window=786432",
		"progress id=web1 offset=5 window=-1",
		"progress id=a offset=9223372036854775807",
		"progress id=a offset=01",
		"progress id=a offset=5 offset=5",
		"garbage",
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		r, err := ParseReport(line)
		checkOutlivesItsLine(t, line, err, r.ID)
		if err != nil {
			return
		}
		if r.Taken < r.Offset || r.Offset < 0 || !ValidID(r.ID) {
			t.Fatalf("ParseReport(%q) = %+v breaks offset <= taken or the id syntax", line, r)
		}
		back := AppendReport(nil, r)
		if bytes.Count(back, []byte("\n")) != 1 {
			t.Fatalf("AppendReport(%+v) = %q is not one line", r, back)
		}
		again, err := ParseReport(back[:len(back)-1])
		if err != nil || again != r {
			t.Fatalf("%q parsed to %+v, formatted to %q, parsed back to %+v, %v", line, r, back, again, err)
		}
	})
}

// FuzzParseHeader: no input panics, and a header that parses formats to a
// line that parses back to the same header.
func FuzzParseHeader(f *testing.F) {
	for _, s := range []string{
		"feed v=1",
		"feed v=1 window=786432",
		"feed v=1 window=x",
		"store id=web1 offset=186350",
		"batch id=web1 offset=0 end=10 entries=2",
		"skip id=web1 offset=10 end=2000 reason=too-long",
		"idle id=web1 quiet=1500",
		"end id=web1",
		"rotate id=web1 generation=2",
		"batch id=a offset=0 end=2 entries=0",
		"feed v=1 cursor=/var/lib/feed/my%20cursor",
		"store id=web offset=0 spec=web=/var/log/a.log.1,/var/log/a%25.log",
		"store id=web offset=0 spec=%2",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		h, err := ParseHeader(line)
		checkOutlivesItsLine(t, line, err, h.V, h.ID, h.Reason, h.From, h.Cursor, h.Spec)
		if err != nil {
			return
		}
		var back []byte
		switch h.Kind {
		case KindUnknown:
			return
		case KindHello:
			if h.V != Version {
				return // another version: a consumer refuses it, feed never writes it
			}
			back = AppendHeader(nil, h)
		case KindStore:
			back = AppendHeader(nil, h)
		case KindBatch:
			back = AppendBatch(nil, h.ID, h.Offset, h.End, h.Entries)
		case KindSkip:
			back = AppendSkip(nil, h.ID, h.Offset, h.End, h.Reason)
		case KindIdle:
			back = AppendIdle(nil, h.ID, h.QuietMS)
		case KindEnd:
			back = AppendEnd(nil, h.ID)
		}
		again, err := ParseHeader(back[:len(back)-1])
		if err != nil || again != h {
			t.Fatalf("%q parsed to %+v, formatted to %q, parsed back to %+v, %v", line, h, back, again, err)
		}
	})
}

// checkOutlivesItsLine overwrites line, as a caller reusing its read buffer
// does with the next line, and fails if an error message or a string a
// parse returned changes with it: nothing parsed may alias its line. It
// restores line afterwards.
func checkOutlivesItsLine(t *testing.T, line []byte, err error, strs ...string) {
	t.Helper()
	orig := bytes.Clone(line)
	var msg string
	if err != nil {
		msg = strings.Clone(err.Error())
	}
	before := make([]string, len(strs))
	for i, s := range strs {
		before[i] = strings.Clone(s)
	}
	for i := range line {
		line[i] ^= 0xff
	}
	defer copy(line, orig)
	if err != nil && err.Error() != msg {
		t.Fatalf("the error for %q changed when its line was overwritten: %q, then %q", orig, msg, err.Error())
	}
	for i, s := range strs {
		if s != before[i] {
			t.Fatalf("a string parsed from %q changed when its line was overwritten: %q, then %q", orig, before[i], s)
		}
	}
}

func FuzzTextReadsBackAsWritten(f *testing.F) {
	for _, s := range []string{"", "/var/log/a b.log", "100%", "tab\there\nnewline", "é/ü", "%41"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v := string(AppendText(nil, s))
		if strings.ContainsAny(v, " \n\t\r") {
			t.Fatalf("AppendText(%q) = %q holds a byte a value cannot", s, v)
		}
		back, err := ParseText(v)
		if err != nil || back != s {
			t.Fatalf("AppendText(%q) = %q, read back as %q, %v", s, v, back, err)
		}
	})
}
