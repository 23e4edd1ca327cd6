package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestAckconsumerAcksEachBatchsEnd(t *testing.T) {
	in := "feed v=1 window=100\nstore id=a offset=5\nbatch id=a offset=5 end=9 entries=2\nx\ny\nidle id=a quiet=10\n"
	var out bytes.Buffer
	if err := run(strings.NewReader(in), &out, false); err != nil {
		t.Fatal(err)
	}
	if out.String() != "progress id=a offset=9\n" {
		t.Fatalf("reports %q, want the batch's end only, with no window", out.String())
	}
}

func TestAckconsumerWithWindowAsksForTheOfferBeforeAnyBatch(t *testing.T) {
	in := "feed v=1 window=100\nstore id=a offset=5\nbatch id=a offset=5 end=9 entries=2\nx\ny\n"
	var out bytes.Buffer
	if err := run(strings.NewReader(in), &out, true); err != nil {
		t.Fatal(err)
	}
	want := "progress id=a offset=5 window=100\nprogress id=a offset=9 window=100\n"
	if out.String() != want {
		t.Fatalf("reports\n%s\nwant\n%s", out.String(), want)
	}
}

func TestAckconsumerWithWindowAsksForNoneWhenFeedOffersNone(t *testing.T) {
	in := "feed v=1\nstore id=a offset=5\nbatch id=a offset=5 end=9 entries=2\nx\ny\n"
	var out bytes.Buffer
	if err := run(strings.NewReader(in), &out, true); err != nil {
		t.Fatal(err)
	}
	if out.String() != "progress id=a offset=9\n" {
		t.Fatalf("reports %q, want no window asked of a feed that offers none", out.String())
	}
}
