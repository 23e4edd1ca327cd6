package tallystore

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestARemakeNamesWhatIsKnownAndSaysWhatIsNot(t *testing.T) {
	known := Remake{Dir: "t", Cursor: "/c", Stores: []string{"web=/a b.log"}}
	if got, want := known.String(), "tally --provision --replace --doc t/document t (the old tape is kept beside it), then feed --reset --cursor /c 'web=/a b.log' -- tally --run t"; got != want {
		t.Errorf("known: %q\nwant %q", got, want)
	}
	if got, want := known.ResumeText(), "feed --cursor /c 'web=/a b.log' -- tally --run t"; got != want {
		t.Errorf("resume: %q, want %q", got, want)
	}
	if steps := known.Steps(); len(steps) != 2 || !slices.Equal(steps[1], []string{"feed", "--reset", "--cursor", "/c", "web=/a b.log", "--", "tally", "--run", "t"}) {
		t.Errorf("steps: %q", steps)
	}
	unknown := Remake{Dir: "t"}
	if got, want := unknown.ReplayText(), "feed --reset --cursor FILE STORE... -- tally --run t (its cursor and stores as before)"; got != want || unknown.Known() {
		t.Errorf("unknown: %q (known %v), want %q", got, unknown.Known(), want)
	}
	fed := Remake{Dir: "t", Feed: []string{"feed", "--reset", "--follow", "--glob", "/var/log/*.log", "--", "tally", "--run", "t"}}
	if got, want := fed.ResumeText(), "feed --follow --glob '/var/log/*.log' -- tally --run t"; got != want {
		t.Errorf("feed's own: %q, want %q", got, want)
	}
}

// The cursor and stores a store's bindings recorded are named even when
// the bindings are another tape file's (a tape rewritten by hand).
func TestRemakeOfReadsTheBindingsOfAnotherTapeFileToo(t *testing.T) {
	dir := t.TempDir()
	text := "tape dev=1 ino=2 size=0\ncursor path=/var/lib/c\nstore id=w offset=0 gen=0 sig=30d022ed siglen=2 spec=w=/x.1,/x\n"
	if err := os.WriteFile(filepath.Join(dir, "bindings"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	r := RemakeOf(dir)
	if r.Cursor != "/var/lib/c" || !slices.Equal(r.Stores, []string{"w=/x.1,/x"}) {
		t.Fatalf("RemakeOf = %+v", r)
	}
}
