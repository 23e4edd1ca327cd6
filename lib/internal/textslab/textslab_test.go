package textslab

import (
	"bytes"
	"testing"
)

// Every string keeps the bytes it was made of, however the buffer they
// came from changes and however many slabs follow it.
func TestStringsKeepTheirBytesWhileTheSourceChangesAndSlabsFill(t *testing.T) {
	var s Slab
	src := make([]byte, 0, 3000)
	var got []string
	var want [][]byte
	for i := range 5000 {
		src = append(src[:0], bytes.Repeat([]byte{byte('a' + i%26)}, i%3000)...)
		got = append(got, s.String(src))
		want = append(want, bytes.Clone(src))
		clear(src[:cap(src)]) // the caller's buffer reused, as a reader's is
	}
	for i := range got {
		if got[i] != string(want[i]) {
			t.Fatalf("string %d changed: %d bytes, want %d", i, len(got[i]), len(want[i]))
		}
	}
}

func TestAnEmptyStringTakesNoRoom(t *testing.T) {
	var s Slab
	if s.String(nil) != "" || s.String([]byte{}) != "" || cap(s.b) != 0 {
		t.Fatal("an empty string took a slab")
	}
}

// An Arena's strings keep their bytes until Rewind; after it the same
// slabs take the next strings, without an allocation; a string longer
// than a slab is its own.
func TestAnArenasStringsStayUntilRewindAndItsSlabsAreThenUsedAgain(t *testing.T) {
	var a Arena
	var src [][]byte
	for i := range 2000 {
		src = append(src, bytes.Repeat([]byte{byte('a' + i%20)}, i%3000))
	}
	got := make([]string, len(src))
	fill := func() {
		for i, b := range src {
			got[i] = a.String(b)
		}
	}
	check := func() {
		for i := range got {
			if got[i] != string(src[i]) {
				t.Fatalf("string %d changed before a rewind", i)
			}
		}
	}
	fill()
	check()
	a.Rewind()
	slabs := len(a.slabs)
	if allocs := testing.AllocsPerRun(3, func() { fill(); a.Rewind() }); allocs != 0 {
		t.Errorf("%.0f allocations a rewound fill", allocs)
	}
	fill()
	check()
	if len(a.slabs) != slabs {
		t.Errorf("%d slabs after rewound fills, want the first fill's %d", len(a.slabs), slabs)
	}
	long := bytes.Repeat([]byte("z"), MaxSize+1)
	a.Rewind()
	if s := a.String(long); s != string(long) || a.used != 0 {
		t.Errorf("a string longer than a slab took the arena's slabs (%d used)", a.used)
	}
}
