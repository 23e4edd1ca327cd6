package cursor

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/timbertally/timbertally/lib/internal/store"
)

func TestAMissingCursorIsAFirstRun(t *testing.T) {
	c, err := LoadMarks(filepath.Join(t.TempDir(), "cursor"))
	if err != nil || len(c) != 0 {
		t.Fatalf("Load of a missing file = %v, %v; want an empty cursor", c, err)
	}
}

func TestSaveThenLoadGivesTheSamePositions(t *testing.T) {
	p := filepath.Join(t.TempDir(), "cursor")
	want := Marks{"web2": {Offset: 7}, "web1": {Offset: 186350}}
	if err := want.Save(p); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	if string(data) != "store id=web1 offset=186350\nstore id=web2 offset=7\n" {
		t.Fatalf("file = %q", data)
	}
	got, err := LoadMarks(p)
	if err != nil || len(got) != 2 || !sameMark(got["web1"], want["web1"]) || !sameMark(got["web2"], want["web2"]) {
		t.Fatalf("Load = %v, %v; want %v", got, err, want)
	}
}

func TestSaveReplacesTheFileWholeAndLeavesNoTempFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "cursor")
	if err := (Marks{"a": {Offset: 1}, "b": {Offset: 2}, "c": {Offset: 3}}).Save(p); err != nil {
		t.Fatal(err)
	}
	if err := (Marks{"a": {Offset: 10}}).Save(p); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	if string(data) != "store id=a offset=10\n" {
		t.Fatalf("file = %q, want only the new cursor", data)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("directory holds %d files, want the cursor alone", len(entries))
	}
}

func TestSaveGivesMode0644LessTheUmask(t *testing.T) {
	old := syscall.Umask(0o027)
	defer syscall.Umask(old)
	p := filepath.Join(t.TempDir(), "cursor")
	// A stale temp file of another mode must not leak its mode.
	if err := os.WriteFile(p+".tmp", []byte("junk"), 0o666); err != nil {
		t.Fatal(err)
	}
	if err := (Marks{"a": {Offset: 1}}).Save(p); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil || fi.Mode().Perm() != 0o640 {
		t.Fatalf("mode = %v, %v; want 0640 under umask 027", fi.Mode().Perm(), err)
	}
}

func TestUnknownKeysAreIgnored(t *testing.T) {
	p := filepath.Join(t.TempDir(), "cursor")
	os.WriteFile(p, []byte("store id=web1 offset=5 generation=3\n"), 0o644)
	c, err := LoadMarks(p)
	if err != nil || !sameMark(c["web1"], Mark{Offset: 5}) {
		t.Fatalf("Load = %v, %v; want web1 at 5", c, err)
	}
}

func TestAMalformedCursorIsAnErrorNotARestart(t *testing.T) {
	for name, text := range map[string]string{
		"garbage":      "hello\n",
		"torn":         "store id=web1 offset=18",
		"other kind":   "batch id=a offset=0 end=2 entries=1\n",
		"bad number":   "store id=web1 offset=-1\n",
		"duplicate id": "store id=a offset=1\nstore id=a offset=2\n",
		"empty line":   "store id=a offset=1\n\n",
		"half a gen":   "store id=a offset=1 gen=0 dev=1\n",
		"signed gen":   "store id=a offset=1 gen=-1 dev=1 ino=2 sig=0 siglen=0\n",
		"ino 0":        "store id=a offset=1 gen=0 dev=1 ino=0 sig=0 siglen=0\n",
		"long sig":     "store id=a offset=1 gen=0 dev=1 ino=2 sig=0 siglen=257\n",
		"wide sig":     "store id=a offset=1 gen=0 dev=1 ino=2 sig=123456789 siglen=4\n",
	} {
		p := filepath.Join(t.TempDir(), "cursor")
		os.WriteFile(p, []byte(text), 0o644)
		if c, err := LoadMarks(p); err == nil || !strings.Contains(err.Error(), "remove") {
			t.Errorf("%s: Load = %v, %v; want an error saying what to do", name, c, err)
		}
	}
}

func TestAnUnreadableCursorIsAnError(t *testing.T) {
	// A directory in the cursor's place cannot be read, even by root.
	if c, err := LoadMarks(t.TempDir()); err == nil {
		t.Fatalf("Load of a directory = %v, want an error", c)
	}
}

func TestAGenerationRoundTripsOnTheStoreLine(t *testing.T) {
	p := filepath.Join(t.TempDir(), "cursor")
	m := Mark{Offset: 900, Gen: store.Gen{Base: 700, Dev: 2049, Ino: 131077, Sig: 0xbeef, SigLen: 256}}
	if err := (Marks{"web1": m}).Save(p); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	if string(data) != "store id=web1 offset=900 gen=700 dev=2049 ino=131077 sig=0000beef siglen=256\n" {
		t.Fatalf("file = %q", data)
	}
	c, err := LoadMarks(p)
	if err != nil || !sameMark(c["web1"], m) {
		t.Fatalf("Load = %+v, %v; want %+v", c, err, m)
	}
}

func TestTheGenerationsOfAStoreNamedWithItsHistoryRoundTrip(t *testing.T) {
	p := filepath.Join(t.TempDir(), "cursor")
	m := Mark{Offset: 900, Gen: store.Gen{Base: 700, Dev: 2049, Ino: 131077, Sig: 0xbeef, SigLen: 256},
		Gens: []store.GenID{{Base: 0, SigLen: 256, Sig: 0xbadf00d}, {Base: 700, SigLen: 256, Sig: 0xbeef}, {Base: -1, SigLen: 12, Sig: 1}}}
	if err := (Marks{"web1": m}).Save(p); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	if want := "store id=web1 offset=900 gen=700 dev=2049 ino=131077 sig=0000beef siglen=256 hist=0:256:0badf00d,700:256:0000beef,-:12:00000001\n"; string(data) != want {
		t.Fatalf("file = %q, want %q", data, want)
	}
	c, err := LoadMarks(p)
	if err != nil || !sameMark(c["web1"], m) {
		t.Fatalf("Load = %+v, %v; want %+v", c, err, m)
	}
}

func TestABadHistGenerationIsAnErrorNotAFirstRun(t *testing.T) {
	p := filepath.Join(t.TempDir(), "cursor")
	for _, line := range []string{"hist=0:256", "hist=-2:1:0", "hist=0:257:0", "hist=0:1:zz", "hist=0:1:1,"} {
		os.WriteFile(p, []byte("store id=web1 offset=9 "+line+"\n"), 0o644)
		if c, err := LoadMarks(p); err == nil || !strings.Contains(err.Error(), "bad hist=") {
			t.Errorf("Load of %q = %+v, %v; want an error", line, c, err)
		}
	}
}

func TestACursorWithoutGenerationsStillLoads(t *testing.T) {
	p := filepath.Join(t.TempDir(), "cursor")
	os.WriteFile(p, []byte("store id=web1 offset=186350\n"), 0o644)
	c, err := LoadMarks(p)
	if err != nil || !sameMark(c["web1"], Mark{Offset: 186350}) || c["web1"].Gen.Known() {
		t.Fatalf("Load = %+v, %v; want web1 at 186350 with no generation", c, err)
	}
}

func TestLoadGivesThePositionsAlone(t *testing.T) {
	p := filepath.Join(t.TempDir(), "cursor")
	os.WriteFile(p, []byte("store id=web1 offset=900 gen=700 dev=2049 ino=131077 sig=0000beef siglen=256\n"), 0o644)
	c, err := Load(p)
	if err != nil || len(c) != 1 || c["web1"] != 900 {
		t.Fatalf("Load = %v, %v; want web1 at 900", c, err)
	}
}

// The seam (the bytes before the offset) survives a save and a load, and
// a half-given one is refused.
func TestTheSeamSurvivesASaveAndALoad(t *testing.T) {
	p := filepath.Join(t.TempDir(), "cursor")
	want := Marks{"q": {Offset: 900, Gen: store.Gen{Base: 0, Dev: 1, Ino: 2, Sig: 0xbeef, SigLen: 256}, Seam: store.Seam{Sig: 0xcafe, Len: 256}}}
	if err := want.Save(p); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	if !strings.HasSuffix(string(data), " seam=0000cafe seamlen=256\n") {
		t.Fatalf("file = %q, want the seam keys", data)
	}
	if got, err := LoadMarks(p); err != nil || !sameMark(got["q"], want["q"]) {
		t.Fatalf("Load = %v, %v; want %v", got, err, want)
	}
	if _, err := parse("c", []byte("store id=q offset=9 gen=0 dev=1 ino=2 sig=0000beef siglen=256 seam=0000cafe\n")); err == nil {
		t.Fatal("a seam= without seamlen= was accepted")
	}
}
