package push

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/timbertally/timbertally/lib/internal/tape"
)

func TestACursorReadsBackAsItWasSaved(t *testing.T) {
	c := Cursor{Offset: 45975, ID: identity{Dev: 65024, Ino: 9978322, Sig: 0xe12ffae5, SigLen: 256}, Bucket: 1796121330 * 1e9, Width: 10 * time.Second,
		After: 2, Labels: []tape.Label{{Name: "dc", Value: "eu, west=1"}, {Name: "host", Value: "web1"}}, Known: true, Sends: SendsCounters, Zeroed: true}
	path := filepath.Join(t.TempDir(), "c")
	if err := c.save(path); err != nil {
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
	if err := c.save(path); err != nil {
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
