package doc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestBuiltinsParseAndAreSortedWithSummaries(t *testing.T) {
	list := Builtins()
	if len(list) < 2 || list[0].Name != "apache-combined" || list[1].Name != "apache-common" {
		t.Fatalf("Builtins = %+v; want apache-combined and apache-common, sorted", list)
	}
	for _, b := range list {
		if b.Summary == "" {
			t.Errorf("%s has no summary on its first line", b.Name)
		}
		d, err := Load(b.Name)
		if err != nil {
			t.Fatalf("built-in %s: %v", b.Name, err)
		}
		if b.Server == "" {
			t.Errorf("%s has no # server: line saying what the server's config needs", b.Name)
		}
		if d.Name != b.Name || d.Width != 10*time.Second || d.Grace <= 0 || d.Cap != 10000 || len(d.Metrics) < 2 {
			t.Errorf("built-in %s = %+v", b.Name, d)
		}
		if !strings.Contains(string(d.Text), "grace") {
			t.Errorf("built-in %s does not explain its grace", b.Name)
		}
	}
}

func TestBuiltinTextRefusesNamesOutsideTheBuiltins(t *testing.T) {
	for _, name := range []string{"", "nginx", "nginx-combined.tally", "../builtin/apache-common", "apache-common.tally"} {
		if _, ok := BuiltinText(name); ok {
			t.Errorf("BuiltinText(%q) found a document", name)
		}
	}
}

func TestLoadReadsAPathAndNamesWhatIsMissing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "site.tally")
	if err := os.WriteFile(path, []byte(base), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := Load(path)
	if err != nil || d.Name != path {
		t.Fatalf("Load(%s) = %v, %v", path, d, err)
	}
	_, err = Load("nginx")
	want := `doc: "nginx" is neither a built-in document (` + builtinNames() + `) nor a file; name one of those or give a path`
	if err == nil || err.Error() != want || !strings.Contains(want, "(apache-combined, apache-common, apache-timed, caddy, envoy, haproxy-http, iis-w3c, nginx-combined") {
		t.Errorf("Load(nginx) = %v\nwant %s", err, want)
	}
}

// Each shipped document's # server: line holds the format string its
// format line reads: what the operator pastes is what is parsed.
func TestEachBuiltinsServerLineCarriesItsFormatString(t *testing.T) {
	for _, b := range Builtins() {
		d, err := Load(b.Name)
		if err != nil {
			t.Fatal(err)
		}
		if d.LogFormat == nil || strings.Contains(b.Server, "default") {
			continue
		}
		var src string
		if d.Format == Nginx {
			src = "'" + d.LogFormat.Source + "'"
		} else {
			src = `"` + strings.ReplaceAll(d.LogFormat.Source, `"`, `\"`) + `"`
		}
		if !strings.Contains(b.Server, src) {
			t.Errorf("%s: server line %q does not hold %s", b.Name, b.Server, src)
		}
	}
}
