package cursor

import (
	"bytes"
	"slices"
	"testing"
)

func sameMark(a, b Mark) bool {
	return a.Offset == b.Offset && a.Gen == b.Gen && a.Seam == b.Seam && slices.Equal(a.Gens, b.Gens)
}

// FuzzParse: whatever parses formats back to text that parses to the same
// marks, so a cursor survives a save and a load.
func FuzzParse(f *testing.F) {
	f.Add([]byte("store id=web1 offset=186350\n"))
	f.Add([]byte("store id=a offset=9 gen=7 dev=1 ino=2 sig=0000beef siglen=256\nstore id=b offset=0\n"))
	f.Add([]byte("store id=a offset=1 gen=0 dev=1\n"))
	f.Add([]byte("store id=a offset=9 gen=0 dev=1 ino=2 sig=0000beef siglen=256 seam=0000cafe seamlen=9\n"))
	f.Add([]byte("store id=a offset=1 generation=3 sig=zz\n"))
	f.Add([]byte("store id=a offset=9 gen=7 dev=1 ino=2 sig=0000beef siglen=256 hist=0:256:0badf00d,7:12:0000beef,-:0:00000000\n"))
	f.Add([]byte("store id=a offset=9 hist=x:1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := parse("cursor", data)
		if err != nil {
			return
		}
		text := m.Format()
		again, err := parse("cursor", text)
		if err != nil {
			t.Fatalf("formatted cursor %q does not parse: %v", text, err)
		}
		if !bytes.Equal(again.Format(), text) || len(again) != len(m) {
			t.Fatalf("round trip of %q: %v, want %v", data, again, m)
		}
		for id, mark := range m {
			if !sameMark(again[id], mark) {
				t.Fatalf("store %s: %+v after the round trip, want %+v", id, again[id], mark)
			}
		}
	})
}
