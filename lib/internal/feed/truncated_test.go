package feed

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// The copytruncate warning says what this truncation cost: the copy
// beside the path read whole, the copy's bytes feed had not read yet (with
// the re-derivation naming the copy), or no copy at all.
func TestTheCopytruncateWarningSaysWhatThisTruncationCost(t *testing.T) {
	for _, c := range []struct {
		name, copy string // the copy's content ("": none)
		want       string
	}{
		{"read whole", "first\nsecond\n", "(copytruncate; its copy is COPY): feed had read all of the copy; lines written between the copy and the truncate, if any, are in neither file"},
		{"not all read", "first\nsecond\nthird\n", "(copytruncate; its copy is COPY): the copy's last 6 bytes were written before the copy and not yet read by feed, and are not counted; to count them, re-derive, both steps in this order: tally --provision --replace --doc TALLYSTORE/document TALLYSTORE (the old tape is kept beside it), then feed --reset --cursor CURSOR s=COPY,PATH -- sh ack.sh"},
		{"no copy", "", "and no file beside PATH under a rotated name begins as it did"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var stderr bytes.Buffer
			cursor := t.TempDir() + "/c"
			f := openFeeder(t, "first\nsecond\n", func(o *Options) { o.Stderr, o.Cursor, o.Consumer = &stderr, cursor, []string{"sh", "ack.sh"} })
			t.Cleanup(f.cp.release)
			s := f.streams[0]
			cp := s.Path + ".1"
			if c.copy != "" {
				if err := os.WriteFile(cp, []byte(c.copy), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Truncate(s.Path, 0); err != nil {
				t.Fatal(err)
			}
			f.warnTruncated(s, s.r.Gens()[0], 13) // feed had read "first\nsecond\n"
			want := strings.NewReplacer("COPY", cp, "PATH", s.Path, "CURSOR", cursor).Replace(c.want)
			if !strings.Contains(stderr.String(), want) || strings.Count(stderr.String(), "\n") != 1 {
				t.Fatalf("the warning is\n%s\nwant one holding\n%s", stderr.String(), want)
			}
		})
	}
}
