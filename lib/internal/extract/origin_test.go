package extract

import (
	"testing"
)

// An entry's store field is the id its store was declared with, whichever
// store the entries before it came from; a format with a field of that
// name keeps its own.
func TestTheStoreFieldIsTheIdOfTheStoreTheEntryCameFrom(t *testing.T) {
	x := newExtractor(t, "format json\ntime ts layout=rfc3339\nwindow 1s\nmetric r count by=store,code\n")
	x.Origin(0, "web1", "")
	x.Origin(1, "web2", "")
	var e Entry
	line := []byte(`{"ts":"2026-10-10T13:55:36Z","code":200,"store":"not the id"}`)
	for _, st := range []int{1, 0, 0, 1} {
		x.Store(st)
		if r := x.Extract(line, &e); r != "" {
			t.Fatalf("Extract = %q", r)
		}
		if got, want := string(e.Fields[x.Field("store")]), []string{"web1", "web2"}[st]; got != want {
			t.Errorf("store %d: store = %q, want %q", st, got, want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { x.Store(0); x.Extract(line, &e); x.Store(1); x.Extract(line, &e) }); n != 0 {
		t.Errorf("%v allocations per two entries", n)
	}

	own := newExtractor(t, "format json store=store\ntime ts layout=rfc3339\nwindow 1s\nmetric r count by=store\n")
	own.Origin(0, "web1", "")
	own.Store(0)
	if r := own.Extract(line, &e); r != "" || string(e.Fields[own.Field("store")]) != "not the id" {
		t.Errorf("a format line naming store reads the key: %q %q", r, e.Fields[own.Field("store")])
	}
}

// A document that does not read the store has no store field: the fields
// of a format are what its lines hold.
func TestAStoreFieldNoMetricReadsIsNotAField(t *testing.T) {
	x := newExtractor(t, "format apache-combined\nwindow 1s\nmetric r count by=status\n")
	if x.Field("store") >= 0 {
		t.Errorf("fields %q", x.names)
	}
}
