package tally

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/timbertally/timbertally/lib/internal/tallystore"

	"github.com/timbertally/timbertally/lib/internal/doc"
)

// storeLine is a store line of feed for store web at pos, with the
// generation at 0 signed sig over 256 bytes, and where pos came from.
func storeLine(pos int64, sig, from string) string {
	return fmt.Sprintf("store id=web offset=%d gen=0 sig=%s siglen=256 from=%s\n", pos, sig, from)
}

// files returns every file of dir and its bytes.
func files(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if tallystore.IsLock(e.Name()) {
			continue // the lock names its holder: not state
		}
		b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		out[e.Name()] = string(b)
	}
	return out
}

// refused runs in and wants it refused with msg, every file of dir as it was.
func refused(t *testing.T, dir, in, msg string) {
	t.Helper()
	before := files(t, dir)
	_, err := runInput(t, dir, in)
	if err == nil || !strings.Contains(err.Error(), msg) || !strings.Contains(err.Error(), "Nothing was written") {
		t.Fatalf("want a refusal saying %q, got %v", msg, err)
	}
	if after := files(t, dir); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("a refused run changed the tally store:\nbefore %q\nafter  %q", before, after)
	}
}

// A store whose content changed at positions the tape already holds (a
// copytruncate while feed was down, replayed with feed --reset) is refused
// before anything is written, with both steps of the re-derivation; the
// same content replayed adds nothing, as before.
func TestDifferentContentAtPositionsTheTapeHoldsIsRefusedBeforeAnythingIsWritten(t *testing.T) {
	dir := newStore(t)
	b1, end1 := batch(0, 101, 112, 125)
	if _, err := runInput(t, dir, "feed v=1\n"+storeLine(0, "30d022ed", "start")+b1+"end id=web\n"); err != nil {
		t.Fatal(err)
	}
	whole := readTape(t, dir)
	refused(t, dir, "feed v=1\n"+storeLine(0, "1a2b3c4d", "start")+b1+"end id=web\n", "is not what the tape of "+dir+" counted")
	_, err := runInput(t, dir, "feed v=1\n"+storeLine(0, "1a2b3c4d", "start")+b1+"end id=web\n")
	for _, step := range []string{"tally --provision --replace --doc " + tallystore.At(dir).Document() + " " + dir, "then feed --reset"} {
		if !strings.Contains(err.Error(), step) {
			t.Errorf("the refusal does not give the step %q: %v", step, err)
		}
	}
	if _, err := runInput(t, dir, "feed v=1\n"+storeLine(0, "30d022ed", "start")+b1+"end id=web\n"); err != nil {
		t.Fatalf("the same content replayed: %v", err)
	}
	if got := readTape(t, dir); got != whole+fmt.Sprintf("end at=web:%d\n", end1) && got != whole {
		t.Fatalf("the same content replayed changed the tape:\n%s", got)
	}
}

// A cursor's position beyond what the tape accounts for (a fresh or
// replaced tally store, or another store's cursor, with --reset forgotten)
// is refused: the entries before it would never be counted. From the end
// of a store (feed --from end) it is where the tape begins to account for
// it, and a restart there is accepted.
func TestAResumePositionBeyondWhatTheTapeAccountsForIsRefused(t *testing.T) {
	dir := newStore(t)
	refused(t, dir, "feed v=1\n"+storeLine(186350, "30d022ed", "cursor")+"end id=web\n", "resumes at position 186350 (feed's cursor), but the tape of "+dir+" accounts for it only up to 0")
	refused(t, dir, "feed v=1\nstore id=web offset=186350\nend id=web\n", "accounts for it only up to 0") // an older feed's line
	b1, _ := batch(186350, 101, 112)
	if _, err := runInput(t, dir, "feed v=1\n"+storeLine(186350, "30d022ed", "end")+b1); err != nil {
		t.Fatalf("a store fed from its end: %v", err)
	}
	if _, err := runInput(t, dir, "feed v=1\n"+storeLine(186350, "30d022ed", "cursor")+b1+"end id=web\n"); err != nil {
		t.Fatalf("its restart from the cursor at the same position: %v", err)
	}
}

// A tape cut into its last seal line (an edit, a bad restore) leaves the
// cursor past entries no record holds any more: the run is refused, not
// "repaired" with the claim that they are replayed, and the tape is left
// as it is. A cut that the cursor is behind is repaired as before.
func TestATapeCutIntoItsLastSealIsRefusedWhenTheCursorIsPastItsEntries(t *testing.T) {
	dir := newStore(t)
	b1, end1 := batch(0, 101, 112, 125, 131)
	if _, err := runInput(t, dir, "feed v=1\n"+storeLine(0, "30d022ed", "start")+b1); err != nil {
		t.Fatal(err)
	}
	whole := readTape(t, dir)
	// The cursor holds the safe offset tally reported: the open bucket's first entry.
	safe := int64(strings.Index(b1[strings.Index(b1, "\n")+1:], "131"))
	torn := whole[:strings.LastIndex(whole, "seal ")+9]
	os.WriteFile(tallystore.At(dir).Tape(), []byte(torn), 0o644)
	refused(t, dir, "feed v=1\n"+storeLine(safe, "30d022ed", "cursor"), "records were cut from it")
	if got := readTape(t, dir); got != torn {
		t.Fatalf("the refused run repaired the tape")
	}
	if _, err := runInput(t, dir, "feed v=1\n"+storeLine(0, "30d022ed", "cursor")+b1); err != nil {
		t.Fatalf("resumed from before the cut: %v", err)
	}
	if got := readTape(t, dir); got != whole {
		t.Fatalf("after the repair and the replay from 0:\n%s\nwant\n%s", got, whole)
	}
	_ = end1
}

// The frozen document is checked: a DIR/document edited between runs
// (window 10s to 5s) is refused once the tape holds anything, with the
// fix; put back, the run goes on.
func TestAnEditedDocumentIsRefusedWithTheFix(t *testing.T) {
	dir := newStore(t)
	b1, end1 := batch(0, 101, 112)
	if _, err := runInput(t, dir, "feed v=1\n"+storeLine(0, "30d022ed", "start")+b1); err != nil {
		t.Fatal(err)
	}
	p := tallystore.At(dir).Document()
	os.WriteFile(p, []byte(strings.Replace(testDoc, "window 10s", "window 5s", 1)), 0o644)
	b2, _ := batch(end1, 125)
	refused(t, dir, "feed v=1\n"+storeLine(0, "30d022ed", "cursor")+b1+b2, p+" is not the document the tape of "+dir+" was begun with")
	os.WriteFile(p, []byte(testDoc), 0o644)
	if _, err := runInput(t, dir, "feed v=1\n"+storeLine(0, "30d022ed", "cursor")+b1+b2); err != nil {
		t.Fatalf("the document put back: %v", err)
	}
}

// --replace moves the bindings aside with the old tape: they say what it
// was counted from, and the new tape starts bound to nothing.
func TestReplaceMovesTheBindingsAsideWithTheOldTape(t *testing.T) {
	dir := newStore(t)
	b1, _ := batch(0, 101, 112)
	if _, err := runInput(t, dir, "feed v=1\n"+storeLine(0, "30d022ed", "start")+b1); err != nil {
		t.Fatal(err)
	}
	bound, _ := os.ReadFile(tallystore.At(dir).Bindings())
	d, _ := doc.Parse("test", []byte(testDoc))
	_, err := tallystore.Provision(dir, d, true, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if old, _ := os.ReadFile(filepath.Join(dir, "bindings.replaced.2026-01-02T03:04:05Z")); len(bound) == 0 || string(old) != string(bound) {
		t.Fatalf("the old bindings %q are not beside the old tape: %q", bound, old)
	}
	if _, err := os.Stat(tallystore.At(dir).Bindings()); err == nil {
		t.Fatal("the new tape kept the old tape's bindings")
	}
	if _, err := runInput(t, dir, "feed v=1\n"+storeLine(0, "1a2b3c4d", "start")+b1); err != nil {
		t.Fatalf("other content into the new tape: %v", err)
	}
}

// Began says where each store's feeding began: the position a store first
// fed from its end was first delivered from, lowered when a later run
// replays it from before (feed --reset).
func TestBeganIsWhereAStoreWasFirstDeliveredFrom(t *testing.T) {
	dir := newStore(t)
	if got, err := tallystore.Began(dir); err != nil || got != nil {
		t.Fatalf("a fresh store: %v, %v; want nil", got, err)
	}
	b1, _ := batch(186350, 101, 112)
	if _, err := runInput(t, dir, "feed v=1\n"+storeLine(186350, "30d022ed", "end")+b1); err != nil {
		t.Fatal(err)
	}
	if got, err := tallystore.Began(dir); err != nil || got["web"] != 186350 {
		t.Fatalf("fed from its end: %v, %v; want web at 186350", got, err)
	}
	b0, _ := batch(0, 101, 112)
	if _, err := runInput(t, dir, "feed v=1\n"+storeLine(0, "30d022ed", "start")+b0); err != nil {
		t.Fatal(err)
	}
	if got, err := tallystore.Began(dir); err != nil || got["web"] != 0 {
		t.Fatalf("replayed from 0: %v, %v; want web at 0", got, err)
	}
}

// A run under a feed that names its cursor and stores (the hello's
// cursor=, the store lines' spec=) records them in the bindings, and the
// re-derivation the store advises names them, not placeholders.
func TestTheBindingsRecordFeedsCursorAndStoresAndTheRemakeNamesThem(t *testing.T) {
	dir := newStore(t)
	b1, _ := batch(0, 101, 112)
	spec := "web=/var/log/old%20one.log.1,/var/log/web.log"
	line := strings.TrimSuffix(storeLine(0, "30d022ed", "start"), "\n") + " spec=" + spec + "\n"
	if _, err := runInput(t, dir, "feed v=1 cursor=/var/lib/tt/web.cursor\n"+line+b1); err != nil {
		t.Fatal(err)
	}
	r := tallystore.RemakeOf(dir)
	want := "feed --reset --cursor /var/lib/tt/web.cursor 'web=/var/log/old one.log.1,/var/log/web.log' -- tally --run " + dir
	if !r.Known() || r.ReplayText() != want {
		t.Fatalf("the remake replays with %q (known %v), want %q", r.ReplayText(), r.Known(), want)
	}
	b, _ := os.ReadFile(tallystore.At(dir).Bindings())
	if !strings.Contains(string(b), "cursor path=/var/lib/tt/web.cursor\n") || !strings.Contains(string(b), " spec="+spec+"\n") {
		t.Fatalf("the bindings do not record the cursor and the store's spec:\n%s", b)
	}
}
