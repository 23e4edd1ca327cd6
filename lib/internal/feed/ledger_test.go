package feed

import (
	"fmt"
	"os"
	"strings"
	"syscall"
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

// pumped pumps what a consumer wrote, then its EOF, into l through a pipe.
func pumped(t *testing.T, l *ledger, written string) {
	t.Helper()
	r, w, err := pipe(true)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(r)
	go func() {
		w.WriteString(written)
		w.Close()
	}()
	for _, eof := l.status(); !eof; _, eof = l.status() {
		if err := ppoll([]pollFd{{fd: int32(r), events: pollIn}}, -1); err != nil {
			t.Fatal(err)
		}
		l.pump(r)
	}
}

func TestPumpStopsAtTheFirstBadReportAndDrainsTheRest(t *testing.T) {
	l := ledgerAt()
	pumped(t, l, "progress id=web1 offset=200 taken=300\nprogress id=web1 offset=9\nprogress id=web1 offset=300\n"+strings.Repeat("x", 1<<20))
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
	pumped(t, l, "progress id=web1 offset=200 taken=300")
	if err, _ := l.status(); err == nil || !strings.Contains(err.Error(), "without its newline") {
		t.Fatalf("status = %v, want a torn report named", err)
	}
}

func TestAReportLineLongerThanTheLimitIsRefused(t *testing.T) {
	l := ledgerAt()
	pumped(t, l, "progress id=web1 offset=200 "+strings.Repeat("x", maxReportLine)+"\n")
	if err, _ := l.status(); err == nil || !strings.Contains(err.Error(), "more than 65536 bytes") {
		t.Fatalf("status = %v, want the long line refused", err)
	}
}

func TestReportsSplitAcrossReadsAreAcceptedWhole(t *testing.T) {
	l := ledgerAt()
	r, w, err := pipe(true)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(r)
	defer w.Close()
	for _, part := range []string{"progress id=web1 off", "set=150 taken=200\nprogress id=web1 offset=2", "00 taken=300\n"} {
		w.WriteString(part)
		l.pump(r)
	}
	if err, eof := l.status(); err != nil || eof || l.offsets(nil)[0] != 200 || l.parked(0) {
		t.Fatalf("err %v eof %v offset %d parked %v; want offset 200, taken 300", err, eof, l.offsets(nil)[0], l.parked(0))
	}
}

func TestAWindowLetsBatchesGoAheadOfTakenWhileTheyFitIt(t *testing.T) {
	l := ledgerAt() // a batch from 100 to 300 in flight
	if err := l.accept([]byte("progress id=web1 offset=100 taken=100 window=500")); err != nil {
		t.Fatal(err)
	}
	if l.full(0, 300) {
		t.Fatal("200 bytes in flight and a batch of 300 fit a window of 500, but the store is full")
	}
	if !l.full(0, 301) {
		t.Fatal("a batch of 301 on 200 in flight went past a window of 500")
	}
	l.deliver(0, 600, true)
	if !l.full(0, 1) {
		t.Fatal("a window of 500 filled by the 500 bytes in flight let one more byte go")
	}
	if !l.parked(0) {
		t.Fatal("untaken batches in a window are not parked: an idle could claim everything taken")
	}
}

func TestWithEverythingTakenABatchLargerThanTheWindowStillGoes(t *testing.T) {
	l := ledgerAt()
	if err := l.accept([]byte("progress id=web1 offset=100 taken=300 window=50")); err != nil {
		t.Fatal(err)
	}
	if l.full(0, 10000) {
		t.Fatal("nothing in flight, yet a batch over the window must wait: the store would stall")
	}
}

func TestAReportWithoutWindowIsThePark(t *testing.T) {
	l := ledgerAt()
	if err := l.accept([]byte("progress id=web1 offset=100 taken=200 window=500")); err != nil {
		t.Fatal(err)
	}
	if err := l.accept([]byte("progress id=web1 offset=100 taken=200")); err != nil {
		t.Fatal(err)
	}
	if !l.full(0, 1) || l.windowed(0) {
		t.Fatal("a report without window= left a window open: a consumer's last word asks for none")
	}
}

func TestAWindowIsNoLargerThanFeedOffered(t *testing.T) {
	l := ledgerAt()
	if err := l.accept([]byte(fmt.Sprintf("progress id=web1 offset=100 taken=100 window=%d", 10*window))); err != nil {
		t.Fatal(err)
	}
	if l.full(0, window-200) || !l.full(0, window-199) {
		t.Fatalf("a window asked for over the offer is not the offer of %d bytes", window)
	}
}

func TestAStoreAddedMidRunIsParkedUntilTakenAndItsReportsAreValid(t *testing.T) {
	l := newLedger([]string{"a"}, []int64{0})
	l.add("b", 0)
	l.deliver(1, 10, true)
	if !l.parked(1) || l.parked(0) {
		t.Fatal("the added store is not parked on its batch, or the first one is")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w.WriteString("progress id=b offset=10\n")
	w.Close()
	syscall.SetNonblock(int(r.Fd()), true)
	l.pump(int(r.Fd()))
	if err, _ := l.status(); err != nil || l.parked(1) || l.offset[1] != 10 {
		t.Fatalf("after the report: %v, parked %v, offset %d", err, l.parked(1), l.offset[1])
	}
}
