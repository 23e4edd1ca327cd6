package doc

import (
	"slices"
	"strings"
	"testing"
)

func TestAKeyPathNamesAKeyHoldingADotByEscapingIt(t *testing.T) {
	for path, want := range map[string][]string{
		"status":                        {"status"},
		"request.headers.User-Agent.0":  {"request", "headers", "User-Agent", "0"},
		`hosts.hg\.nginx\.org.requests`: {"hosts", "hg.nginx.org", "requests"},
		`a\\b.c`:                        {`a\b`, "c"},
		`a\\.b`:                         {`a\`, "b"},
	} {
		got, err := SplitKeyPath(path)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("SplitKeyPath(%q) = %q, %v; want %q", path, got, err, want)
		}
	}
	for _, bad := range []string{"a..b", ".a", "a.", `a\b`, `a\`, ""} {
		if got, err := SplitKeyPath(bad); err == nil {
			t.Errorf("SplitKeyPath(%q) = %q, want an error", bad, got)
		}
	}
}

func FuzzKeyPathsReadBackAsWritten(f *testing.F) {
	f.Add("hg.nginx.org", `a\b`)
	f.Fuzz(func(t *testing.T, a, b string) {
		keys := []string{a, b}
		if a == "" || b == "" {
			return
		}
		got, err := SplitKeyPath(JoinKeyPath(keys))
		if err != nil || !slices.Equal(got, keys) {
			t.Fatalf("%q written %q reads back as %q, %v", keys, JoinKeyPath(keys), got, err)
		}
		if p := strings.Join(keys, "."); !strings.Contains(p, `\`) {
			if got, err := SplitKeyPath(p); err == nil && len(got) < 2 {
				t.Fatalf("%q split into %q", p, got)
			}
		}
	})
}
