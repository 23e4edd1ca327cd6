package label

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// --label flags come back sorted by name; each mistake is refused with
// what to give instead, starting with the command's name.
func TestParseFlagsSortsAndRefusesEachMistakeSayingWhatToGive(t *testing.T) {
	ls, err := ParseFlags("tgpush", []string{"host=web1", "dc=eu"})
	if err != nil || len(ls) != 2 || ls[0].Name != "dc" || ls[1].Value != "web1" {
		t.Fatalf("ParseFlags = %+v, %v", ls, err)
	}
	for arg, want := range map[string]string{
		"host":       "is not NAME=VALUE",
		"__name__=x": "not starting with __",
		"host=":      "give a value (host=web1)",
		"host=\xff":  "not UTF-8",
	} {
		if _, err := ParseFlags("tgpush", []string{arg}); err == nil || !strings.HasPrefix(err.Error(), "tgpush: ") || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want an error containing %q", arg, err, want)
		}
	}
	if _, err := ParseFlags("tgread", []string{"a=1", "a=2"}); err == nil || !strings.Contains(err.Error(), "given twice") {
		t.Errorf("a label given twice: %v", err)
	}
}

// A shown value names one value only: a byte that is not UTF-8 and the
// text of its escape never show alike.
func TestShownTellsAnInvalidByteFromTheTextOfItsEscape(t *testing.T) {
	for v, want := range map[string]string{"web1": "web1", "a\xffb": `a\xffb`, `a\xffb`: `a\\xffb`} {
		if got := Shown(v); got != want {
			t.Errorf("Shown(%q) = %q, want %q", v, got, want)
		}
	}
}

// Shown's one-pass check gives what its rule says: the value itself when
// it is UTF-8 without a backslash, else AppendShown's escape of it.
func FuzzShownIsTheValueOrItsEscape(f *testing.F) {
	for _, s := range []string{"", "/x", `a\b`, "é", "\xff", "ok\x80", "日本"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		want := v
		if !utf8.ValidString(v) || strings.Contains(v, `\`) {
			want = string(AppendShown(nil, v, 0))
		}
		if got := Shown(v); got != want {
			t.Fatalf("Shown(%q) = %q, want %q", v, got, want)
		}
	})
}
