package read

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestPromtoolBackfillsOpenMetricsOutput feeds the openmetrics output,
// hostile label values included, to promtool (Debian package prometheus)
// and dumps the blocks back to check every value and timestamp.
func TestPromtoolBackfillsOpenMetricsOutput(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool is not installed (apt-get install prometheus): the openmetrics output is not checked against Prometheus")
	}
	tape := tapeA + `2026-10-10T13:55:40Z bytes{status="nul\x00x\\",method="GET"} 0.25
2026-10-10T13:55:41.5Z up 1
seal 2026-10-10T13:55:41.5Z width=10s entries=1
`
	r := tgread(t, tape, "--format", "openmetrics")
	if r.code != 0 {
		t.Fatalf("tgread: exit %d: %s", r.code, r.stderr)
	}
	dir := t.TempDir()
	om, db := filepath.Join(dir, "tape.om"), filepath.Join(dir, "db")
	if err := os.WriteFile(om, []byte(r.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(promtool, "tsdb", "create-blocks-from", "openmetrics", om, db).CombinedOutput(); err != nil {
		t.Fatalf("promtool refused the output: %v\n%s\nthe output:\n%s", err, out, r.stdout)
	}
	// promtool 2.42's dump opens the blocks' folder as a whole TSDB, which
	// wants a wal folder beside them.
	if err := os.Mkdir(filepath.Join(db, "wal"), 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(promtool, "tsdb", "dump", db).Output()
	if err != nil {
		t.Fatalf("promtool tsdb dump: %v", err)
	}
	got := strings.Split(strings.TrimSpace(string(out)), "\n")
	// Each sample at its bucket's last millisecond, as tgpush stamps it,
	// with the data-quality series tgpush sends: the !late and !drop after
	// the second seal go with the third bucket's group.
	want := []string{
		`{__name__="bytes", method="GET", status="200"} 1.234567e+06 1791640539999`,
		`{__name__="bytes", method="GET", status="nul\x00x\\\\"} 0.25 1791640549999`,
		`{__name__="requests", method="GET", status="200"} 2048 1791640549999`,
		`{__name__="requests", method="GET", status="200"} 431 1791640539999`,
		`{__name__="requests", method="GET", status="404"} 12 1791640539999`,
		`{__name__="requests", method="GET", status="x\\xff\"\n\t,=y"} 3 1791640549999`,
		`{__name__="timbertally_dropped_entries", reason="no-time"} 1 1791640551499`,
		`{__name__="timbertally_entries"} 1 1791640551499`,
		`{__name__="timbertally_entries"} 2051 1791640549999`,
		`{__name__="timbertally_entries"} 443 1791640539999`,
		`{__name__="timbertally_late_entries"} 0 1791640539999`,
		`{__name__="timbertally_late_entries"} 0 1791640549999`,
		`{__name__="timbertally_late_entries"} 3 1791640551499`,
		`{__name__="up"} 1 1791640551499`,
	}
	slices.Sort(got) // want is sorted as text too
	if !slices.Equal(got, want) {
		t.Errorf("promtool dumped:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
