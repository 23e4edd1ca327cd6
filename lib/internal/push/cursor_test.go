package push

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/timbertally/timbertally/lib/internal/slotfile"
	"github.com/timbertally/timbertally/lib/internal/tape"
)

func TestACursorReadsBackAsItWasSaved(t *testing.T) {
	c := Cursor{Offset: 45975, ID: identity{Dev: 65024, Ino: 9978322, Sig: 0xe12ffae5, SigLen: 256}, Bucket: 1796121330 * 1e9, Width: 10 * time.Second,
		After: 2, Labels: []tape.Label{{Name: "dc", Value: "eu, west=1"}, {Name: "host", Value: "web1"}}, Known: true, Sends: SendsCounters, Zeroed: true}
	path := filepath.Join(t.TempDir(), "c")
	w := slotfile.NewWriter(path) // the first save replaces the file, the second writes in place
	defer w.Close()
	if err := c.save(w); err != nil {
		t.Fatal(err)
	}
	got, ok, err := loadCursor(path)
	if err != nil || !ok || !reflect.DeepEqual(got, c) {
		t.Fatalf("read back %+v %v %v, want %+v", got, ok, err, c)
	}
	if want := "tgpush v=3 offset=45975 dev=65024 ino=9978322 sig=e12ffae5 siglen=256 bucket=2026-12-01T10:35:30Z width=10s after=2 labels=dc=eu%2C+west%3D1,host=web1 sends=counters zeroed=1\n"; string(c.format()) != want {
		t.Errorf("format %q, want %q", c.format(), want)
	}
	c.From = 1796121340 * 1e9
	if err := c.save(w); err != nil {
		t.Fatal(err)
	}
	if got, _, err := loadCursor(path); err != nil || !reflect.DeepEqual(got, c) || !strings.HasSuffix(string(c.format()), " from=2026-12-01T10:35:40Z\n") {
		t.Fatalf("read back %+v %v from %q, want %+v", got, err, c.format(), c)
	}
}

func TestADamagedCursorIsAnErrorNeverAFreshStart(t *testing.T) {
	for _, text := range []string{
		"",
		"tgpush v=1 offset=1 dev=1 ino=1 sig=0 siglen=0 bucket=2026-12-01T10:35:30Z width=10s", // torn: no newline
		"tgpush v=2 offset=1 dev=1 ino=1 sig=0 siglen=0 bucket=2026-12-01T10:35:30Z width=10s\n",
		"tgpush v=3 offset=1 dev=1 ino=1 sig=0 siglen=0 bucket=2026-12-01T10:35:30Z width=10s after=0 labels=\n",
		"tgpush v=3 offset=1 dev=1 ino=1 sig=0 siglen=0 bucket=2026-12-01T10:35:30Z width=10s after=0 labels= sends=gauges zeroed=0\n",
		"tgpush v=3 offset=1 dev=1 ino=1 sig=0 siglen=0 bucket=2026-12-01T10:35:30Z width=10s after=0 labels= sends=otlp zeroed=2\n",
		"tgpush v=4 offset=1 dev=1 ino=1 sig=0 siglen=0 bucket=2026-12-01T10:35:30Z width=10s after=0 labels= sends=otlp zeroed=0\n",
		"tgpush v=2 offset=1 dev=1 ino=1 sig=0 siglen=0 bucket=2026-12-01T10:35:30Z width=10s after=-1 labels=\n",
		"tgpush v=2 offset=1 dev=1 ino=1 sig=0 siglen=0 bucket=2026-12-01T10:35:30Z width=10s after=0 labels=host\n",
		"tgpush v=1 offset=-1 dev=1 ino=1 sig=0 siglen=0 bucket=2026-12-01T10:35:30Z width=10s\n",
		"tgpush v=1 dev=1 offset=1 ino=1 sig=0 siglen=0 bucket=2026-12-01T10:35:30Z width=10s\n",
		"tgpush v=1 offset=1 dev=1 ino=1 sig=0 siglen=999 bucket=2026-12-01T10:35:30Z width=10s\n",
		"tgpush v=1 offset=1 dev=1 ino=1 sig=0 siglen=0 bucket=2026-12-01T10:35:30Z width=10s from=soon\n",
		"tgpush v=1 offset=1 dev=1 ino=1 sig=0 siglen=0 bucket=2026-12-01T10:35:30Z width=10s to=2026-12-01T10:35:30Z\n",
	} {
		if _, err := parseCursor(text); err == nil {
			t.Errorf("%q parsed", text)
		}
	}
}

func FuzzParseCursor(f *testing.F) {
	f.Add("tgpush v=1 offset=45975 dev=65024 ino=9978322 sig=e12ffae5 siglen=256 bucket=2026-12-01T10:35:30Z width=10s\n")
	f.Add("tgpush v=2 offset=1 dev=1 ino=1 sig=0 siglen=0 bucket=2026-12-01T10:35:30Z width=10s after=3 labels=host=a%2Cb\n")
	f.Add("tgpush v=3 offset=1 dev=1 ino=1 sig=0 siglen=0 bucket=2026-12-01T10:35:30Z width=10s after=3 labels=host=a%2Cb sends=counters zeroed=1 from=2026-12-01T10:35:30Z\n")
	f.Add("tgpush v=1 offset=0 dev=0 ino=0 sig=0 siglen=0 bucket=1970-01-01T00:00:00Z width=0s\n")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := parseCursor(s)
		if err != nil {
			return
		}
		// What parses formats to a line that parses to the same cursor.
		again, err := parseCursor(string(c.format()))
		if err != nil || string(again.format()) != string(c.format()) {
			t.Fatalf("%q: %+v formats to %q, which reads %+v %v", s, c, c.format(), again, err)
		}
		if !strings.HasSuffix(string(c.format()), "\n") {
			t.Fatal("no newline")
		}
	})
}

func FuzzParseLabels(f *testing.F) {
	f.Add("host=web1", "dc=eu")
	f.Add("__name__=x", "a=")
	f.Fuzz(func(t *testing.T, a, b string) {
		ls, err := ParseLabels([]string{a, b})
		if err != nil {
			return
		}
		// What is taken is two distinct, valid names, sorted, with their
		// values, none empty (Prometheus would drop it) and all UTF-8.
		if len(ls) != 2 || ls[0].Name >= ls[1].Name || strings.HasPrefix(ls[0].Name, "__") ||
			ls[0].Value == "" || ls[1].Value == "" || !utf8.ValidString(ls[0].Value+ls[1].Value) {
			t.Fatalf("%q %q gave %+v", a, b, ls)
		}
		for _, l := range ls {
			if !strings.HasPrefix(a, l.Name+"="+l.Value) && !strings.HasPrefix(b, l.Name+"="+l.Value) {
				t.Fatalf("%q %q gave %+v", a, b, ls)
			}
		}
	})
}

func FuzzHeaders(f *testing.F) {
	f.Add("X-Scope-OrgID=web")
	f.Add("X-Api-Key=hunter2")
	f.Add("X-Scope-OrgID=a\nb")
	f.Fuzz(func(t *testing.T, h string) {
		hs, err := headers([]string{h})
		if err != nil {
			// Only the name, before any = : or space, may be quoted.
			if name := h[:strings.IndexAny(h+"=", "=: ")]; strings.Contains(err.Error(), "hunter2") && !strings.Contains(name, "hunter2") {
				t.Fatalf("%q: the secret is in %v", h, err)
			}
			return
		}
		// What is taken is a header HTTP carries, and no credential.
		k, v := hs[0][0], hs[0][1]
		if k+"="+v != h || !validHeaderName(k) || credentialHeader(k) || strings.ContainsAny(v, "\r\n\x00") {
			t.Fatalf("%q gave %q", h, hs)
		}
	})
}

// The cursor is saved in place after each group; a power cut that tears
// the last save leaves the save before it, and the next run re-sends the
// one group after that: each series' newest sample again, which a
// receiver takes as a duplicate. Both saves torn is a damaged cursor,
// never a fresh start.
func TestACursorWhoseLastSaveWasTornResumesAtTheGroupBeforeAndReSendsOnlyThatGroup(t *testing.T) {
	f := newFake(t, nil)
	dir := store(t, threeGroups)
	if code, stderr := tgpush(context.Background(), "--once", "--url", f.url(), dir); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	sent := func() []string { // every sample answered 2xx, duplicates kept
		f.mu.Lock()
		defer f.mu.Unlock()
		return slices.Clone(f.samples)
	}
	first := sent()
	path := DefaultCursor(dir, f.url())
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, seq, err := slotfile.Read(data)
	if err != nil || seq < 3 {
		t.Fatalf("cursor after three groups: seq %d, %v (want a save a group, the last ones in slots)", seq, err)
	}
	newest := 0
	if seq%2 == 1 {
		newest = len(data) / 2
	}
	torn := bytes.Clone(data)
	copy(torn[newest+20:], "\x00\x00\x00") // a sector half written
	if err := os.WriteFile(path, torn, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, stderr := tgpush(context.Background(), "--once", "--url", f.url(), dir); code != 0 {
		t.Fatalf("after a torn save: exit %d: %s", code, stderr)
	}
	again := sent()[len(first):]
	stamp := func(s string) string { return strings.Fields(s)[1] }
	last := slices.MaxFunc(first, func(a, b string) int { return strings.Compare(stamp(a), stamp(b)) })
	var want []string
	for _, s := range first {
		if stamp(s) == stamp(last) {
			want = append(want, s)
		}
	}
	slices.Sort(want)
	slices.Sort(again)
	if len(want) == 0 || !slices.Equal(again, want) {
		t.Fatalf("after a torn save the receiver got %q, want the last group again: %q", again, want)
	}
	data, _ = os.ReadFile(path)
	torn = bytes.Clone(data)
	torn[20], torn[len(data)/2+20] = '#', '#'
	os.WriteFile(path, torn, 0o644)
	code, stderr := tgpush(context.Background(), "--once", "--url", f.url(), dir)
	if code != 1 || !strings.Contains(stderr, "is damaged (neither of its two slots is whole") || !strings.Contains(stderr, "--from") {
		t.Fatalf("both slots torn: exit %d: %s", code, stderr)
	}
}
