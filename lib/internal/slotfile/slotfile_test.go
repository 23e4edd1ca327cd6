package slotfile

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/timbertally/timbertally/lib/internal/atomicfile"
)

func read(t *testing.T, path string) (string, uint64) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rec, seq, err := Read(data)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return string(rec), seq
}

// newWriter is a Writer at a file c in the test's temporary directory,
// closed when the test ends.
func newWriter(t *testing.T) (*Writer, string) {
	path := filepath.Join(t.TempDir(), "c")
	w := NewWriter(path)
	t.Cleanup(func() { w.Close() })
	return w, path
}

// save saves rec, and fails the test if it cannot.
func save(t *testing.T, w *Writer, rec string) {
	t.Helper()
	if err := w.Save([]byte(rec)); err != nil {
		t.Fatal(err)
	}
}

func ino(t *testing.T, path string) uint64 {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Sys().(*syscall.Stat_t).Ino
}

func TestEverySaveReadsBackAndAllButTheFirstWriteTheSameFileInPlace(t *testing.T) {
	w, path := newWriter(t)
	var first uint64
	for i := range 20 {
		rec := fmt.Sprintf("tgpush offset=%d labels=%s\n", i*1000, strings.Repeat("x", i))
		save(t, w, rec)
		if got, seq := read(t, path); got != rec || seq != uint64(i+1) {
			t.Fatalf("save %d read back %q seq %d", i, got, seq)
		}
		if i == 0 {
			first = ino(t, path)
		} else if now := ino(t, path); now != first {
			t.Fatalf("save %d replaced the file (inode %d, was %d): not written in place", i, now, first)
		}
		if st, _ := os.Stat(path); st.Size() != 2*sector {
			t.Fatalf("save %d: file of %d bytes, want two slots of %d", i, st.Size(), sector)
		}
	}
}

// A save cut off after any number of its bytes (a crash in the write, a
// torn sector) leaves the record before it or, once every changed byte is
// down, the new one: never a mix, never an error.
func TestASaveCutOffAtAnyByteReadsAsTheRecordBeforeItOrTheNewOne(t *testing.T) {
	w, path := newWriter(t)
	old := "tgpush offset=1000 bucket=2026-12-01T10:35:30Z\n"
	save(t, w, old)
	before, _ := os.ReadFile(path)
	neu := "tgpush offset=2345 bucket=2026-12-01T10:35:40Z\n"
	save(t, w, neu)
	after, _ := os.ReadFile(path)
	at := bytes.IndexFunc(after, func(rune) bool { return false }) // -1
	for i := range after {
		if after[i] != before[i] {
			at = i
			break
		}
	}
	if at < 0 {
		t.Fatal("the second save changed no byte")
	}
	slot := at / sector * sector
	olds, news := 0, 0
	for n := 0; n <= sector; n++ {
		torn := bytes.Clone(before)
		copy(torn[slot:slot+n], after[slot:slot+n])
		rec, _, err := Read(torn)
		switch {
		case err != nil:
			t.Fatalf("cut after %d bytes: %v", n, err)
		case string(rec) == old:
			olds++
		case string(rec) == neu && bytes.Equal(torn[slot:slot+sector], after[slot:slot+sector]):
			news++
		default:
			t.Fatalf("cut after %d bytes: read %q", n, rec)
		}
		// A sector spoiled in the middle: the other slot still reads.
		spoiled := bytes.Clone(torn)
		spoiled[slot+n%sector] ^= 0x55
		if rec, _, err := Read(spoiled); err != nil || string(rec) != old && string(rec) != neu {
			t.Fatalf("cut after %d bytes and a byte spoiled: %q %v", n, rec, err)
		}
	}
	if olds == 0 || news == 0 {
		t.Fatalf("%d cuts read the old record, %d the new: want both", olds, news)
	}
}

func TestBothSlotsSpoiledIsATornErrorNeverAnEmptyRecord(t *testing.T) {
	w, path := newWriter(t)
	save(t, w, "tgpush offset=1\n")
	data, _ := os.ReadFile(path)
	data[3] ^= 1
	data[sector+3] ^= 1
	if rec, _, err := Read(data); !errors.As(err, new(TornError)) {
		t.Fatalf("read %q, %v: want a TornError", rec, err)
	}
}

func TestARecordThatOutgrowsItsSlotsReplacesTheFileWithLargerOnes(t *testing.T) {
	w, path := newWriter(t)
	for _, n := range []int{10, 2000, 30, 5000} {
		rec := "r " + strings.Repeat("y", n) + "\n"
		save(t, w, rec)
		if got, _ := read(t, path); got != rec {
			t.Fatalf("record of %d read back as %d bytes", len(rec), len(got))
		}
	}
	if st, _ := os.Stat(path); st.Size() != 2*5120 {
		t.Fatalf("file of %d bytes, want two slots of 5120", st.Size())
	}
}

func TestAFileRemovedOrReplacedUnderTheWriterIsWrittenAgainWhole(t *testing.T) {
	w, path := newWriter(t)
	save(t, w, "a 1\n")
	os.Remove(path)
	save(t, w, "a 2\n")
	if got, _ := read(t, path); got != "a 2\n" {
		t.Fatalf("after a removal read %q", got)
	}
	if err := os.WriteFile(path+".new", []byte("other\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Rename(path+".new", path)
	save(t, w, "a 3\n")
	if got, _ := read(t, path); got != "a 3\n" {
		t.Fatalf("after a replacement read %q", got)
	}
}

func TestAFileNotInSlotsIsReadAsItIs(t *testing.T) {
	for _, s := range []string{"", "tgpush v=3 offset=1\n", "two\nlines\n", strings.Repeat("x", 511) + "\n" + strings.Repeat("y", 511) + "\n"} {
		rec, seq, err := Read([]byte(s))
		if s == strings.Repeat("x", 511)+"\n"+strings.Repeat("y", 511)+"\n" {
			if !errors.As(err, new(TornError)) {
				t.Errorf("two unsummed slots read as %q %v", rec, err)
			}
			continue
		}
		if err != nil || string(rec) != s || seq != 0 {
			t.Errorf("%q read as %q %d %v", s, rec, seq, err)
		}
	}
}

func FuzzRead(f *testing.F) {
	f.Add([]byte("tgpush v=3 offset=1\n"), "rec x=1", uint64(5))
	f.Fuzz(func(t *testing.T, data []byte, rec string, seq uint64) {
		Read(data) // never panics
		if strings.Contains(rec, "\n") {
			return
		}
		rec = strings.TrimRight(rec, " ")
		line := frame([]byte(rec), seq)
		slot := make([]byte, (len(line)+sector)/sector*sector)
		pad(slot, line)
		got, n, err := Read(append(bytes.Clone(slot), slot...))
		if err != nil || string(got) != rec+"\n" || n != seq {
			t.Fatalf("%q seq %d read back as %q seq %d: %v", rec, seq, got, n, err)
		}
	})
}

// BenchmarkASave saves a cursor's line in place (a Writer) and by
// replacing the file (atomicfile.WriteFile, as tgpush did before), in a
// directory on the disk under test (SLOTFILE_DIR, else the test's
// temporary one): a save's time is its flushes'.
func BenchmarkASave(b *testing.B) {
	dir := os.Getenv("SLOTFILE_DIR")
	if dir == "" {
		dir = b.TempDir()
	}
	line := []byte("tgpush v=3 offset=45975 dev=65024 ino=9978322 sig=e12ffae5 siglen=256 bucket=2026-12-01T21:16:00Z width=10s after=0 labels=host=web1 sends=buckets zeroed=0\n")
	b.Run("in-place", func(b *testing.B) {
		w := NewWriter(filepath.Join(dir, "bench-slots"))
		defer w.Close()
		for b.Loop() {
			if err := w.Save(line); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("replaced", func(b *testing.B) {
		for b.Loop() {
			if err := atomicfile.WriteFile(filepath.Join(dir, "bench-whole"), line); err != nil {
				b.Fatal(err)
			}
		}
	})
}
