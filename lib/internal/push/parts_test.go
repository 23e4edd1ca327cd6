package push

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// heldTape: a small 1s group, then held marker-only groups (more than the
// bucket's ms), a big group (n series), a small group.
func heldTape(n, markerGroups int) string {
	var b strings.Builder
	b.WriteString("2026-12-01T10:00:00Z requests{status=\"200\"} 1\nseal 2026-12-01T10:00:00Z width=1s entries=1\n")
	off := 100
	for k := range markerGroups {
		fmt.Fprintf(&b, "!drop id=web offset=%d end=%d count=%d reason=format\nend at=web:%d\n", off, off+10, k%3+1, off+10)
		off += 10
	}
	b.WriteString("!late 2026-12-01T10:00:00Z id=web offset=1 end=20 count=5\n")
	for s := range n {
		fmt.Fprintf(&b, "2026-12-01T10:00:01Z requests{path=\"/p/%06d\"} %d\n", s, s+1)
	}
	b.WriteString("!cap 2026-12-01T10:00:01Z metric=requests id=web offset=10 end=20 count=3\n")
	b.WriteString("seal 2026-12-01T10:00:01Z width=1s entries=7\n")
	b.WriteString("2026-12-01T10:00:02Z requests{status=\"200\"} 3\nseal 2026-12-01T10:00:02Z width=1s entries=3\n")
	return b.String()
}

func sentSamples(t *testing.T, dir string) []string {
	var out []string
	err := Sent(dir, nil, func(g SentGroup) error {
		for _, ts := range g.Series {
			for _, s := range ts.Samples {
				out = append(out, fmt.Sprintf("%s %d %v", seriesText(ts.Labels), s.Timestamp, s.Value))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Marker-only groups held before a group sent in parts (more of them than
// the bucket has milliseconds) go with its last part: the receiver takes
// exactly what Sent (tgcheck --receiver's expectation, which reads groups
// whole) says is sent.
func TestHeldMarkerGroupsBeforeAGroupSentInPartsGoWithItsLastPartAsSentSays(t *testing.T) {
	for _, mg := range []int{5, 1003} {
		t.Run(fmt.Sprint(mg), func(t *testing.T) {
			dir := store(t, heldTape(45000, mg))
			want := sentSamples(t, dir)
			f := newFake(t, nil)
			if code, stderr := tgpush(context.Background(), "--once", "--max-samples", "7000", "--url", f.url(), dir); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			got := f.got()
			if !slices.Equal(got, want) {
				t.Errorf("got %d samples, Sent says %d", len(got), len(want))
				for _, s := range got {
					if !slices.Contains(want, s) && !strings.Contains(s, "/p/") {
						t.Logf("extra %s", s)
					}
				}
				for _, s := range want {
					if !slices.Contains(got, s) && !strings.Contains(s, "/p/") {
						t.Logf("missing %s", s)
					}
				}
			}
			if f.mixed {
				t.Error("requests of two groups were in flight at once")
			}
		})
	}
}
