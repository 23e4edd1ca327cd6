package tape

import (
	"os"
	"path/filepath"
	"testing"
)

// Torn says what OpenWriter would cut (a torn line, then a group without
// its seal) and leaves the file as it is, so that a caller can refuse the
// run before anything changes; OpenWriter then cuts exactly that.
func TestTornSaysWhatOpenWriterCutsAndChangesNothing(t *testing.T) {
	p := filepath.Join(t.TempDir(), "tape")
	whole := "2026-10-10T13:55:30Z requests 4\nseal 2026-10-10T13:55:30Z width=10s entries=4\n"
	tail := "2026-10-10T13:55:40Z requests 2\nseal 2026-10-1"
	os.WriteFile(p, []byte(whole+tail), 0o644)
	torn, size, err := Torn(p)
	if err != nil || string(torn) != tail || size != int64(len(whole)) {
		t.Fatalf("Torn = %q, %d, %v; want %q, %d", torn, size, err, tail, len(whole))
	}
	if b, _ := os.ReadFile(p); string(b) != whole+tail {
		t.Fatalf("Torn changed the tape: %q", b)
	}
	w, cut, err := OpenWriter(p)
	if err != nil || string(cut) != tail || w.Size() != size {
		t.Fatalf("OpenWriter cut %q (size %d), %v", cut, w.Size(), err)
	}
	w.Close()
	if torn, size, err := Torn(filepath.Join(t.TempDir(), "none")); torn != nil || size != 0 || err != nil {
		t.Fatalf("a missing tape: %q %d %v", torn, size, err)
	}
}
