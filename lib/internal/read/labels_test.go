package read

import (
	"strings"
	"testing"
)

const hostTape = `2026-10-10T13:55:30Z requests{status="200"} 4
2026-10-10T13:55:30Z requests{status="500",host="db1"} 1
seal 2026-10-10T13:55:30Z width=10s entries=5 at=web1:500
`

func TestLabelAddsItsLabelToEverySeriesInEveryFormatAndATapesOwnLabelWins(t *testing.T) {
	cases := map[string][]string{
		"tsv":         {"\trequests\thost=web1,status=200\t4\n", "\trequests\thost=db1,status=500\t1\n"},
		"csv":         {",requests,\"host=web1,status=200\",4\n", ",requests,\"host=db1,status=500\",1\n"},
		"json":        {`"labels":{"host":"web1","status":"200"},"value":4}`, `"labels":{"host":"db1","status":"500"},"value":1}`},
		"tape":        {` requests{status="200",host="web1"} 4`, ` requests{status="500",host="db1"} 1`},
		"openmetrics": {`requests{host="web1",status="200"} 4 1791640539.999`, `requests{host="db1",status="500"} 1 1791640539.999`, `timbertally_entries{host="web1"} 5 1791640539.999`},
		"table":       {"host=web1,status=200", "host=db1,status=500"},
	}
	path := write(t, t.TempDir(), "tape", hostTape)
	for format, want := range cases {
		for _, src := range []string{path, "-"} {
			if src == "-" && format == "openmetrics" {
				continue // read whole, as from a file
			}
			r := tgread(t, hostTape, "--format", format, "--label", "host=web1", src)
			if r.code != 0 {
				t.Fatalf("%s %s: exit %d: %s", format, src, r.code, r.stderr)
			}
			for _, w := range want {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("%s %s: the output lacks %q:\n%s", format, src, w, r.stdout)
				}
			}
			if strings.Count(r.stdout, "requests{host=\"web1\"")+strings.Count(r.stdout, "host=web1,status")+strings.Count(r.stdout, `"host":"web1"`)+strings.Count(r.stdout, `status="200",host="web1"`) != 1 {
				t.Errorf("%s %s: host=web1 is not on exactly one series:\n%s", format, src, r.stdout)
			}
		}
	}
}

func TestALabelWithoutAValueOrAPrometheusNameIsAUsageError(t *testing.T) {
	path := write(t, t.TempDir(), "tape", hostTape)
	for _, arg := range []string{"host=", "host", "__name__=x", "1host=x", "host=a\xff"} {
		r := tgread(t, "", "--label", arg, path)
		if r.code != 2 || !strings.Contains(r.stderr, "tgread: --label") || r.stdout != "" {
			t.Errorf("--label %q: exit %d, %s", arg, r.code, r.stderr)
		}
	}
	if r := tgread(t, "", "--label", "host=a", "--label", "host=b", path); r.code != 2 || !strings.Contains(r.stderr, "given twice") {
		t.Errorf("a label given twice: exit %d, %s", r.code, r.stderr)
	}
}
