package check

import (
	"strings"
	"testing"
)

// liveTape is threeBucketsTape while its store is being fed: 13:55:00 and
// 13:55:10 sealed, 13:55:20's group being written (its series, no seal
// yet, the last line torn).
func liveTape() string {
	tp := positions(threeBuckets, threeBucketsTape)
	cut := strings.Index(tp, "seal 2026-10-10T13:55:20Z")
	return tp[:cut] + "seal 2026-10-10T13:55:2"
}

func TestOpenAcceptsALiveStoreWhoseSealedBucketsHoldAndSaysHowFarItIsSealed(t *testing.T) {
	f := newFixture(t, threeBuckets, liveTape())
	code, out := f.tgcheck("--open", "--against", "web1="+f.log, "--scan")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	for _, want := range []string{
		"against: 2 buckets compared, 0 differences",
		"conservation: the tape is open (no end record), sealed through the bucket at 2026-10-10T13:55:10Z (2 buckets); conservation is checked once the input is complete",
		"open: everything sealed so far holds: sealed through the bucket at 2026-10-10T13:55:10Z (2 buckets)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "integrity") || strings.Contains(out, "--replace") {
		t.Errorf("the group being written is taken for damage:\n%s", out)
	}
}

func TestOpenStillFailsASealedBucketThatDoesNotHold(t *testing.T) {
	tp := strings.Replace(liveTape(), `2026-10-10T13:55:10Z requests{status="404"} 1`, `2026-10-10T13:55:10Z requests{status="404"} 2`, 1)
	f := newFixture(t, threeBuckets, tp)
	code, out := f.tgcheck("--open", "--against", "web1="+f.log)
	if code != 1 || !strings.Contains(out, "2026-10-10T13:55:10Z requests{status=\"404\"}: tape 2, re-derived 1") || strings.Contains(out, "everything sealed so far holds") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if !strings.Contains(out, "tally --provision --replace") {
		t.Errorf("a real difference lacks the re-derivation's advice:\n%s", out)
	}
}

func TestWithoutOpenAnOpenTapeFailsWithTheAdviceForARunningStoreNotARederivation(t *testing.T) {
	tp := positions(threeBuckets, threeBucketsTape)
	f := newFixture(t, threeBuckets, tp[:strings.Index(tp, "2026-10-10T13:55:20Z")])
	code, out := f.tgcheck("--against", "web1="+f.log)
	if code != 1 || !strings.Contains(out, "tgcheck --open checks what is sealed so far") || !strings.Contains(out, "what is sealed so far with --open") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if strings.Contains(out, "--replace") || strings.Contains(out, "feed --reset") {
		t.Errorf("an open tape is told to re-derive:\n%s", out)
	}
}

func TestATornLastLineWithoutOpenIsAnErrorThatNamesOpen(t *testing.T) {
	f := newFixture(t, threeBuckets, liveTape())
	if code, out := f.tgcheck("--against", "web1="+f.log); code != 1 || !strings.Contains(out, "tgcheck --open leaves it out") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}
