package push

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
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

// bigTape is a tape of a small group, a group of n series with two markers,
// then a small group; big is where the big group begins and ends.
func bigTape(n int) (text string, bigStart, bigEnd int) {
	var b strings.Builder
	b.WriteString("2026-12-01T10:00:00Z requests{status=\"200\"} 1\nseal 2026-12-01T10:00:00Z width=10s entries=1\n")
	bigStart = b.Len()
	b.WriteString("!drop id=web offset=0 end=10 count=2 reason=format\n")
	for s := range n {
		fmt.Fprintf(&b, "2026-12-01T10:00:10Z requests{path=\"/p/%06d\"} %d\n", s, s+1)
	}
	b.WriteString("!cap 2026-12-01T10:00:10Z metric=requests id=web offset=10 end=20 count=3\n")
	b.WriteString("seal 2026-12-01T10:00:10Z width=10s entries=7\n")
	bigEnd = b.Len()
	b.WriteString("2026-12-01T10:00:20Z requests{status=\"200\"} 3\nseal 2026-12-01T10:00:20Z width=10s entries=3\n")
	return b.String(), bigStart, bigEnd
}

// A group larger than the bound is read alone, in parts of about the bound
// each: every series once, in order, each part with the group's seal for
// its stamp, the markers with the last part only, and the offset moved
// past the group only by its last part.
func TestAGroupLargerThanTheBoundIsReadInPartsAndTheOffsetMovesOnlyWithTheLast(t *testing.T) {
	const n, bound = 5000, 32 << 10
	text, bigStart, bigEnd := bigTape(n)
	fl, err := openTape(filepath.Join(store(t, text), "tape"))
	if err != nil {
		t.Fatal(err)
	}
	defer fl.Close()
	fl.stream = true
	size, _ := fl.size()
	gs, err := fl.read(size, bound)
	if err != nil || len(gs) != 1 || gs[0].Seal.Entries != 1 || fl.off != int64(bigStart) {
		t.Fatalf("first read: %d groups, offset %d, %v; want the small group alone, offset %d", len(gs), fl.off, err, bigStart)
	}
	next, parts := 0, 0
	for {
		gs, err := fl.read(size, bound)
		if err != nil || len(gs) != 1 {
			t.Fatalf("part %d: %d groups, %v; want one", parts, len(gs), err)
		}
		g := gs[0]
		parts++
		if g.Seal.Entries != 7 || g.Seal.Start != time.Date(2026, 12, 1, 10, 0, 10, 0, time.UTC).UnixNano() {
			t.Fatalf("part %d has the seal %+v, want the big group's", parts, g.Seal)
		}
		bytes := 0
		for _, s := range g.Series {
			if want := fmt.Sprintf("/p/%06d", next); s.Labels[0].Value != want {
				t.Fatalf("part %d: series %s, want %s", parts, s.Labels[0].Value, want)
			}
			next++
			bytes += len(fmt.Sprintf("2026-12-01T10:00:10Z requests{path=\"%s\"} %v\n", s.Labels[0].Value, s.Value))
		}
		if bytes > bound+100 { // the line that passes the bound is the part's last
			t.Errorf("part %d holds about %d bytes of series, over the bound %d", parts, bytes, bound)
		}
		if g.Part {
			if len(g.Markers) != 0 || fl.off != int64(bigStart) {
				t.Fatalf("part %d: %d markers, offset %d; want none and the offset still at %d", parts, len(g.Markers), fl.off, bigStart)
			}
			continue
		}
		if len(g.Markers) != 2 || g.End != int64(bigEnd) || fl.off != int64(bigEnd) {
			t.Fatalf("last part: %d markers, End %d, offset %d; want 2, and %d for both", len(g.Markers), g.End, fl.off, bigEnd)
		}
		break
	}
	if next != n || parts < 4 {
		t.Errorf("%d series in %d parts, want %d in at least 4", next, parts, n)
	}
	if gs, err := fl.read(size, bound); err != nil || len(gs) != 1 || gs[0].Seal.Entries != 3 || gs[0].Part {
		t.Errorf("after the big group: %+v, %v; want the last small group whole", gs, err)
	}
}

// A big group whose seal is not written yet is not read (nor any part of
// it); once its seal is, it is read in parts.
func TestABigGroupNotSealedYetWaitsForItsSeal(t *testing.T) {
	text, bigStart, bigEnd := bigTape(3000)
	dir := store(t, text[:bigEnd-20]) // the seal's line torn
	fl, err := openTape(filepath.Join(dir, "tape"))
	if err != nil {
		t.Fatal(err)
	}
	defer fl.Close()
	fl.stream = true
	size, _ := fl.size()
	if gs, _ := fl.read(size, 16<<10); len(gs) != 1 {
		t.Fatalf("the first read gave %d groups, want the small one", len(gs))
	}
	if gs, err := fl.read(size, 16<<10); len(gs) != 0 || err != nil || fl.off != int64(bigStart) {
		t.Fatalf("the unsealed big group gave %d groups (%v), offset %d; want none at %d", len(gs), err, fl.off, bigStart)
	}
	appendTape(t, dir, text[bigEnd-20:])
	size, _ = fl.size()
	seen := 0
	for fl.off < int64(bigEnd) {
		gs, err := fl.read(size, 16<<10)
		if err != nil || len(gs) != 1 {
			t.Fatalf("%d groups, %v", len(gs), err)
		}
		seen += len(gs[0].Series)
	}
	if seen != 3000 {
		t.Errorf("read %d series of the sealed big group, want 3000", seen)
	}
}
