package feed

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"
)

// A store at the end of its renamed file, the new one waiting for the
// drain: a note says so once, the progress line shows it draining, and no
// idle falls due (tally would seal the buckets of the new file's lines).
func TestAStoreDrainingItsRenamedFileSaysSoAndIsNotIdle(t *testing.T) {
	var stderr bytes.Buffer
	f := openFeeder(t, "a\n", func(o *Options) { o.Follow, o.RotateWait, o.Stderr = true, time.Hour, &stderr })
	s := f.streams[0]
	if err := f.prepare(); err != nil || !s.ready {
		t.Fatalf("the first line was not read: %v", err)
	}
	s.ready = false // sent and taken
	if err := os.Rename(s.Path, s.Path+".1"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.Path, []byte("new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		s.dry = false
		if err := f.prepare(); err != nil {
			t.Fatal(err)
		}
	}
	if s.ready {
		t.Fatalf("read %+v from the new file while the renamed one drains", s.next)
	}
	if n := strings.Count(stderr.String(), "is read on until it has been quiet for 1h0m0s"); n != 1 {
		t.Fatalf("the drain's note was printed %d times, want once:\n%s", n, stderr.String())
	}
	if text, _ := f.status(); !strings.Contains(text, "s 0 B behind, draining its renamed file") {
		t.Fatalf("the progress line is %q, want the store shown draining", text)
	}
	if _, due := f.clock.idleDue(s, f.led); due {
		t.Fatal("an idle falls due for a store that drains its renamed file")
	}
}
