package tape

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestReaderReadsLinesLongerThanItsBuffer(t *testing.T) {
	long := `2026-10-10T13:55:30Z m{v="` + strings.Repeat("y", 3*readSize+7) + `"} 1`
	r := NewReader(iotest.OneByteReader(strings.NewReader("end\n" + long + "\nend\n")))
	var got []int
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, len(rec.Labels))
	}
	if len(got) != 3 || got[1] != 1 || r.Line() != 3 {
		t.Fatalf("read %v over %d lines, want 3 records with the long one second", got, r.Line())
	}
}

func TestReaderReportsATornLastLineWithItsNumber(t *testing.T) {
	r := NewReader(strings.NewReader("end\nseal 2026-10-10T13:55:30Z wid"))
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	line, err := r.ReadLine()
	if !errors.Is(err, ErrTorn) || string(line) != "seal 2026-10-10T13:55:30Z wid" {
		t.Fatalf("ReadLine = %q, %v; want the torn line and ErrTorn", line, err)
	}
	if want := "tape: line 2 is torn (no newline)"; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %q does not start %q", err, want)
	}
	// The fix is the store's next run as it is always run, under feed:
	// tally --run alone reads no input and is refused.
	if want := "feed --cursor FILE STORE... -- tally --run DIR"; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not give the fix %q", err, want)
	}
}

func TestReaderNamesTheLineOfAMalformedRecordAndPassesALaterKindAsOne(t *testing.T) {
	r := NewReader(strings.NewReader("end\nidentity id=web\nbogus line\n"))
	var err error
	var kinds []Kind
	for err == nil {
		var rec Record
		rec, err = r.Next()
		kinds = append(kinds, rec.Kind)
	}
	if len(kinds) != 3 || kinds[1] != Later {
		t.Errorf("read kinds %v, want end, a later kind, then the damage", kinds)
	}
	var le *LineError
	if !errors.As(err, &le) || le.Line != 3 || !strings.HasPrefix(err.Error(), "tape: line 3: malformed tape record") {
		t.Fatalf("error %v, want one naming line 3", err)
	}
}

func TestReaderPassesOnReadErrors(t *testing.T) {
	boom := errors.New("disk on fire")
	r := NewReader(io.MultiReader(strings.NewReader("end\n"), iotest.ErrReader(boom)))
	var err error
	for err == nil {
		_, err = r.Next()
	}
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "after line 1") {
		t.Fatalf("error %v, want the read error after line 1", err)
	}
}
