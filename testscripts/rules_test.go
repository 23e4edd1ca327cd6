package testscripts

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// rulesDoc is a document whose tape has every kind of number the shipped
// rules and dashboard read: requests by status (some 5xx), a latency
// histogram, a metric over its cap (paths: !cap), and, from the log,
// lines that do not parse (!drop) and lines later than the grace (!late).
const rulesDoc = `format apache "%h %l %u %t \"%r\" %>s %b \"%{Referer}i\" \"%{User-Agent}i\" %D %v \"%{X-Forwarded-For}i\""
time time layout=clf
window 10s grace=60s
cap 20
metric requests count by=status
metric latency histogram=duration_us scale=0.000001
metric pages count by=path
`

// rulesTape makes a tally store from a log of n lines with the numbers
// rulesDoc counts: 2% malformed lines, stamps up to 90 s out of order.
func rulesTape(t *testing.T, dir string, n int) string {
	t.Helper()
	log, st := filepath.Join(dir, "access.log"), filepath.Join(dir, "st")
	writeFile(t, filepath.Join(dir, "rules.tally"), []byte(rulesDoc))
	mustRun(t, dir, "tgsynth", "--lines", strconv.Itoa(n), "--rate", "5", "--jitter", "90s", "--malformed", "0.02",
		"--paths", "40", "--format", "apache-timed", "--output", log)
	mustRun(t, dir, "tally", "--provision", "--doc", filepath.Join(dir, "rules.tally"), st)
	mustRun(t, dir, "feed", "-q", log, "--", "tally", "--run", st)
	return st
}

// tapeBucket is one sealed bucket of a tape as the test's own reading of
// the tape's text has it: its series' values, and the data-quality
// counts tgpush sends with it (the markers since the previous seal; those
// before an end record with the last bucket).
type tapeBucket struct {
	start   time.Time
	width   time.Duration
	series  map[string]float64 // name{k="v",...} as on the tape
	entries float64
	late    float64
	dropped map[string]float64 // by reason
	capped  map[string]float64 // by metric
}

var (
	sealLine        = regexp.MustCompile(`^seal (\S+) width=(\S+) entries=(\d+) `)
	rulesSeriesLine = regexp.MustCompile(`^(\S+) (\S+) (\S+)$`)
	countField      = regexp.MustCompile(` count=(\d+)`)
	reasonWord      = regexp.MustCompile(` reason=(\S+)`)
	metricWord      = regexp.MustCompile(` metric=(\S+)`)
)

// tapeBuckets reads a store's tape text, line by line, with regular
// expressions: not the toolkit's parser.
func tapeBuckets(t *testing.T, st string) []*tapeBucket {
	t.Helper()
	var out []*tapeBucket
	cur := &tapeBucket{series: map[string]float64{}, dropped: map[string]float64{}, capped: map[string]float64{}}
	for _, line := range strings.Split(strings.TrimSuffix(string(readFile(t, filepath.Join(st, "tape"))), "\n"), "\n") {
		n := 0.0
		if m := countField.FindStringSubmatch(line); m != nil {
			n, _ = strconv.ParseFloat(m[1], 64)
		}
		switch {
		case strings.HasPrefix(line, "seal "):
			m := sealLine.FindStringSubmatch(line)
			cur.start, _ = time.Parse(time.RFC3339, m[1])
			cur.width, _ = time.ParseDuration(m[2])
			cur.entries, _ = strconv.ParseFloat(m[3], 64)
			out = append(out, cur)
			cur = &tapeBucket{series: map[string]float64{}, dropped: map[string]float64{}, capped: map[string]float64{}}
		case strings.HasPrefix(line, "!late "):
			cur.late += n
		case strings.HasPrefix(line, "!drop "):
			cur.dropped[reasonWord.FindStringSubmatch(line)[1]] += n
		case strings.HasPrefix(line, "!cap "):
			cur.capped[metricWord.FindStringSubmatch(line)[1]] += n
		case strings.HasPrefix(line, "end "):
			last := out[len(out)-1]
			last.late += cur.late
			for r, v := range cur.dropped {
				last.dropped[r] += v
			}
		default:
			m := rulesSeriesLine.FindStringSubmatch(line)
			if m == nil {
				t.Fatalf("a tape line the test does not know: %q", line)
			}
			v, _ := strconv.ParseFloat(m[3], 64)
			cur.series[m[2]] = v
		}
	}
	return out
}

// stampMs is where a bucket's samples are (its last millisecond), in ms
// after origin: the test's own spelling of the rule, to check the rules
// against it.
func (b *tapeBucket) stampMs(origin time.Time) int64 {
	return b.start.Add(b.width).Sub(origin).Milliseconds() - 1
}

// sumIn sums what f gives for each bucket whose stamp is in (from, to]
// (ms after origin): what a range selector evaluated at to holds.
func sumIn(buckets []*tapeBucket, origin time.Time, from, to int64, f func(*tapeBucket) float64) float64 {
	s := 0.0
	for _, b := range buckets {
		if ms := b.stampMs(origin); ms > from && ms <= to {
			s += f(b)
		}
	}
	return s
}

// withSeriesLabel adds a label to a series' text.
func withSeriesLabel(series, name, value string) string {
	l := name + `="` + value + `"`
	if i := strings.IndexByte(series, '{'); i >= 0 {
		return series[:len(series)-1] + "," + l + "}"
	}
	return series + "{" + l + "}"
}

// promtoolValues is promtool's input notation for samples at the given
// milliseconds (ascending) with an interval of 1 ms: _xN for N missing
// samples.
func promtoolValues(ms []int64, vals []float64) string {
	var b strings.Builder
	next := int64(0)
	for i, at := range ms {
		if gap := at - next; gap > 0 {
			fmt.Fprintf(&b, "_x%d ", gap)
		}
		b.WriteString(strconv.FormatFloat(vals[i], 'f', -1, 64) + " ")
		next = at + 1
	}
	return strings.TrimSpace(b.String())
}

// shapes makes, from the tape's buckets, the input series of both shapes:
// per bucket (host web1), a sample per bucket stamped at its last
// millisecond, as tgpush sends; and counters (host web2), the running sums
// at every bucket from a zero at the bucket before a series' first, as
// tgpush --counters sends them and tgserve serves them.
func shapes(buckets []*tapeBucket, origin time.Time) (perBucket, counters map[string][]sample) {
	perBucket, counters = map[string][]sample{}, map[string][]sample{}
	running := map[string]float64{}
	for i, b := range buckets {
		at := b.stampMs(origin)
		vals := map[string]float64{"timbertally_entries": b.entries, "timbertally_late_entries": b.late}
		for k, v := range b.series {
			vals[k] = v
		}
		for r, v := range b.dropped {
			vals[`timbertally_dropped_entries{reason="`+r+`"}`] = v
		}
		for m, v := range b.capped {
			vals[`timbertally_capped_entries{metric="`+m+`"}`] = v
		}
		for k, v := range vals {
			perBucket[withSeriesLabel(k, "host", "web1")] = append(perBucket[withSeriesLabel(k, "host", "web1")], sample{at, v})
			if _, ok := running[k]; !ok && i > 0 {
				counters[counterName(k)] = append(counters[counterName(k)], sample{buckets[i-1].stampMs(origin), 0})
			}
			running[k] += v
		}
		for k, v := range running {
			counters[counterName(k)] = append(counters[counterName(k)], sample{at, v})
		}
	}
	return perBucket, counters
}

type sample struct {
	ms int64
	v  float64
}

// counterName is a tape series' counter: NAME_total, a histogram's series
// as they are, host web2.
func counterName(series string) string {
	name, labels, _ := strings.Cut(series, "{")
	if !strings.HasPrefix(name, "latency_") {
		name += "_total"
	}
	if labels != "" {
		labels = "{" + labels
	}
	return withSeriesLabel(name+labels, "host", "web2")
}

// promtoolSeries writes input series in promtool's test syntax.
func promtoolSeries(b *strings.Builder, series map[string][]sample) {
	for _, k := range slices.Sorted(maps.Keys(series)) {
		s := series[k]
		ms, vals := make([]int64, len(s)), make([]float64, len(s))
		for i, x := range s {
			ms[i], vals[i] = x.ms, x.v
		}
		fmt.Fprintf(b, "      - series: '%s'\n        values: '%s'\n", k, promtoolValues(ms, vals))
	}
}

// tgreadTSV runs tgread with args and --format tsv on the store, and
// returns its rows' columns (time, metric, labels, value), the header left
// out.
func tgreadTSV(t *testing.T, st string, args ...string) [][]string {
	t.Helper()
	out, err := exec.Command("tgread", append(append(args, "--format", "tsv"), st)...).Output()
	if err != nil {
		t.Fatalf("tgread %s: %v", strings.Join(args, " "), err)
	}
	var rows [][]string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n")[1:] {
		rows = append(rows, strings.Split(line, "\t"))
	}
	return rows
}

// quantiles is tgread --quantile Q --step 1m: the quantile of each minute,
// by the minute's start.
func quantiles(t *testing.T, st, q string) map[time.Time]string {
	t.Helper()
	res := map[time.Time]string{}
	for _, f := range tgreadTSV(t, st, "--quantile", q, "--step", "1m") {
		at, _ := time.Parse(time.RFC3339, f[0])
		res[at] = f[3]
	}
	return res
}

func TestTheShippedRulesRecordEachMinuteOfARealTapeInBothShapesAndAlertOnItsDropsLateAndCappedEntriesAndOnAStall(t *testing.T) {
	promtool := tool(t, "promtool", "prometheus")
	dir := t.TempDir()
	st := rulesTape(t, dir, 6000)
	buckets := tapeBuckets(t, st)
	origin := buckets[0].start.Truncate(time.Minute)
	perBucket, counters := shapes(buckets, origin)
	rules, err := filepath.Abs("../deploy/prometheus/timbertally.rules.yml")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "rule_files: [%q]\nevaluation_interval: 10s\ntests:\n  - interval: 1ms\n    input_series:\n", rules)
	promtoolSeries(&b, perBucket)
	promtoolSeries(&b, counters)
	b.WriteString("    promql_expr_test:\n")
	expect := func(expr string, at int64, samples map[string]string) {
		fmt.Fprintf(&b, "      - expr: '%s'\n        eval_time: %dms\n        exp_samples:\n", expr, at)
		for _, labels := range slices.Sorted(maps.Keys(samples)) {
			fmt.Fprintf(&b, "          - labels: '%s'\n            value: %s\n", labels, samples[labels])
		}
	}
	both := func(name, extra, v string) map[string]string {
		return map[string]string{
			name + `{host="web1",shape="per-bucket"` + extra + `}`: v,
			name + `{host="web2",shape="counters"` + extra + `}`:   v,
		}
	}
	p50, p99 := quantiles(t, st, "0.5"), quantiles(t, st, "0.99")
	last := buckets[len(buckets)-1].stampMs(origin)
	checked := 0
	// Each whole minute [m, m+1m) is read 70 s after its end: at that time
	// the rules' ranges (offset 70s) hold exactly its six buckets.
	for m := int64(0); m+60_000 <= last; m += 60_000 {
		at := m + 60_000 + 70_000
		inMinute := func(f func(*tapeBucket) float64) float64 { return sumIn(buckets, origin, m-1, m+60_000-1, f) }
		ok200 := inMinute(func(b *tapeBucket) float64 { return b.series[`requests{status="200"}`] })
		all := inMinute(func(b *tapeBucket) float64 {
			s := 0.0
			for k, v := range b.series {
				if strings.HasPrefix(k, "requests{") {
					s += v
				}
			}
			return s
		})
		fivexx := inMinute(func(b *tapeBucket) float64 {
			s := 0.0
			for k, v := range b.series {
				if strings.HasPrefix(k, `requests{status="5`) {
					s += v
				}
			}
			return s
		})
		expect(`host_status:timbertally_requests:rate1m{status="200"}`, at, both("host_status:timbertally_requests:rate1m", `,status="200"`, fmt.Sprint(ok200/60)))
		ratio := both("host:timbertally_requests_5xx:ratio1m", "", fmt.Sprint(fivexx/all))
		if fivexx == 0 {
			// no 5xx sample in the minute: nothing to sum per bucket, a
			// counter that did not move
			delete(ratio, `host:timbertally_requests_5xx:ratio1m{host="web1",shape="per-bucket"}`)
		}
		expect(`host:timbertally_requests_5xx:ratio1m`, at, ratio)
		start := origin.Add(time.Duration(m) * time.Millisecond)
		expect(`host:timbertally_latency_seconds:p50_1m`, at, both("host:timbertally_latency_seconds:p50_1m", "", p50[start]))
		expect(`host:timbertally_latency_seconds:p99_1m`, at, both("host:timbertally_latency_seconds:p99_1m", "", p99[start]))
		late := sumIn(buckets, origin, m+60_000-600_000-1, m+60_000-1, func(b *tapeBucket) float64 { return b.late })
		entries := sumIn(buckets, origin, m+60_000-600_000-1, m+60_000-1, func(b *tapeBucket) float64 { return b.entries })
		expect(`host:timbertally_late_entries:sum10m`, at, both("host:timbertally_late_entries:sum10m", "", fmt.Sprint(late)))
		expect(`host:timbertally_entries:sum10m`, at, both("host:timbertally_entries:sum10m", "", fmt.Sprint(entries)))
		checked++
	}
	// The alerts, as the ALERTS series the rule manager writes: the drops
	// (2% of the lines), the late and the capped entries fire in both
	// shapes in the log's last ten minutes; nothing is stalled while
	// buckets come, and both shapes are once they stop.
	end := (last/10_000)*10_000 + 10_000
	alerts := func(name, severity, extra string) map[string]string {
		out := map[string]string{}
		for _, hs := range [][2]string{{"web1", "per-bucket"}, {"web2", "counters"}} {
			out[`ALERTS{alertname="`+name+`",alertstate="firing",host="`+hs[0]+`"`+extra+`,severity="`+severity+`",shape="`+hs[1]+`"}`] = "1"
		}
		return out
	}
	expect(`ALERTS{alertname="TimbertallyDropShareHigh",alertstate="firing"}`, end, alerts("TimbertallyDropShareHigh", "warning", ""))
	expect(`ALERTS{alertname="TimbertallyLateEntries",alertstate="firing"}`, end, alerts("TimbertallyLateEntries", "info", ""))
	expect(`ALERTS{alertname="TimbertallyCappedSeries",alertstate="firing"}`, end, alerts("TimbertallyCappedSeries", "warning", `,metric="pages"`))
	expect(`ALERTS{alertname="TimbertallyStalled"}`, end, nil)
	expect(`ALERTS{alertname="TimbertallyStalled",alertstate="firing"}`, end+130_000+70_000, alerts("TimbertallyStalled", "warning", ""))
	test := filepath.Join(dir, "rules.test.yml")
	writeFile(t, test, []byte(b.String()))
	if out, err := exec.Command(promtool, "check", "rules", rules).CombinedOutput(); err != nil {
		t.Fatalf("promtool check rules: %v\n%s", err, out)
	}
	out, err := exec.Command(promtool, "test", "rules", test).CombinedOutput()
	if err != nil {
		os.WriteFile("/tmp/rules.test.yml", []byte(b.String()), 0o644)
		t.Fatalf("promtool test rules on %d buckets (%d minutes checked): %v\n%s", len(buckets), checked, err, tail(string(out), 60))
	}
	if checked < 8 {
		t.Errorf("%d minutes checked, want at least 8", checked)
	}
	t.Logf("promtool test rules: %d buckets, %d minutes checked in both shapes, 4 alerts", len(buckets), checked)
}
