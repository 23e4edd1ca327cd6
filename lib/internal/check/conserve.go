package check

import (
	"fmt"
	"io"

	"github.com/timbertally/timbertally/lib/internal/tape"
)

// balance is the conservation of one count metric without where=: every
// entry fed is in the metric's series, in one of its !cap markers, late or
// dropped, so Tape+Cap+Late+Drop == Fed.
type balance struct {
	Metric                     string
	Tape, Cap, Late, Drop, Fed int64
}

// Holds reports whether the balance adds up.
func (b balance) Holds() bool { return b.Accounted() == b.Fed }

// Accounted is what the tape accounts for: Tape+Cap+Late+Drop.
func (b balance) Accounted() int64 { return b.Tape + b.Cap + b.Late + b.Drop }

// conserve returns the balance of each count metric without where= of the
// store's document, against fed entries. Counts are whole numbers, so
// summing the resolved float64 values as int64 loses nothing below 2^53.
func conserve(s *tallyStore, fed int64) []balance {
	var out []balance
	for _, name := range plainCounts(s.Doc) {
		b := balance{Metric: name, Fed: fed,
			Late: s.Tape.Totals[tape.Late].Entries, Drop: s.Tape.Totals[tape.Drop].Entries}
		for _, p := range s.Tape.Points {
			if p.Series.Metric == name {
				b.Tape += int64(p.Value)
			}
		}
		for _, m := range s.Tape.Markers {
			if m.Kind == tape.Cap && m.Metric == name {
				b.Cap += m.Count
			}
		}
		out = append(out, b)
	}
	return out
}

// printBalances writes one line per metric and reports whether all hold.
// A document without a count metric without where= (a histogram's _count
// counts only entries with a number) has nothing to balance: it says so
// rather than print nothing.
func printBalances(w io.Writer, bs []balance) bool {
	if len(bs) == 0 {
		fmt.Fprintln(w, "conservation: the document has no count metric without where=, so nothing balances against the entries fed; add one (metric requests count) to have it proved")
	}
	ok := true
	for _, b := range bs {
		verdict := "ok"
		if !b.Holds() {
			ok = false
			verdict = fmt.Sprintf("MISMATCH (%+d)", b.Accounted()-b.Fed)
		}
		fmt.Fprintf(w, "conservation %s: tape %d + cap %d + late %d + drop %d = %d, fed %d: %s\n",
			b.Metric, b.Tape, b.Cap, b.Late, b.Drop, b.Accounted(), b.Fed, verdict)
	}
	return ok
}
