package tape

import (
	"math"
	"strconv"
	"strings"
)

// CanonicalBound returns a histogram bound (an le label value as the tape
// holds it, "1", "0.25", "+Inf") in Prometheus's canonical float form,
// the form Prometheus 3 normalises le to and OpenMetrics writes: "1.0",
// "0.25", "+Inf". Wherever a bound leaves the toolkit it leaves in this
// form, so that a series read in one shape and another is one series. A
// value that is no number is returned as it is.
func CanonicalBound(le string) string {
	f, err := strconv.ParseFloat(le, 64)
	if err != nil {
		return le
	}
	switch {
	case math.IsInf(f, +1):
		return "+Inf"
	case math.IsInf(f, -1):
		return "-Inf"
	case math.IsNaN(f):
		return "NaN"
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, "e.") {
		s += ".0"
	}
	return s
}
