package check

import (
	"bytes"
	"math"
	"strings"
	"testing"

	prompb "buf.build/gen/go/prometheus/prometheus/protocolbuffers/go"
)

func TestABoundIsTheSameSeriesWhicheverWayTheReceiverSpellsIt(t *testing.T) {
	sent, _ := sentKey([]*prompb.Label{{Name: "__name__", Value: "latency_bucket"}, {Name: "le", Value: "1.0"}, {Name: "status", Value: "200"}})
	for _, le := range []string{"1", "1.0", "1e0", "1.00"} {
		if got := mapKey(map[string]string{"__name__": "latency_bucket", "le": le, "status": "200"}); got != sent {
			t.Errorf("le=%s: another series", le)
		}
	}
	if mapKey(map[string]string{"__name__": "latency_bucket", "le": "2", "status": "200"}) == sent {
		t.Error("le=2 is le=1")
	}
	// Only a bound is read as a number.
	a, _ := sentKey([]*prompb.Label{{Name: "__name__", Value: "x"}, {Name: "code", Value: "1.0"}})
	if mapKey(map[string]string{"__name__": "x", "code": "1"}) == a {
		t.Error(`code="1" is code="1.0"`)
	}
}

func TestNaNIsTheSameValueAsNaNAndNothingElse(t *testing.T) {
	if !sameValue(math.NaN(), math.NaN()) || sameValue(math.NaN(), 0) || sameValue(1, 2) || !sameValue(math.Inf(1), math.Inf(1)) {
		t.Fatal("sameValue")
	}
}

func TestReceiverFlagsWithoutReceiverAreRefusedNamingIt(t *testing.T) {
	for _, args := range [][]string{
		{"tgcheck", "--label", "host=a", "--scan", "st"},
		{"tgcheck", "--from", "2026-10-10T00:00:00Z", "--scan", "st"},
		{"tgcheck", "--receiver", "http://127.0.0.1:1", "--from", "yesterday", "st"},
		{"tgcheck", "--receiver", "ftp://x", "st"},
		{"tgcheck", "--receiver", "http://u:p@127.0.0.1:1", "st"},
		{"tgcheck", "--receiver", "http://127.0.0.1:1", "--query-samples", "0", "st"},
		{"tgcheck", "--receiver", "http://127.0.0.1:1", "--bearer-token-file", "/nonexistent/token", "st"},
	} {
		var out, errs bytes.Buffer
		code := run(args, &out, &errs)
		if code == 0 || !strings.HasPrefix(errs.String(), "tgcheck: ") {
			t.Errorf("%v: exit %d: %s", args, code, errs.String())
		}
		if strings.Contains(errs.String(), "u:p") {
			t.Errorf("%v: the password is shown: %s", args, errs.String())
		}
	}
}
