package push

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// A backlog is read a bounded number of tape bytes at a time, whatever its
// groups' count, and every group is read once, whole, in order.
func TestABacklogIsReadInBoundedBytesEachReadEndingAtASeal(t *testing.T) {
	var text strings.Builder
	const groups = 200
	for i := range groups {
		b := fmt.Sprintf("2026-12-01T10:%02d:%02dZ", 10+i/6, i%6*10)
		for s := range 50 {
			fmt.Fprintf(&text, "%s requests{status=\"%d\"} %d\n", b, 200+s, i+s)
		}
		fmt.Fprintf(&text, "seal %s width=10s entries=%d\n", b, i)
	}
	dir := store(t, text.String())
	fl, err := openTape(filepath.Join(dir, "tape"))
	if err != nil {
		t.Fatal(err)
	}
	defer fl.Close()
	size, _ := fl.size()
	const bound = 64 << 10
	groupBytes := int64(text.Len()) / groups // every group is of about one size
	seen, reads := 0, 0
	for {
		from := fl.off
		gs, err := fl.read(size, bound)
		if err != nil {
			t.Fatal(err)
		}
		if len(gs) == 0 {
			break
		}
		reads++
		if got := fl.off - from; (got < bound && fl.off < size) || got >= bound+2*groupBytes { // the last read may be short
			t.Errorf("read %d took %d bytes, want the first seal at or past %d", reads, got, bound)
		}
		for _, g := range gs {
			if g.Seal.Entries != int64(seen) || len(g.Series) != 50 {
				t.Fatalf("group %d: entries=%d with %d series, want entries=%d with 50", seen, g.Seal.Entries, len(g.Series), seen)
			}
			seen++
		}
		if fl.off == size {
			break
		}
	}
	if seen != groups {
		t.Errorf("read %d groups, want %d", seen, groups)
	}
	if want := int(size / bound); reads < want {
		t.Errorf("%d reads of a %d-byte tape, want at least %d of at most about %d bytes", reads, size, want, bound)
	}
}
