package push

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/timbertally/timbertally/lib/internal/shell"
	"github.com/timbertally/timbertally/lib/internal/tallystore"

	prompb "buf.build/gen/go/prometheus/prometheus/protocolbuffers/go"
	"github.com/timbertally/timbertally/lib/internal/doc"
	"github.com/timbertally/timbertally/lib/internal/tape"
)

// LabelClash is a --label whose name a series of the tape has too: nginx's
// $host and Apache's %h are the field host, and a fleet's --label host=web1
// on a by=host document would name two things one label. Prometheus' answer
// to a scraped label meeting a target label (keep both, the scraped one as
// exported_host) would silently move the document's label to another name
// every query must then use; taking either value silently merges hosts or
// vhosts. tgpush refuses before it sends anything.
type LabelClash struct {
	Label, Value string
	Metric       string // a metric of the tape that has the label
	Field        string // the document's field it comes from ("" for the data-quality series' own labels)
	Where        string // what was pushed before it was found ("": nothing)
}

func (e *LabelClash) Error() string {
	whose := fmt.Sprintf("the series %s have a label %s of their own", e.Metric, e.Label)
	switch {
	case e.Field != "":
		whose = fmt.Sprintf("the tape's metric %s has the label %s already (the document's by=%s: the log field %s)", e.Metric, e.Label, e.Field, e.Field)
	case e.Metric == DroppedMetric || e.Metric == CappedMetric:
		whose = fmt.Sprintf("tgpush's own series %s has the label %s already", e.Metric, e.Label)
	}
	other := "node"
	if e.Label == "node" {
		other = "instance"
	}
	pushed := "nothing was pushed"
	if e.Where != "" {
		pushed = e.Where
	}
	return fmt.Sprintf("tgpush: --label %s=%s names a label the pushed series have already: %s; one series cannot carry both values, and tgpush never drops or renames either; %s: give the fleet label another name (--label %s=%s, then by (%s, %s) tells them apart) and run tgpush again",
		e.Label, e.Value, whose, pushed, other, e.Value, other, e.Label)
}

// checkLabelNames refuses, before anything is pushed, a --label named as a
// label the store's document gives a metric (its by= fields, a histogram's
// le) or as the data-quality series' reason and metric labels.
func checkLabelNames(dir string, extra []*prompb.Label) error {
	for _, e := range extra {
		switch e.Name {
		case "reason":
			return &LabelClash{Label: e.Name, Value: e.Value, Metric: DroppedMetric}
		case "metric":
			return &LabelClash{Label: e.Name, Value: e.Value, Metric: CappedMetric}
		}
	}
	path := tallystore.At(dir).Document()
	text, err := os.ReadFile(path)
	if err != nil {
		return nil // Run says what is wrong with the store
	}
	d, err := doc.Parse(path, text)
	if err != nil {
		return nil // batch.labels still refuses a clash on the tape itself
	}
	for _, e := range extra {
		for _, m := range d.Metrics {
			if slices.Contains(m.By, e.Name) {
				return &LabelClash{Label: e.Name, Value: e.Value, Metric: m.Name, Field: e.Name}
			}
			if m.Kind == doc.Histogram && e.Name == doc.BoundLabel {
				return &LabelClash{Label: e.Name, Value: e.Value, Metric: m.Name + doc.BucketSuffix}
			}
		}
	}
	return nil
}

// LabelsChanged is a run whose --label set is not the one the cursor's
// samples were pushed under: the receiver would hold the store's buckets
// before and after under two series sets, and a per-host view would split.
type LabelsChanged struct {
	Changed
	Was, Now []tape.Label
}

// Changed is where a run refused for changing what a cursor's pushes
// were stands: the cursor, the bucket after the last pushed (RFC 3339),
// the store.
type Changed struct{ Cursor, Next, Dir string }

func (e *LabelsChanged) Error() string {
	return fmt.Sprintf("tgpush: the cursor %s was pushed under %s, and this run gives %s; nothing was pushed. "+
		"To go on as before, run tgpush with%s. "+
		"To push the buckets from now on under the new labels (the older ones stay under the old labels in the receiver, so a query by these labels splits at %s), remove the cursor and run tgpush --from %s%s %s. "+
		"To have the whole store under the new labels, push it to a receiver or tenant that holds none of it (--from start%s), or delete its series from this receiver first: pushing it here again would count every bucket twice in a sum across labels",
		e.Cursor, labelWords(e.Was), labelWords(e.Now), labelFlags(e.Was, " no --label"), e.Next, e.Next, labelFlags(e.Now, ""), shell.Quote(e.Dir), labelFlags(e.Now, ""))
}

// labelWords names a label set for messages.
func labelWords(ls []tape.Label) string {
	if len(ls) == 0 {
		return "no --label"
	}
	return strings.TrimSpace(labelFlags(ls, ""))
}

// labelFlags spells a label set as the --label flags that give it,
// each with a leading space; none is given as none.
func labelFlags(ls []tape.Label, none string) string {
	if len(ls) == 0 {
		return none
	}
	var b strings.Builder
	for _, l := range ls {
		b.WriteString(" --label " + shell.Quote(l.Name+"="+l.Value))
	}
	return b.String()
}

// tapeLabels is --label as the cursor keeps it.
func tapeLabels(extra []*prompb.Label) []tape.Label {
	out := make([]tape.Label, len(extra))
	for i, l := range extra {
		out[i] = tape.Label{Name: l.Name, Value: l.Value}
	}
	return out
}
