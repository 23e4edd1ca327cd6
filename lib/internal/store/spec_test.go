package store

import (
	"slices"
	"strings"
	"testing"
)

func TestParseSpecNamesAStoreByItsBaseNameOrByID(t *testing.T) {
	for _, tc := range []struct{ arg, id, path string }{
		{"/var/log/access.log", "access.log", "/var/log/access.log"},
		{"web1=/var/log/access.log", "web1", "/var/log/access.log"},
		{"/tmp/a=b/x.log", "x.log", "/tmp/a=b/x.log"},
		{"/tmp/a,b/x.log", "x.log", "/tmp/a,b/x.log"},
	} {
		s, err := ParseSpec(tc.arg)
		if err != nil || s.ID != tc.id || s.Path != tc.path || len(s.History) != 0 {
			t.Errorf("ParseSpec(%q) = %+v, %v; want %q, %q", tc.arg, s, err, tc.id, tc.path)
		}
	}
}

func TestParseSpecReadsTheOlderGenerationsOldestFirst(t *testing.T) {
	s, err := ParseSpec("web=a.log.3.gz,a.log.2.gz,a.log.1,a.log")
	if err != nil {
		t.Fatal(err)
	}
	if s.ID != "web" || s.Path != "a.log" || !slices.Equal(s.History, []string{"a.log.3.gz", "a.log.2.gz", "a.log.1"}) {
		t.Fatalf("ParseSpec = %+v", s)
	}
	if got := s.Files(); !slices.Equal(got, []string{"a.log.3.gz", "a.log.2.gz", "a.log.1", "a.log"}) {
		t.Fatalf("Files() = %q", got)
	}
}

func TestParseSpecRefusesWhatCannotBeAnID(t *testing.T) {
	for _, arg := range []string{"", "/logs/a b.log", "web1=", "/", "a b=x.log"} {
		if s, err := ParseSpec(arg); err == nil {
			t.Errorf("ParseSpec(%q) gave %+v, want an error", arg, s)
		}
	}
}

func TestParseSpecRefusesAnEmptyOrRepeatedGeneration(t *testing.T) {
	for arg, want := range map[string]string{
		"web=a.1,,a":    "empty file name",
		"web=a.1,":      "empty file name",
		"web=,a":        "empty file name",
		"web=a.1,a.1,a": "names a.1 twice",
		"web=a,a.1,a":   "names a twice",
	} {
		if _, err := ParseSpec(arg); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseSpec(%q) = %v, want an error saying %q", arg, err, want)
		}
	}
}
