package read

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// bounds returns, per histogram of src (a NAME_bucket series with an le
// label), the upper bounds its tape holds, sorted: what the document's
// buckets= gave, read from the tape itself so that a bare tape has them.
func (src *source) bounds() map[string][]string {
	seen := map[string]map[string]bool{}
	for _, p := range src.res.Points {
		name, ok := strings.CutSuffix(p.Series.Metric, "_bucket")
		if !ok {
			continue
		}
		for _, l := range p.Series.Labels {
			if l.Name == "le" {
				if seen[name] == nil {
					seen[name] = map[string]bool{}
				}
				seen[name][l.Value] = true
			}
		}
	}
	out := make(map[string][]string, len(seen))
	for name, les := range seen {
		out[name] = slices.SortedFunc(maps.Keys(les), byBound)
	}
	return out
}

// byBound orders le values as numbers, +Inf last.
func byBound(a, b string) int {
	x, _ := strconv.ParseFloat(a, 64)
	y, _ := strconv.ParseFloat(b, 64)
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return strings.Compare(a, b)
}

// noteBounds says once per histogram when the tapes merged give it other
// bounds: summed per le, a bound one tape lacks counts only the other
// tape's entries at or under it, so the merged cumulative counts (and
// --quantile's estimates) are wrong.
func noteBounds(srcs []*source, stderr io.Writer) {
	first := map[string][]string{}
	from := map[string]string{}
	noted := map[string]bool{}
	for _, src := range srcs {
		for name, les := range src.bounds() {
			old, ok := first[name]
			switch {
			case !ok:
				first[name], from[name] = les, src.name
			case !slices.Equal(old, les) && !noted[name]:
				noted[name] = true
				fmt.Fprintf(stderr, "tgread: note: histogram %s has the bounds le=%s in %s but le=%s in %s: merged per le, a bound one tape lacks counts only the other's entries, so its cumulative counts and quantiles are wrong; read the tapes apart (--by-tape), or re-derive one of them with the other's bounds as buckets= in its document (tally --provision --replace --doc EDITED DIR, then feed --reset --cursor FILE STORE... -- tally --run DIR)\n",
					name, strings.Join(old, ","), from[name], strings.Join(les, ","), src.name)
			}
		}
	}
}
