package shell

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

func TestAJoinedCommandLineReadsBackInShWordForWord(t *testing.T) {
	argv := []string{"feed", "--cursor", "/var/lib/my cursor", "web=a.log.1,a.log", "it's", "", "$HOME", "*.log", "a\"b", "tab\there"}
	out, err := exec.Command("sh", "-c", `for w in `+Join(argv)+`; do printf '%s\n' "[$w]"; done`).Output()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
		got = append(got, strings.TrimSuffix(strings.TrimPrefix(l, "["), "]"))
	}
	if !slices.Equal(got, argv) {
		t.Fatalf("sh read %q back as %q", Join(argv), got)
	}
	if Quote("/var/log/a.log") != "/var/log/a.log" {
		t.Errorf("a plain path is quoted: %s", Quote("/var/log/a.log"))
	}
}

func FuzzQuoteReadsBackInSh(f *testing.F) {
	f.Add("it's a 'test'")
	f.Fuzz(func(t *testing.T, w string) {
		if strings.ContainsRune(w, 0) || !utf8Valid(w) {
			return // sh cannot hold a NUL in a word
		}
		out, err := exec.Command("sh", "-c", `printf '%s' `+Quote(w)).Output()
		if err != nil || string(out) != w {
			t.Fatalf("Quote(%q) = %s, sh read %q, %v", w, Quote(w), out, err)
		}
	})
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }
