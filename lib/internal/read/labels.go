package read

import (
	"slices"

	"github.com/timbertally/timbertally/lib/internal/label"

	"github.com/timbertally/timbertally/lib/internal/tape"
)

// ParseLabels is label.ParseFlags.
//
// Deprecated: use label.ParseFlags (a command package is no library of another).
func ParseLabels(cmd string, args []string) ([]tape.Label, error) { return label.ParseFlags(cmd, args) }

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
