package bucket

import (
	"fmt"
	"strings"
	"testing"

	"github.com/timbertally/timbertally/lib/internal/doc"
)

func TestAStoreWhoseFirstThousandEntriesAllDropGetsOneNote(t *testing.T) {
	r := newRoller(t, "5s", 100, nil)
	bad, good := r.AddStore("syslog", 0), r.AddStore("web", 0)
	var pos int64
	for i := range FirstEntries - 1 {
		pos = feedLines(r, bad, pos, fmt.Sprintf("Dec  1 21:14:10 host sshd[%d]: hello", i))
		feedLines(r, good, int64(i)*10, "100 200 1")
	}
	if notes := r.FormatNotes(); len(notes) != 0 {
		t.Fatalf("notes before the 1000th entry: %q", notes)
	}
	pos = feedLines(r, bad, pos, "Dec  1 21:14:10 host sshd[x]: hello")
	notes := r.FormatNotes()
	if len(notes) != 1 || !strings.Contains(notes[0], "store syslog: its first 1000 entries were all dropped (!drop reason=format)") ||
		!strings.Contains(notes[0], `The first: "Dec  1 21:14:10 host sshd[0]: hello"`) || !strings.Contains(notes[0], "regex ") {
		t.Fatalf("notes = %q", notes)
	}
	feedLines(r, bad, pos, "more")
	r.End(bad)
	r.End(good)
	if notes := r.FormatNotes(); len(notes) != 0 {
		t.Errorf("a second note for the same store: %q", notes)
	}
}

func TestAStoreEndingWithMostOfItsEntriesDroppedGetsANote(t *testing.T) {
	r := newRoller(t, "5s", 100, nil)
	st := r.AddStore("a", 0)
	pos := feedLines(r, st, 0, "100 200 1", "junk", "junk 2")
	if notes := r.FormatNotes(); len(notes) != 0 {
		t.Fatalf("notes while the store goes on: %q", notes)
	}
	r.End(st)
	notes := r.FormatNotes()
	if len(notes) != 1 || !strings.Contains(notes[0], "store a: 2 of its 3 entries in this run were dropped (10% or more") {
		t.Fatalf("notes = %q", notes)
	}
	_ = pos
	r2 := newRoller(t, "5s", 100, nil)
	st = r2.AddStore("b", 0)
	feedLines(r2, st, 0, "100 200 1", "101 200 1", "102 200 1", "103 200 1", "104 200 1", "105 200 1", "106 200 1", "107 200 1", "108 200 1", "109 200 1", "junk")
	r2.End(st)
	if notes := r2.FormatNotes(); len(notes) != 0 {
		t.Errorf("a note for a store with one in eleven dropped (under a tenth): %q", notes)
	}
	r3 := newRoller(t, "5s", 100, nil)
	st = r3.AddStore("c", 0)
	feedLines(r3, st, 0, "junk")
	r3.End(st)
	if notes := r3.FormatNotes(); len(notes) != 1 || !strings.Contains(notes[0], "its first 1 entries were all dropped") {
		t.Errorf("a store of one bad line: %q", notes)
	}
}

// TestRollerEntryAllocatesNothingPerDroppedEntry: the wrong-format watch
// keeps its sample from the first drop and only counts the rest, so a
// store fed lines of another format allocates nothing per entry.
func TestRollerEntryAllocatesNothingPerDroppedEntry(t *testing.T) {
	d, err := doc.Load("apache-combined")
	if err != nil {
		t.Fatal(err)
	}
	noAllocsPerEntry(t, d, `{"level":"info","ts":1791640536,"msg":"handled request"}`)
}

// A run that follows and never ends gets the share note once it has seen
// ShareEntries entries, exactly half of them dropped (a second format
// written into the same file), not only at its end or above half.
func TestAFollowedStoreWithHalfItsEntriesDroppedGetsTheShareNoteWithoutEnding(t *testing.T) {
	r := newRoller(t, "5s", 100, nil)
	st := r.AddStore("mixed", 0)
	var lines []string
	for i := range ShareEntries / 2 {
		lines = append(lines, fmt.Sprintf("%d 200 1", 100+i%50), "Dec  1 21:14:10 host sshd[1]: hello")
	}
	feedLines(r, st, 0, lines...)
	notes := r.FormatNotes()
	if len(notes) != 1 || !strings.Contains(notes[0], fmt.Sprintf("store mixed: %d of its %d entries in this run were dropped (10%% or more: a second format in the file", ShareEntries/2, ShareEntries)) {
		t.Fatalf("notes = %q", notes)
	}
}

const typoDoc = `format json method=request.methd status=status up=upstream.time
time ts layout=unix
window 10s
metric requests count by=method,status
metric upstream sum=up
`

func TestAKeyPathNoneOfTheFirstEntriesHasIsNotedByNameWithTheKeysTheLinesHave(t *testing.T) {
	r := rollerFor(t, typoDoc, nil)
	st := r.AddStore("web", 0)
	var pos int64
	for i := range FirstEntries - 1 {
		pos = feedLines(r, st, pos, fmt.Sprintf(`{"ts":%d,"request":{"method":"GET","uri":"/a"},"status":200,"upstream":{"time":null}}`, 100+i))
	}
	if notes := r.FormatNotes(); len(notes) != 0 {
		t.Fatalf("notes before the 1000th entry: %q", notes)
	}
	pos = feedLines(r, st, pos, `{"ts":2000,"request":{"method":"GET","uri":"/a"},"status":200,"upstream":{"time":null}}`)
	notes := r.FormatNotes()
	if len(notes) != 1 || !strings.Contains(notes[0], "store web: none of its first 1000 entries has the key path request.methd (the document's field method)") ||
		!strings.Contains(notes[0], "The first entry's key paths: ts, request.method, request.uri, status, upstream.time.") ||
		!strings.Contains(notes[0], "(method=PATH)") {
		t.Fatalf("notes = %q", notes)
	}
	feedLines(r, st, pos, `{"ts":2001}`)
	r.End(st)
	if notes := r.FormatNotes(); len(notes) != 0 {
		t.Errorf("a second note for the same store: %q", notes)
	}
}

func TestAKeyPathSomeEntryHasOrTheFirstHasEmptyIsNotNoted(t *testing.T) {
	r := rollerFor(t, typoDoc, nil)
	st := r.AddStore("web", 0)
	var pos int64
	for i := range 50 {
		pos = feedLines(r, st, pos, fmt.Sprintf(`{"ts":%d,"request":{"method":"GET"},"status":200,"upstream":{"time":null}}`, 100+i))
	}
	feedLines(r, st, pos, `{"ts":200,"request":{"methd":"GET"},"status":200}`)
	r.End(st)
	if notes := r.FormatNotes(); len(notes) != 0 {
		t.Errorf("a key path the 51st entry has, and one the first has as null, noted: %q", notes)
	}
}

func TestALogfmtKeyOnlyStoreEndingSoonerIsNotedWithItsKeys(t *testing.T) {
	r := rollerFor(t, "format logfmt method=meth\ntime ts layout=unix\nwindow 10s\nmetric requests count by=method\n", nil)
	st := r.AddStore("app", 0)
	feedLines(r, st, 0, `ts=100 method=GET path="/a b"`, `ts=101 method=PUT`)
	r.End(st)
	notes := r.FormatNotes()
	if len(notes) != 1 || !strings.Contains(notes[0], "store app: none of its 2 entries has the key path meth (the document's field method)") ||
		!strings.Contains(notes[0], "key paths: ts, method, path.") {
		t.Fatalf("notes = %q", notes)
	}
}

func TestAPresetsKeyPathTheLinesLackIsNotNoted(t *testing.T) {
	r := rollerFor(t, "format caddy\nwindow 10s\nmetric requests count by=status,referer\n", nil)
	st := r.AddStore("caddy", 0)
	feedLines(r, st, 0, `{"ts":100.5,"request":{"method":"GET","headers":{"User-Agent":["curl/8"]}},"status":200,"size":5,"duration":0.01}`)
	r.End(st)
	if notes := r.FormatNotes(); len(notes) != 0 {
		t.Errorf("caddy's Referer, absent from a request without one, noted: %q", notes)
	}
}
