package extract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/timbertally/timbertally/lib/internal/doc"
)

// slowCRI reads a CRI line by its definition, with the standard library:
// TIME STREAM TAG[ LOG], TAG's first ':'-separated element P or F.
func slowCRI(line []byte) (Part, bool) {
	line = bytes.TrimSuffix(line, []byte("\r"))
	w := bytes.SplitN(line, []byte(" "), 4)
	if len(w) < 3 || len(w[0]) == 0 || (string(w[1]) != "stdout" && string(w[1]) != "stderr") {
		return Part{}, false
	}
	tag, _, _ := bytes.Cut(w[2], []byte(":"))
	if string(tag) != "P" && string(tag) != "F" {
		return Part{}, false
	}
	p := Part{Time: w[0], Stream: w[1], Partial: string(tag) == "P", Log: []byte{}}
	if len(w) == 4 {
		p.Log = w[3]
	}
	return p, true
}

// slowDocker reads a docker json-file record with encoding/json: an
// object whose log and stream (and time, if any) are strings, stream
// stdout or stderr; a log ending in "\n" is a line's last part.
func slowDocker(line []byte) (Part, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(line, &m) != nil {
		return Part{}, false
	}
	var p Part
	var log, stream, tm string
	if json.Unmarshal(m["log"], &log) != nil || json.Unmarshal(m["stream"], &stream) != nil {
		return Part{}, false
	}
	if raw, ok := m["time"]; ok && json.Unmarshal(raw, &tm) != nil {
		return Part{}, false
	}
	if stream != "stdout" && stream != "stderr" {
		return Part{}, false
	}
	p.Stream, p.Time = []byte(stream), []byte(tm)
	log, last := strings.CutSuffix(log, "\n")
	p.Log, p.Partial = []byte(log), !last
	return p, true
}

// String shows a part in a failure.
func (p Part) String() string {
	return fmt.Sprintf("{time %q stream %q log %q partial %v}", p.Time, p.Stream, p.Log, p.Partial)
}

func samePart(a, b Part) bool {
	return bytes.Equal(a.Time, b.Time) && bytes.Equal(a.Stream, b.Stream) && bytes.Equal(a.Log, b.Log) && a.Partial == b.Partial
}

// unwrapCase is a line and what Unwrap makes of it.
type unwrapCase struct {
	line string
	want Part
	ok   bool
}

// checkUnwrap runs each case's line through an Unwrapper of kind.
func checkUnwrap(t *testing.T, kind doc.EnvelopeKind, cases []unwrapCase) {
	t.Helper()
	u := NewUnwrapper(kind)
	for _, c := range cases {
		p, ok := u.Unwrap([]byte(c.line))
		if ok != c.ok || (ok && !samePart(p, c.want)) {
			t.Errorf("Unwrap(%q) = %v, %v; want %v, %v", c.line, p, ok, c.want, c.ok)
		}
	}
}

func TestACRILineIsItsTimeStreamTagAndLog(t *testing.T) {
	checkUnwrap(t, doc.CRI, []unwrapCase{
		{"2026-12-05T10:00:00.1Z stdout F GET / 200", Part{[]byte("2026-12-05T10:00:00.1Z"), []byte("stdout"), []byte("GET / 200"), false}, true},
		{"2026-12-05T10:00:00.1Z stderr P part  with  spaces ", Part{[]byte("2026-12-05T10:00:00.1Z"), []byte("stderr"), []byte("part  with  spaces "), true}, true},
		{"t stdout F", Part{[]byte("t"), []byte("stdout"), []byte{}, false}, true},
		{"t stdout F \r", Part{[]byte("t"), []byte("stdout"), []byte{}, false}, true},
		{"t stdout F:x log", Part{[]byte("t"), []byte("stdout"), []byte("log"), false}, true},
		{"t stdin F log", Part{}, false},
		{"t stdout X log", Part{}, false},
		{" stdout F log", Part{}, false},
		{"GET / 200", Part{}, false},
	})
}

func TestADockerRecordIsItsLogUnescapedAndWhetherItEndsTheLine(t *testing.T) {
	checkUnwrap(t, doc.Docker, []unwrapCase{
		{`{"log":"GET / 200\n","stream":"stdout","time":"2026-12-05T10:00:00.1Z"}`, Part{[]byte("2026-12-05T10:00:00.1Z"), []byte("stdout"), []byte("GET / 200"), false}, true},
		{`{"log":"say \"hi\"\\n","stream":"stderr","time":"t"}`, Part{[]byte("t"), []byte("stderr"), []byte(`say "hi"\n`), true}, true},
		{`{"time":"t", "attrs":{"a":[1,2]}, "stream":"stdout", "log":"x\u00e9\n"}`, Part{[]byte("t"), []byte("stdout"), []byte("xé"), false}, true},
		{`{"log":"x\n","stream":"stdin","time":"t"}`, Part{}, false},
		{`{"log":"x\n","time":"t"}`, Part{}, false},
		{`{"log":"x\n","stream":"stdout"} trailing`, Part{}, false},
		{`{"log":1,"stream":"stdout"}`, Part{}, false},
		{`plain text`, Part{}, false},
	})
}

// joinAll runs lines (each at its offset in their concatenation) through
// a Joiner and describes what each made.
func joinAll(u *Unwrapper, lines ...string) []string {
	var j Joiner
	var out []string
	pos := int64(0)
	for _, l := range lines {
		r := j.Line(u, pos, []byte(l))
		if r.Cut {
			out = append(out, "cut "+itoa(r.CutAt)+"-"+itoa(r.CutEnd))
		}
		switch {
		case r.Held:
			out = append(out, "held")
		case r.Reason != "":
			out = append(out, "drop "+r.Reason+" at "+itoa(r.At))
		default:
			out = append(out, "entry "+string(r.Part.Stream)+" "+string(r.Part.Time)+" at "+itoa(r.At)+": "+string(r.Part.Log))
		}
		pos += int64(len(l)) + 1
	}
	return out
}

func itoa(n int64) string { return string(appendInt(nil, n)) }

func appendInt(b []byte, n int64) []byte {
	if n >= 10 {
		b = appendInt(b, n/10)
	}
	return append(b, byte('0'+n%10))
}

func TestASplitLineIsOneEntryAtItsFirstPartWithItsFirstPartsTime(t *testing.T) {
	got := joinAll(NewUnwrapper(doc.CRI), "t1 stdout P ab", "t2 stdout P cd", "t3 stdout F ef", "t4 stderr F gh")
	want := []string{"held", "held", "entry stdout t1 at 0: abcdef", "entry stderr t4 at 45: gh"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestASplitLineCutByTheOtherStreamOrABadLineIsOneDrop(t *testing.T) {
	u := NewUnwrapper(doc.CRI)
	got := joinAll(u, "t1 stdout P ab", "t2 stderr F cd", "t3 stdout P ef", "garbage", "t4 stdout F gh")
	want := []string{"held", "cut 0-15", "entry stderr t2 at 15: cd", "held", "cut 30-45", "drop envelope at 45", "entry stdout t4 at 53: gh"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestALineOfTheStreamTheDocumentDoesNotReadIsADropOfItsOwn(t *testing.T) {
	d, err := doc.Parse("t", []byte("format logfmt\nenvelope cri stream=stdout\ntime ts layout=unix\nwindow 1s\nmetric n count\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := joinAll(UnwrapperFor(d), "t1 stdout P ab", "t2 stdout F cd", "t3 stderr P ef", "t4 stderr F gh", "t5 stdout F ij")
	want := []string{"held", "entry stdout t1 at 0: abcd", "drop stream at 30", "drop stream at 45", "entry stdout t5 at 60: ij"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q\nwant %q", got, want)
	}
	for _, bad := range []string{"envelope cri stream=both", "envelope cri stdout", "envelope cri stream=stdout x"} {
		if _, err := doc.Parse("t", []byte("format logfmt\n"+bad+"\ntime ts layout=unix\nwindow 1s\nmetric n count\n")); err == nil || !strings.Contains(err.Error(), "stream=stdout or stream=stderr") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

func TestASplitLineOverTheLimitIsOneDropOfAllItsParts(t *testing.T) {
	u := NewUnwrapper(doc.CRI)
	part := "t stdout P " + strings.Repeat("x", MaxJoined/2)
	got := joinAll(u, part, part, part, "t stdout F y", "t stdout F z")
	want := []string{"held", "held", "held", "drop long at 0", "entry stdout t at " + itoa(int64(3*(len(part)+1)+13)) + ": z"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// Unwrapping and joining allocate nothing once the buffers have grown.
func TestUnwrappingAndJoiningAllocateNothingPerEntry(t *testing.T) {
	for _, c := range []struct {
		kind  doc.EnvelopeKind
		lines []string
	}{
		{doc.CRI, []string{"t1 stdout P ab", "t2 stdout F cd", "t3 stderr F ef"}},
		{doc.Docker, []string{`{"log":"a\"b","stream":"stdout","time":"t"}`, `{"log":"cd\n","stream":"stdout","time":"t"}`, `{"log":"e\tf\n","stream":"stderr","time":"t"}`}},
	} {
		u := NewUnwrapper(c.kind)
		var j Joiner
		lines := make([][]byte, len(c.lines))
		for i, l := range c.lines {
			lines[i] = []byte(l)
		}
		run := func() {
			for i, l := range lines {
				j.Line(u, int64(i), l)
			}
		}
		run()
		if n := testing.AllocsPerRun(100, run); n != 0 {
			t.Errorf("%v: %v allocations per run", c.kind, n)
		}
	}
}

// An entry under an envelope extracts with no allocation where its
// format has none, its stream and runtime time fields set.
func TestAnEnvelopedEntryExtractsWithoutAllocating(t *testing.T) {
	x := newExtractor(t, "format apache-combined\nenvelope cri\nwindow 1s\nmetric r count by=status,stream\nmetric t count by=runtime_time\n")
	u := NewUnwrapper(doc.CRI)
	var j Joiner
	var e Entry
	parts := [][]byte{[]byte("t1 stdout P " + goodLine[:40]), []byte("t2 stdout F " + goodLine[40:])}
	run := func() {
		for i, l := range parts {
			if r := j.Line(u, int64(i), l); !r.Held {
				x.Envelope(r.Part.Stream, r.Part.Time)
				if reason := x.Extract(r.Part.Log, &e); reason != "" {
					t.Fatalf("Extract = %q", reason)
				}
			}
		}
	}
	run()
	if s, rt := string(e.Fields[x.Field("stream")]), string(e.Fields[x.Field("runtime_time")]); s != "stdout" || rt != "t1" {
		t.Errorf("stream %q runtime_time %q", s, rt)
	}
	if n := testing.AllocsPerRun(100, run); n != 0 {
		t.Errorf("%v allocations per entry", n)
	}
}

func FuzzUnwrapCRI(f *testing.F) {
	for _, s := range []string{"2026-12-05T10:00:00.1Z stdout F GET / 200", "t stderr P:x part ", "t stdout F", "t  stdout F", "t stdout F\r", "x"} {
		f.Add([]byte(s))
	}
	u := NewUnwrapper(doc.CRI)
	f.Fuzz(func(t *testing.T, line []byte) {
		got, ok := u.Unwrap(line)
		want, wok := slowCRI(line)
		if ok != wok || (ok && !samePart(got, want)) {
			t.Fatalf("Unwrap(%q) = %v, %v; the slow reading %v, %v", line, got, ok, want, wok)
		}
	})
}

func FuzzUnwrapDocker(f *testing.F) {
	for _, s := range []string{`{"log":"GET / 200\n","stream":"stdout","time":"t"}`, `{"log":"a\\n","stream":"stderr"}`,
		`{"log":"\u00e9\"\n", "attrs":{"k":[1,true,null]},"stream":"stdout","time":"t"}`, `{"log":"x","log":"y\n","stream":"stdout"}`, `{}`} {
		f.Add([]byte(s))
	}
	u := NewUnwrapper(doc.Docker)
	f.Fuzz(func(t *testing.T, line []byte) {
		if !utf8.Valid(line) || bytes.Count(line, []byte("[")) > 100 || bytes.Count(line, []byte("{")) > 100 {
			return // encoding/json replaces invalid UTF-8, and nests deeper than the fast reader does
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if bytes.ContainsFunc(line, func(r rune) bool { return r < 0x20 }) {
			// A raw control byte inside a string, which JSON forbids and
			// docker never writes (its encoder escapes them): the fast
			// reader takes it as the byte it is (scanString, the JSON
			// format's own, is as lenient), encoding/json refuses the line.
			return
		}
		got, ok := u.Unwrap(line)
		want, wok := slowDocker(line)
		if ok != wok || (ok && !samePart(got, want)) {
			t.Fatalf("Unwrap(%s) = %v, %v; the slow reading %v, %v", line, got, ok, want, wok)
		}
	})
}
