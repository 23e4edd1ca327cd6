package tape

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// checkParser holds a Parser to ParseOrLater: the same record or the same
// error for the line, whatever the line's buffer holds afterwards.
func checkParser(t *testing.T, p *Parser, line []byte) Record {
	t.Helper()
	want, wantErr := ParseOrLater(line)
	var got Record
	err := p.ParseInto(&got, line)
	if fmt.Sprint(err) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: the parser gives %+v (%v), ParseOrLater %+v (%v)", line, got, err, want, wantErr)
	}
	if len(got.Labels) != cap(got.Labels) {
		t.Fatalf("%q: the labels have room past them (%d of %d): an append would write over the next record's", line, len(got.Labels), cap(got.Labels))
	}
	return got
}

// A Parser reads every kind of line as ParseOrLater does, damaged ones
// with the same error, and its records keep their values while the buffer
// the lines came from is reused and its slabs fill.
func TestAParserReadsEveryLineAsParseOrLaterAndItsRecordsStayAsRead(t *testing.T) {
	var p Parser
	var lines []string
	for i := range 20000 {
		labels := []Label{{"path", fmt.Sprintf("/p/%d%s", i, strings.Repeat("é", i%40))}, {"le", "0.5"}}
		lines = append(lines, fmt.Sprintf(`2026-12-05T10:00:%02dZ %s %d`, i%60, AppendSeries(nil, "latency_bucket", labels[:1+i%2]), i))
		switch i % 500 {
		case 1:
			lines = append(lines, "seal 2026-12-05T10:00:00Z width=10s entries=5")
		case 2:
			lines = append(lines, "!drop id=web offset=0 end=10 count=2 reason=format")
		case 3:
			lines = append(lines, "identity id=web dev=1 ino=2") // a later kind
		case 4:
			lines = append(lines, `2026-12-05T10:00:00Z m{a="1",a="2"} 1`) // damage
		case 5:
			lines = append(lines, `2026-12-05T10:00:00Z m{`+strings.Repeat(`l="v",`, 40)+`z="1"} 2`) // past a chunk's room
		}
	}
	buf := make([]byte, 0, 4096)
	var got []Record
	for _, l := range lines {
		buf = append(buf[:0], l...)
		got = append(got, checkParser(t, &p, buf))
		clear(buf[:cap(buf)])
	}
	for i, l := range lines {
		if want, _ := ParseOrLater([]byte(l)); !reflect.DeepEqual(got[i], want) {
			t.Fatalf("record %d changed after later lines: %+v, want %+v", i, got[i], want)
		}
	}
}

func FuzzAParserReadsALineAsParseOrLater(f *testing.F) {
	for _, r := range everyKind() {
		line := Append(nil, &r)
		f.Add(line[:len(line)-1])
	}
	f.Add([]byte("identity id=web dev=1 ino=2"))
	var p Parser
	f.Fuzz(func(t *testing.T, line []byte) {
		checkParser(t, &p, line)
	})
}

// RewindSeries reuses the series records' slabs only: a seal or a marker
// parsed before it keeps its strings while the series after it write over
// the series before, and once the slabs exist a rewound read of as many
// lines allocates nothing.
func TestAParsersRewindReusesOnlyTheSeriesSlabsAndThenAllocatesNothing(t *testing.T) {
	var p Parser
	seal := checkParser(t, &p, []byte("seal 2026-12-05T10:00:00Z width=10s entries=5 at=web:120,api:7"))
	drop := checkParser(t, &p, []byte("!drop id=web offset=0 end=10 count=2 reason=format"))
	var lines [][]byte
	for i := range 3000 {
		lines = append(lines, fmt.Appendf(nil, `2026-12-05T10:00:00Z requests{path="/item/%d/%s",status="200"} %d`, i, strings.Repeat("x", i%100), i))
	}
	for _, l := range lines {
		checkParser(t, &p, l)
	}
	p.RewindSeries()
	var scratch Record
	if allocs := testing.AllocsPerRun(5, func() {
		for _, l := range lines {
			if err := p.ParseInto(&scratch, l); err != nil {
				t.Fatal(err)
			}
		}
		p.RewindSeries()
	}); allocs != 0 {
		t.Errorf("a rewound read of as many lines allocated %.0f times", allocs)
	}
	for _, l := range lines { // the records after a rewind read as the lines say
		checkParser(t, &p, l)
	}
	if want, _ := ParseOrLater([]byte("seal 2026-12-05T10:00:00Z width=10s entries=5 at=web:120,api:7")); !reflect.DeepEqual(seal, want) {
		t.Errorf("the seal changed under the series after it: %+v", seal)
	}
	if drop.ID != "web" || drop.Reason != "format" {
		t.Errorf("the marker changed under the series after it: %+v", drop)
	}
}

// A Parser reads a time the line before had without parsing it again:
// a rewind, whose next line's text lands where the last one's was, and a
// time of the same length but another second, each read as they say.
func TestAParserRemembersTheLastTimeAndNeverReadsAnotherAsIt(t *testing.T) {
	var p Parser
	for _, l := range []string{
		`2026-12-05T10:00:00Z m{a="1"} 1`,
		`2026-12-05T10:00:00Z m{a="2"} 2`,
		`2026-12-05T10:00:10Z m{a="1"} 3`,
		"rewind",
		`2026-12-05T10:00:20Z m{a="1"} 4`,
		`2026-12-05T10:00:20.5Z m{a="1"} 5`,
		`2026-12-05T10:00:20Z m{a="1"} 6`,
		`2026-12-05T10:00:2xZ m{a="1"} 7`,
		`2026-12-05T10:00:20+01:00 m{a="1"} 8`,
	} {
		if l == "rewind" {
			p.RewindSeries()
			continue
		}
		checkParser(t, &p, []byte(l))
	}
}
