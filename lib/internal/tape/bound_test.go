package tape

import "testing"

func TestABoundLeavesInPrometheusCanonicalFloatForm(t *testing.T) {
	for in, want := range map[string]string{
		"1": "1.0", "0": "0.0", "-1": "-1.0", "0.25": "0.25", "2.5": "2.5", "10": "10.0",
		"+Inf": "+Inf", "Inf": "+Inf", "1e+21": "1e+21", "100000": "100000.0", "0.005": "0.005",
		"1000000": "1e+06", "1e6": "1e+06", "100": "100.0", "123456": "123456.0", "0.1": "0.1",
		"x": "x",
	} {
		if got := CanonicalBound(in); got != want {
			t.Errorf("CanonicalBound(%q) = %q, want %q", in, got, want)
		}
	}
}
