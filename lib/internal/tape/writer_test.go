package tape

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Torn says what OpenWriter would cut (a torn line, then a group without
// its seal) and leaves the file as it is, so that a caller can refuse the
// run before anything changes; OpenWriter then cuts exactly that.
func TestTornSaysWhatOpenWriterCutsAndChangesNothing(t *testing.T) {
	p := filepath.Join(t.TempDir(), "tape")
	whole := "2026-10-10T13:55:30Z requests 4\nseal 2026-10-10T13:55:30Z width=10s entries=4\n"
	tail := "2026-10-10T13:55:40Z requests 2\nseal 2026-10-1"
	os.WriteFile(p, []byte(whole+tail), 0o644)
	torn, size, err := Torn(p)
	if err != nil || string(torn) != tail || size != int64(len(whole)) {
		t.Fatalf("Torn = %q, %d, %v; want %q, %d", torn, size, err, tail, len(whole))
	}
	if b, _ := os.ReadFile(p); string(b) != whole+tail {
		t.Fatalf("Torn changed the tape: %q", b)
	}
	w, cut, err := OpenWriter(p)
	if err != nil || string(cut) != tail || w.Size() != size {
		t.Fatalf("OpenWriter cut %q (size %d), %v", cut, w.Size(), err)
	}
	w.Close()
	if torn, size, err := Torn(filepath.Join(t.TempDir(), "none")); torn != nil || size != 0 || err != nil {
		t.Fatalf("a missing tape: %q %d %v", torn, size, err)
	}
}

// A bucket's group whose seal was deleted, before the end records, is what
// OrphanGroup cuts (with the ends); a tape whose last group is sealed, or
// whose open group is not followed by an end, is left as it is.
func TestOrphanGroupIsTheUnsealedGroupBeforeTheEndRecords(t *testing.T) {
	sealed := "2026-10-10T13:55:30Z requests 4\nseal 2026-10-10T13:55:30Z width=10s entries=4 at=q:40\n"
	orphan := "2026-10-10T13:55:40Z requests 2\n"
	end := "end at=q:60\n"
	dropped := sealed + "!drop id=q offset=40 end=50 count=1 reason=format\n" + end
	for _, c := range []struct {
		text string
		keep int
	}{
		{sealed + orphan + end + end, len(sealed)},
		{orphan + end, 0},
		{sealed + end, len(sealed + end)},
		{dropped, len(dropped)},
		{sealed, len(sealed)},
		// A later kind's line is no part of a bucket's group: it is kept.
		{sealed + "!mark at=q:40\n" + orphan + end, len(sealed + "!mark at=q:40\n")},
	} {
		r := strings.NewReader(c.text)
		keep, err := OrphanGroup(r, int64(len(c.text)))
		if err != nil || keep != int64(c.keep) {
			t.Errorf("OrphanGroup(%q) = %d, %v; want %d", c.text, keep, err, c.keep)
		}
	}
}

// A later version writes a bucket's group in one append, and may write a
// line of a kind this version does not know inside it: a crash that tears
// that append leaves series lines before the later kind's line too. They
// are the torn group's, cut with it (the replay writes the group again,
// whole); a later kind's line before the group's first line is no part
// of it and stays.
func TestATornGroupIsCutFromItsFirstSeriesLinePastALaterKindsLineInsideIt(t *testing.T) {
	sealed := "2026-10-10T13:55:30Z requests 4\nseal 2026-10-10T13:55:30Z width=10s entries=4 at=q:40\n"
	before := "identity id=q dev=1\n"
	group := "2026-10-10T13:55:40Z requests{s=\"200\"} 2\n!mark at=q:50\n2026-10-10T13:55:40Z requests{s=\"500\"} 1\n"
	for _, c := range []struct{ text, keep string }{
		{sealed + before + group, sealed + before},
		{sealed + group + before, sealed},
		{group, ""},
		{sealed + before, sealed + before},
	} {
		p := filepath.Join(t.TempDir(), "tape")
		os.WriteFile(p, []byte(c.text), 0o644)
		torn, size, err := Torn(p)
		if err != nil || size != int64(len(c.keep)) || string(torn) != c.text[len(c.keep):] {
			t.Errorf("Torn(%q) = %q, %d, %v; want to keep %q", c.text, torn, size, err, c.keep)
		}
	}
}

// A seal deleted by hand leaves its group before the end records; a later
// kind's line inside that group, or among the end records, does not hide
// the group's first lines from the cut.
func TestOrphanGroupCutsFromTheGroupsFirstLinePastLaterKindsLines(t *testing.T) {
	sealed := "2026-10-10T13:55:30Z requests 4\nseal 2026-10-10T13:55:30Z width=10s entries=4 at=q:40\n"
	orphan := "2026-10-10T13:55:40Z requests{s=\"200\"} 2\n!mark at=q:50\n2026-10-10T13:55:40Z requests{s=\"500\"} 1\n"
	end := "end at=q:60\n"
	for _, c := range []struct{ text, keep string }{
		{sealed + orphan + end, sealed},
		{sealed + orphan + "!mark at=q:60\n" + end + "identity id=q\n", sealed},
		{sealed + "identity id=q\n" + orphan + end, sealed + "identity id=q\n"},
		{orphan + end, ""},
		{sealed + end + "identity id=q\n", sealed + end + "identity id=q\n"},
	} {
		keep, err := OrphanGroup(strings.NewReader(c.text), int64(len(c.text)))
		if err != nil || keep != int64(len(c.keep)) {
			t.Errorf("OrphanGroup(%q) = %d, %v; want %d", c.text, keep, err, len(c.keep))
		}
	}
}

// FuzzGroupStartLeavesNoSeriesLineOfAnUnsealedGroup: over any whole lines
// that are records, what groupStart keeps ends at a line's end, the first
// line it cuts is a series or !cap line, it cuts no record but series,
// !cap, later kinds' lines (and end records, with ends), and what it keeps
// does not end, past later kinds' lines, in a series or !cap line.
func FuzzGroupStartLeavesNoSeriesLineOfAnUnsealedGroup(f *testing.F) {
	f.Add("2026-10-10T13:55:30Z requests 4\nseal 2026-10-10T13:55:30Z width=10s entries=4\nidentity id=q\n2026-10-10T13:55:40Z requests 2\n!mark at=q:5\n2026-10-10T13:55:40Z requests 1\nend at=q:6\n", true)
	f.Add("identity id=q\n2026-10-10T13:55:40Z requests 2\n", false)
	f.Fuzz(func(t *testing.T, text string, ends bool) {
		var lines []string
		var kinds []Kind
		for l := range strings.SplitSeq(strings.TrimSuffix(text, "\n"), "\n") {
			rec, err := ParseOrLater([]byte(l))
			if err != nil || text == "" {
				return // damage is ScanBack's to find (FuzzScanBackAgreesWithTheForwardReader)
			}
			lines, kinds = append(lines, l+"\n"), append(kinds, rec.Kind)
		}
		text = strings.Join(lines, "")
		keep, err := groupStart(strings.NewReader(text), int64(len(text)), ends)
		if err != nil {
			t.Fatal(err)
		}
		var at int64
		cut := -1
		for i, l := range lines {
			if at == keep {
				cut = i
			}
			at += int64(len(l))
		}
		if keep == int64(len(text)) {
			cut = len(lines)
		}
		if cut < 0 {
			t.Fatalf("kept %d bytes of %q: not a line's end", keep, text)
		}
		group := kinds[cut:]
		if len(group) > 0 && group[0] != Series && group[0] != Cap {
			t.Fatalf("%q: the first line cut is a %v", text, group[0])
		}
		for _, k := range group {
			if k != Series && k != Cap && k != Later && (!ends || k != End) {
				t.Fatalf("%q: a %v record was cut", text, k)
			}
		}
		last := len(lines) // the last kept line that is not a later kind's
		for i := cut - 1; i >= 0 && last == len(lines); i-- {
			if kinds[i] != Later {
				last = i
			}
		}
		if last < len(lines) && (kinds[last] == Series || kinds[last] == Cap) {
			t.Fatalf("%q: kept %d bytes ending in a series line of an unsealed group", text, keep)
		}
	})
}
