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
