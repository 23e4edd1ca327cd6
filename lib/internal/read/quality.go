package read

import (
	"cmp"
	"maps"
	"slices"
	"time"

	"github.com/timbertally/timbertally/lib/internal/tape"
)

// qualityRows are the data-quality series of the sources' groups
// (tape.GroupCounts) as tgpush sends them with each bucket: the same
// names, labels, values and stamps, so that a backfill from tgread
// --format openmetrics and a push join into one series set (docs/tgread.md,
// docs/tgpush.md). A sealed group's counts are at its bucket's
// tape.SampleMs; the k-th marker-only group after a seal at tape.MarkerMs,
// or with the next sealed group when it has no millisecond of its own;
// markers before any seal go with none, as tgpush leaves them. A group is
// in when the time range holds its bucket (a marker-only group: the bucket
// before it). With --step, a group's counts go to its step's stamp. Counts
// that meet at one stamp (tapes merged) are summed.
func (v *view) qualityRows(srcs []*source) []*row {
	type key struct {
		series string
		ms     int64
	}
	sums := map[key]*row{}
	var out []*row
	add := func(src *source, metric string, labels []tape.Label, value float64, start, ms int64) {
		sh, err := v.show(src, &tape.SeriesText{Metric: metric, Labels: labels})
		if err != nil {
			return // --by-tape with a tape label: refused for the tape's own series already
		}
		k := key{sh.key, ms}
		if r, ok := sums[k]; ok {
			r.value += value
			return
		}
		r := &row{start: start, ms: ms, metric: metric, labels: sh.labels, sorted: sh.sorted, value: value}
		sums[k] = r
		out = append(out, r)
	}
	for _, src := range srcs {
		var last *tape.Record
		lastIn := false // the range holds last's bucket
		after := 0
		var held []tape.GroupCounts
		for _, g := range src.res.Groups {
			if g.Seal == nil {
				if last == nil || g.Markers == 0 {
					continue
				}
				if !tape.HasMarkerRoom(last.Width, after+1) {
					held = append(held, g)
					continue
				}
				after++
				if lastIn { // a marker-only group is in with the bucket before it
					start, ms := v.stamp(last.Start, last.Width, after)
					v.addCounts(src, add, g, false, start, ms)
				}
				continue
			}
			last, lastIn, after = g.Seal, g.InRange, 0
			for _, h := range held {
				g = mergeCounts(g, h)
			}
			held = nil
			if g.InRange {
				start, ms := v.stamp(g.Seal.Start, g.Seal.Width, 0)
				v.addCounts(src, add, g, true, start, ms)
			}
		}
	}
	rankQuality(out)
	return out
}

// stamp is where a group's counts go: its bucket's tape.SampleMs, or the
// k-th marker-only group's tape.MarkerMs; with --step the step's.
func (v *view) stamp(start int64, width time.Duration, k int) (int64, int64) {
	if v.step != 0 {
		b := v.bucket(start)
		return b, tape.SampleMs(b, v.step)
	}
	if k == 0 {
		return start, tape.SampleMs(start, width)
	}
	return start, tape.MarkerMs(start, width, k)
}

// addCounts adds a group's series: entries (a sealed group's) and late
// for every sealed group, dropped and capped where it has them.
func (v *view) addCounts(src *source, add func(*source, string, []tape.Label, float64, int64, int64), g tape.GroupCounts, sealed bool, start, ms int64) {
	if sealed {
		add(src, tape.EntriesSeries, nil, float64(g.Seal.Entries), start, ms)
	}
	if sealed || g.Late > 0 {
		add(src, tape.LateSeries, nil, float64(g.Late), start, ms)
	}
	for _, r := range slices.Sorted(maps.Keys(g.Dropped)) {
		add(src, tape.DroppedSeries, []tape.Label{{Name: "reason", Value: r}}, float64(g.Dropped[r]), start, ms)
	}
	for _, m := range slices.Sorted(maps.Keys(g.Capped)) {
		add(src, tape.CappedSeries, []tape.Label{{Name: "metric", Value: m}}, float64(g.Capped[m]), start, ms)
	}
}

// mergeCounts adds a held marker-only group's counts to a sealed group's.
func mergeCounts(g, h tape.GroupCounts) tape.GroupCounts {
	g.Markers += h.Markers
	g.Late += h.Late
	g.Dropped = mergeMap(g.Dropped, h.Dropped)
	g.Capped = mergeMap(g.Capped, h.Capped)
	return g
}

func mergeMap(a, b map[string]int64) map[string]int64 {
	if len(b) == 0 {
		return a
	}
	out := maps.Clone(a)
	if out == nil {
		out = map[string]int64{}
	}
	for k, n := range b {
		out[k] += n
	}
	return out
}

// rankQuality ranks the data-quality rows by series within each metric,
// as bySeries orders a family's rows.
func rankQuality(rows []*row) {
	keys := map[string]int32{}
	var names []string
	for _, r := range rows {
		k := string(tape.AppendSeries(nil, r.metric, r.sorted))
		if _, ok := keys[k]; !ok {
			keys[k] = 0
			names = append(names, k)
		}
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Compare(a, b) })
	for i, n := range names {
		keys[n] = int32(i)
	}
	for _, r := range rows {
		r.rank = keys[string(tape.AppendSeries(nil, r.metric, r.sorted))]
	}
}
