package feed

import (
	"io"
	"strings"
	"testing"
)

// ledgerAt returns a ledger of store web1 resumed at 100 and delivered to
// 300 (a batch ending at 300).
func ledgerAt() *ledger {
	l := newLedger([]string{"web1"}, []int64{100})
	l.deliver(0, 300, true)
	return l
}

func TestAStoreIsParkedUntilItsLastBatchIsTaken(t *testing.T) {
	l := ledgerAt()
	if !l.parked(0) {
		t.Fatal("not parked with a batch delivered and nothing taken")
	}
	if err := l.accept([]byte("progress id=web1 offset=100 taken=200")); err != nil || !l.parked(0) {
		t.Fatalf("taken short of the batch's end: err %v, parked %v; want parked", err, l.parked(0))
	}
	if err := l.accept([]byte("progress id=web1 offset=150 taken=300")); err != nil || l.parked(0) {
		t.Fatalf("taken at the batch's end: err %v, parked %v; want flowing", err, l.parked(0))
	}
}

func TestASkipDoesNotParkAStore(t *testing.T) {
	l := newLedger([]string{"web1"}, []int64{0})
	l.deliver(0, 5000, false)
	if l.parked(0) {
		t.Fatal("a skip parked the store: a consumer that reports only on batches would stall")
	}
	if err := l.accept([]byte("progress id=web1 offset=5000")); err != nil {
		t.Fatalf("a report past a skip was refused: %v", err)
	}
}

func TestBadReportsAreRefusedWithTheLineAndKeepTheLastValidOffset(t *testing.T) {
	for name, c := range map[string]struct{ line, msg string }{
		"garbage":          {"hello", "broke the protocol"},
		"unknown id":       {"progress id=web2 offset=100", "store web2, which feed does not send"},
		"offset backwards": {"progress id=web1 offset=99 taken=150", "offset for store web1 went backwards (99 < 100)"},
		"taken backwards":  {"progress id=web1 offset=100 taken=99", "taken"},
		"taken beyond":     {"progress id=web1 offset=100 taken=301", "taken=301 for store web1 beyond the 300 delivered"},
		"taken below":      {"progress id=web1 offset=200 taken=150", "taken"},
	} {
		l := ledgerAt()
		err := l.accept([]byte(c.line))
		if err == nil || !strings.Contains(err.Error(), c.msg) || !strings.HasPrefix(err.Error(), "feed: ") {
			t.Errorf("%s: %q: err = %v, want one saying %q", name, c.line, err, c.msg)
		}
		if got := l.offsets(nil)[0]; got != 100 {
			t.Errorf("%s: offset %d after a bad report, want the last valid 100", name, got)
		}
	}
}

func TestReadStopsAtTheFirstBadReportAndDrainsTheRest(t *testing.T) {
	l := ledgerAt()
	l.read(io.NopCloser(strings.NewReader("progress id=web1 offset=200 taken=300\nprogress id=web1 offset=9\nprogress id=web1 offset=300\n")))
	err, eof := l.status()
	if err == nil || !strings.Contains(err.Error(), "went backwards (9 < 200)") || !eof {
		t.Fatalf("status = %v, eof %v; want the backwards report and eof", err, eof)
	}
	if got := l.offsets(nil)[0]; got != 200 {
		t.Fatalf("offset %d, want 200: nothing after the bad report counts", got)
	}
}

func TestAReportWithoutItsNewlineIsRefused(t *testing.T) {
	l := ledgerAt()
	l.read(strings.NewReader("progress id=web1 offset=200 taken=300"))
	if err, _ := l.status(); err == nil || !strings.Contains(err.Error(), "without its newline") {
		t.Fatalf("status = %v, want a torn report named", err)
	}
}
