package store

import "testing"

func TestParseSpecNamesAStoreByItsBaseNameOrByID(t *testing.T) {
	for _, tc := range []struct{ arg, id, path string }{
		{"/var/log/access.log", "access.log", "/var/log/access.log"},
		{"web1=/var/log/access.log", "web1", "/var/log/access.log"},
		{"/tmp/a=b/x.log", "x.log", "/tmp/a=b/x.log"},
	} {
		id, path, err := ParseSpec(tc.arg)
		if err != nil || id != tc.id || path != tc.path {
			t.Errorf("ParseSpec(%q) = %q, %q, %v; want %q, %q", tc.arg, id, path, err, tc.id, tc.path)
		}
	}
}

func TestParseSpecRefusesWhatCannotBeAnID(t *testing.T) {
	for _, arg := range []string{"", "/logs/a b.log", "web1=", "/"} {
		if id, _, err := ParseSpec(arg); err == nil {
			t.Errorf("ParseSpec(%q) gave id %q, want an error", arg, id)
		}
	}
}
