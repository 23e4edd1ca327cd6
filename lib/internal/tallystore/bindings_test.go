package tallystore

import (
	"fmt"
	"testing"
)

func FuzzParseBindings(f *testing.F) {
	f.Add([]byte("tape dev=2049 ino=131077 size=9120\ndoc crc=5d41402a\nstore id=web1 offset=0 gen=0 sig=30d022ed siglen=256\n"))
	f.Add([]byte("tape dev=1 ino=2 size=9\nstore id=web2 offset=98304 gen=0 sig=5c1f00e7 siglen=256 from=end\n"))
	f.Add([]byte("tape dev=1 ino=2 size=0\n"))
	f.Add([]byte("tape dev=1 ino=2 size=0\ncursor path=/a%20b\nstore id=w offset=0 gen=0 sig=30d022ed siglen=2 spec=w=/x,/y\n"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, text []byte) {
		b, err := ParseBindings("b", text)
		if err != nil {
			return
		}
		again, err := ParseBindings("b", b.Format())
		if err != nil {
			t.Fatalf("%q formats to %q, which does not parse: %v", text, b.Format(), err)
		}
		if fmt.Sprint(again.Format()) != fmt.Sprint(b.Format()) {
			t.Fatalf("%q: %q reads back as %q", text, b.Format(), again.Format())
		}
	})
}
