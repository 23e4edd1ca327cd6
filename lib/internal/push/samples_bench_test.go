package push

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/timbertally/timbertally/lib/internal/tape"
)

// BenchmarkBatchOfAHighCardinalityGroup builds one group's request: 2 000
// series by path and a histogram's buckets, as bench/push.sh's bypath
// store's groups are. allocs/op over the group's ~2 000 samples is the
// figure (session 11: slabs for labels, samples and series).
func BenchmarkBatchOfAHighCardinalityGroup(b *testing.B) {
	g := Group{Seal: tape.Record{Kind: tape.Seal, Start: 1_700_000_000e9, Width: 10e9, Entries: 10_000}}
	for i := range 2000 {
		g.Series = append(g.Series, tape.Record{Kind: tape.Series, Start: g.Seal.Start, Metric: "requests",
			Labels: []tape.Label{{Name: "path", Value: fmt.Sprintf("/item/%d", i)}, {Name: "status", Value: "200"}}, Value: float64(i)})
	}
	extra, _ := ParseLabels([]string{"host=web1"})
	b.Run("messages", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			bt := newBatch(extra)
			bt.add(g, g.Seal.Start, tape.SampleMs(g.Seal.Start, g.Seal.Width))
			if bt.samples != 2002 {
				b.Fatalf("%d samples", bt.samples)
			}
		}
	})
	// The direct form (the buckets' shape), its batch reused as tgpush's is.
	b.Run("direct", func(b *testing.B) {
		bt := newBatch(extra)
		bt.direct = true
		b.ReportAllocs()
		for b.Loop() {
			bt.reset()
			bt.add(g, g.Seal.Start, tape.SampleMs(g.Seal.Start, g.Seal.Width))
			if bt.samples != 2002 {
				b.Fatalf("%d samples", bt.samples)
			}
		}
	})
}

// BenchmarkPushToAReceiverAcrossANetwork pushes a store of 10 groups of
// 12 000 series (three requests of the default --max-samples each) to a
// receiver that takes 5 ms to answer each request, as one across a
// network does: what the requests of a group in flight at once (Inflight)
// save. The figure is samples/s (sps); run this file in a tree at a
// commit before Inflight for the comparison (bench/README.md, session 12).
func BenchmarkPushToAReceiverAcrossANetwork(b *testing.B) {
	var text strings.Builder
	for k := range 10 {
		ts := fmt.Sprintf("2026-12-01T10:%02d:00Z", k)
		for s := range 12000 {
			fmt.Fprintf(&text, "%s requests{path=\"/p/%d\"} %d\n", ts, s, s+k)
		}
		fmt.Fprintf(&text, "seal %s width=1m entries=%d\n", ts, 12000)
	}
	dir := b.TempDir()
	doc := "format apache-combined\nwindow 1m\nmetric requests count by=path\n"
	if os.WriteFile(filepath.Join(dir, "document"), []byte(doc), 0o644) != nil || os.WriteFile(filepath.Join(dir, "tape"), []byte(text.String()), 0o644) != nil {
		b.Fatal("cannot write the store")
	}
	// A receiver that reads each request whole and answers 5 ms later.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		time.Sleep(5 * time.Millisecond)
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		cursor := filepath.Join(b.TempDir(), "c")
		if code, stderr := tgpush(context.Background(), "--once", "-q", "--cursor", cursor, "--url", srv.URL+"/api/v1/write", dir); code != 0 {
			b.Fatalf("exit %d: %s", code, stderr)
		}
	}
	b.ReportMetric(float64(10*12002*b.N)/b.Elapsed().Seconds(), "sps")
}

// BenchmarkFollowerReadsABacklog reads and parses a tape of 20 groups of
// 2 000 series by path and status (bench/push.sh's bypath store's shape)
// as tgpush's buckets shape does, a read's bound at a time: the reading
// half of tgpush's CPU, without the network's noise. The figure is ns per
// series line (ns/line).
func BenchmarkFollowerReadsABacklog(b *testing.B) {
	var text strings.Builder
	lines := 0
	for k := range 20 {
		ts := fmt.Sprintf("2026-12-01T10:%02d:00Z", k)
		for s := range 2000 {
			fmt.Fprintf(&text, "%s requests{path=\"/static/item/%d/detail.html\",status=\"%d\"} %d\n", ts, s, 200+s%3, s+k)
			lines++
		}
		fmt.Fprintf(&text, "seal %s width=1m entries=%d at=web:%d\n", ts, 2000, k*1000)
	}
	path := filepath.Join(b.TempDir(), "tape")
	if err := os.WriteFile(path, []byte(text.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	fl, err := openTape(path)
	if err != nil {
		b.Fatal(err)
	}
	defer fl.Close()
	fl.stream = true
	b.ReportAllocs()
	for b.Loop() {
		fl.off = 0
		n := 0
		for {
			groups, err := fl.read(int64(text.Len()), readBytes)
			if err != nil {
				b.Fatal(err)
			}
			if len(groups) == 0 {
				break
			}
			for _, g := range groups {
				n += len(g.Series)
			}
		}
		if n != lines {
			b.Fatalf("%d series read, want %d", n, lines)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*lines), "ns/line")
}
