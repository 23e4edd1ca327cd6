package read

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/timbertally/timbertally/lib/tape"
)

// ParseLabels reads --label K=V arguments (tgread's and tgpush's: one
// syntax, so that a backfill read with tgread carries the labels tgpush
// adds) into labels sorted by name. A name is a Prometheus label name not
// starting with __, given once; a value is UTF-8 text and not empty (an
// empty label is no label to Prometheus, so it would vanish silently).
// Errors start with cmd, the command's name.
func ParseLabels(cmd string, args []string) ([]tape.Label, error) {
	var out []tape.Label
	for _, a := range args {
		k, v, ok := strings.Cut(a, "=")
		switch {
		case !ok || !tape.ValidLabel(k) || strings.HasPrefix(k, "__"):
			return nil, fmt.Errorf("%s: --label %s is not NAME=VALUE with a Prometheus label name (not starting with __)", cmd, a)
		case v == "":
			return nil, fmt.Errorf("%s: --label %s has an empty value, which Prometheus takes as no label at all; give a value (%s=web1)", cmd, a, k)
		case !utf8.ValidString(v):
			return nil, fmt.Errorf("%s: --label %s: the value is not UTF-8 text; give a UTF-8 value", cmd, k)
		}
		if slices.ContainsFunc(out, func(l tape.Label) bool { return l.Name == k }) {
			return nil, fmt.Errorf("%s: --label %s is given twice; give each label once", cmd, k)
		}
		out = append(out, tape.Label{Name: k, Value: v})
	}
	slices.SortFunc(out, func(a, b tape.Label) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// withLabels returns labels with each of extra whose name they lack: a
// tape's own label wins over a --label of its name, as a scraped label
// wins over Prometheus' external_labels (and as tgpush sends them).
func withLabels(labels, extra []tape.Label) []tape.Label {
	for _, e := range extra {
		if !slices.ContainsFunc(labels, func(l tape.Label) bool { return l.Name == e.Name }) {
			labels = append(slices.Clip(labels), e)
		}
	}
	return labels
}
