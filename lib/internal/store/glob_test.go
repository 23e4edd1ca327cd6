package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAGlobsIDIsTheTextItsWildcardsMatched(t *testing.T) {
	for _, tc := range []struct{ pattern, path, id string }{
		{"/var/log/containers/*/access.log", "/var/log/containers/web1/access.log", "web1"},
		{"/var/log/apache2/*.access.log", "/var/log/apache2/shop.example.com.access.log", "shop.example.com"},
		{"/srv/*/logs/access-*.log", "/srv/siteA/logs/access-2026.log", "siteA.2026"},
		{"/l/web[0-9]?.log", "/l/web12.log", "12"},
		{"/l/x[]]*.log", "/l/x]y.log", "_y"},
		{"/l/a\\*b*.log", "/l/a*bz.log", "z"},
		{"/l/access*.log", "/l/access.log", "access.log"},
		{"/l/*.log", "/l/a b:c.log", "a_b_c"},
	} {
		if got := GlobID(tc.pattern, tc.path); got != tc.id {
			t.Errorf("GlobID(%q, %q) = %q, want %q", tc.pattern, tc.path, got, tc.id)
		}
	}
}

func TestAGlobNamesEveryRegularFileItMatches(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"a/access.log", "b/access.log", "c/error.log"} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755)
		os.WriteFile(filepath.Join(dir, p), nil, 0o644)
	}
	os.MkdirAll(filepath.Join(dir, "d/access.log"), 0o755) // a directory: not a store
	specs, _, err := Glob(dir+"/*/access.log", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(specs) != 2 || specs[0].ID != "a" || specs[1].ID != "b" || specs[1].Path != filepath.Join(dir, "b/access.log") {
		t.Fatalf("Glob = %+v", specs)
	}
}

func TestTwoFilesOfOneGlobIDAreRefusedNamingBoth(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"a b.log", "a:b.log"} {
		os.WriteFile(filepath.Join(dir, p), nil, 0o644)
	}
	_, _, err := Glob(dir+"/*.log", nil)
	if err == nil || !strings.Contains(err.Error(), "a b.log and ") || !strings.Contains(err.Error(), "a:b.log one id, a_b") {
		t.Fatalf("Glob = %v, want both files named", err)
	}
}

func TestAGlobWithoutAWildcardOrMalformedIsRefused(t *testing.T) {
	for _, p := range []string{"/var/log/access.log", "/var/log/[a.log", "/l/\\*.log"} {
		if err := CheckGlob(p); err == nil {
			t.Errorf("CheckGlob(%q) accepted it", p)
		}
	}
}

func TestAGlobMatchIsNotAStoreWhenNamedAsARotatedGenerationOfAFileBesideIt(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"access.log", "access.log.1", "access.log.2.gz", "access.log-20261201", "access.log.old", "web.log"} {
		os.WriteFile(filepath.Join(dir, p), nil, 0o644)
	}
	specs, rotated, err := Glob(dir+"/*.log*", nil)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range specs {
		ids = append(ids, s.ID)
	}
	if got := strings.Join(ids, " "); got != "access.log access.log.old web.log" {
		t.Errorf("stores %q, want access.log access.log.old web.log", got)
	}
	if len(rotated) != 3 || rotated[0].Of != filepath.Join(dir, "access.log") {
		t.Errorf("rotated = %+v, want the three generations of access.log", rotated)
	}
}

func TestARotatedNameIsAGenerationOfAStoreWhosePathIsEmptyForAMoment(t *testing.T) {
	dir := t.TempDir()
	live := filepath.Join(dir, "access.log")
	os.WriteFile(live+".1", nil, 0o644) // renamed; access.log not yet created
	if of := RotatedOf(live+".1", nil); of != "" {
		t.Errorf("RotatedOf without the store = %q, want none", of)
	}
	if of := RotatedOf(live+".1", func(p string) bool { return p == live }); of != live {
		t.Errorf("RotatedOf = %q, want %s", of, live)
	}
}
