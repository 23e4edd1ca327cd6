package tape

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
)

// scanned is one record as a reader saw it: the record and the offset
// just past its line.
type scanned struct {
	rec Record
	end int64
}

// forward reads the whole lines of text as a forward reader that passes
// over later kinds does (tgpush's follower): the records in order, up to
// the first damaged line's error.
func forward(t *testing.T, text string) ([]scanned, error) {
	t.Helper()
	r := NewReader(strings.NewReader(text))
	var recs []scanned
	var pos int64
	for {
		line, err := r.ReadLine()
		if err == io.EOF {
			return recs, nil
		}
		if err != nil {
			t.Fatalf("forward: %v", err)
		}
		pos += int64(len(line)) + 1
		rec, err := ParseOrLater(line)
		if err != nil {
			return recs, err
		}
		recs = append(recs, scanned{rec, pos})
	}
}

// backward is what ScanBack hands fn over the whole tape, in tape order.
func backward(text string) ([]scanned, error) {
	var recs []scanned
	err := ScanBack(strings.NewReader(text), int64(len(text)), func(r *Record, end int64) bool {
		recs = append(recs, scanned{*r, end})
		return true
	})
	for i, j := 0, len(recs)-1; i < j; i, j = i+1, j-1 {
		recs[i], recs[j] = recs[j], recs[i]
	}
	return recs, err
}

const laterTape = "identity id=web dev=1 ino=2\n" +
	"2026-10-10T13:55:30Z requests 4\n" +
	"seal 2026-10-10T13:55:30Z width=10s entries=4 at=web:40\n" +
	"!mark at=web:40 why=rotated\n"

func TestScanBackHandsALaterKindsLineOverAsARecordOfKindLaterAsTheForwardReaderDoes(t *testing.T) {
	back, err := backward(laterTape)
	if err != nil {
		t.Fatalf("ScanBack refused a well-formed line of a later kind: %v", err)
	}
	fwd, damage := forward(t, laterTape)
	if damage != nil {
		t.Fatal(damage)
	}
	if !reflect.DeepEqual(back, fwd) {
		t.Fatalf("ScanBack saw %+v, the forward reader %+v", back, fwd)
	}
	kinds := []Kind{Later, Series, Seal, Later}
	for i, s := range back {
		if s.rec.Kind != kinds[i] {
			t.Errorf("record %d is of kind %v, want %v", i, s.rec.Kind, kinds[i])
		}
	}
	if back[3].end != int64(len(laterTape)) {
		t.Errorf("the last line ends at %d, want %d", back[3].end, len(laterTape))
	}
}

func TestScanBackStopsAtADamagedLineNamingItsByte(t *testing.T) {
	for _, bad := range []string{"garbage here", "seal id=web", "\x00\x00\x00"} {
		head := "2026-10-10T13:55:30Z requests 4\n"
		tail := "seal 2026-10-10T13:55:30Z width=10s entries=4\n!mark at=web:40\n"
		text := head + bad + "\n" + tail
		var seen int
		err := ScanBack(strings.NewReader(text), int64(len(text)), func(*Record, int64) bool {
			seen++
			return true
		})
		var be *ByteError
		if !errors.As(err, &be) || be.At != int64(len(head)) {
			t.Fatalf("%q: ScanBack = %v, want a *ByteError at byte %d", bad, err, len(head))
		}
		if want := "the line at byte 32: malformed tape record"; !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: error %q does not start %q", bad, err, want)
		}
		if errors.Is(err, ErrUnknownKind) || seen != 2 {
			t.Errorf("%q: %d records before the damage, error %v; want the 2 after it and damage", bad, seen, err)
		}
	}
}

// FuzzScanBackAgreesWithTheForwardReader: over any whole lines, ScanBack
// hands over exactly the records after the last damaged line that a
// forward reader reads, with the same ends, and stops at that line.
func FuzzScanBackAgreesWithTheForwardReader(f *testing.F) {
	f.Add(laterTape)
	f.Add("garbage here\n" + laterTape + "seal id=web\n" + laterTape)
	f.Add("end\n\nend at=web:5\n")
	f.Fuzz(func(t *testing.T, text string) {
		if text != "" && !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		back, err := backward(text)
		var want []scanned
		at := int64(-1)
		var pos int64
		for line := range strings.SplitAfterSeq(text, "\n") {
			if line == "" {
				break // what follows the last '\n'
			}
			start := pos
			pos += int64(len(line))
			rec, perr := ParseOrLater([]byte(strings.TrimSuffix(line, "\n")))
			if perr != nil {
				want, at = nil, start
				continue
			}
			want = append(want, scanned{rec, pos})
		}
		if fwd, damage := forward(t, text); damage == nil && !reflect.DeepEqual(fwd, want) {
			t.Fatalf("the forward reader read %+v, want %+v", fwd, want)
		}
		var be *ByteError
		switch {
		case at < 0 && err != nil:
			t.Fatalf("ScanBack refused %q: %v", text, err)
		case at >= 0 && (!errors.As(err, &be) || be.At != at):
			t.Fatalf("ScanBack of %q = %v, want damage at byte %d", text, err, at)
		}
		if len(back) != len(want) || (len(want) > 0 && !reflect.DeepEqual(back, want)) {
			t.Fatalf("ScanBack of %q saw %+v, want %+v", text, back, want)
		}
	})
}

func TestScanBackAgreesWithTheForwardReaderAcrossItsChunkBoundaries(t *testing.T) {
	var b strings.Builder
	long := `2026-10-10T13:55:30Z requests{path="` + strings.Repeat("p", 300<<10) + `"} 1` + "\n"
	for i := 0; b.Len() < 1<<20; i++ {
		b.WriteString(laterTape)
		if i%1000 == 7 {
			b.WriteString(long)
		}
	}
	text := b.String()
	back, err := backward(text)
	if err != nil {
		t.Fatal(err)
	}
	fwd, damage := forward(t, text)
	if damage != nil || !reflect.DeepEqual(back, fwd) {
		t.Fatalf("ScanBack saw %d records, the forward reader %d (%v)", len(back), len(fwd), damage)
	}
}

// countingReader counts the reads made of it.
type countingReader struct {
	r     *strings.Reader
	reads int
}

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	c.reads++
	return c.r.ReadAt(p, off)
}

// A line many chunks long (a label value of megabytes) is read in chunks
// that double while it lasts: a few reads, each byte copied a few times,
// rather than a read per chunk, each copying all of the line read so far
// (8 MiB took 0.2 s and 32 MiB 2 s: the time grew as the square).
func TestScanBackReadsALineManyChunksLongInFewReads(t *testing.T) {
	head := "seal 2026-10-10T13:55:20Z width=10s entries=1\n"
	long := `2026-10-10T13:55:30Z requests{p="` + strings.Repeat("x", 8<<20) + `"} 1` + "\n"
	text := head + long + "seal 2026-10-10T13:55:30Z width=10s entries=1\n"
	c := &countingReader{r: strings.NewReader(text)}
	var ends []int64
	err := ScanBack(c, int64(len(text)), func(r *Record, end int64) bool {
		ends = append(ends, end)
		return true
	})
	if err != nil || len(ends) != 3 || ends[1] != int64(len(head+long)) || ends[2] != int64(len(head)) {
		t.Fatalf("ScanBack = %v, ends %v", err, ends)
	}
	if c.reads > 8 {
		t.Errorf("%d reads for a line of 8 MiB, want at most 8", c.reads)
	}
}
