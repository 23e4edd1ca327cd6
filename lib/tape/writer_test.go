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
