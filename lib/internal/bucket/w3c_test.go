package bucket

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/timbertally/timbertally/lib/internal/doc"
)

// w3cDoc reads IIS logs by their #Fields headers, with a short grace and
// a small cap so that the generated log makes every kind of record.
const w3cDoc = `format w3c
window 10s grace=2s
cap 3
metric requests count by=status
metric bytes sum=bytes by=status,method
metric slowest max=duration by=status
`

// w3cLog generates an IIS log whose #Fields header changes the columns'
// order mid-file (as a changed logging config does), with the #Software
// and #Version headers IIS writes, jittered times and malformed lines.
func w3cLog(seed uint64, n int) []byte {
	rng := rand.New(rand.NewPCG(seed, 1))
	layouts := [][]string{
		strings.Fields("date time cs-method cs-uri-stem sc-status sc-bytes time-taken"),
		strings.Fields("date time sc-bytes time-taken sc-status cs-method cs-uri-stem c-ip"),
	}
	var b bytes.Buffer
	base := time.Date(2019, 8, 21, 15, 0, 0, 0, time.UTC)
	var cols []string
	for i := 0; i < n; i++ {
		if i%700 == 0 {
			cols = layouts[i/700%2]
			fmt.Fprintf(&b, "#Software: Microsoft Internet Information Services 10.0\r\n#Version: 1.0\r\n#Fields: %s\r\n", strings.Join(cols, " "))
		}
		if rng.IntN(50) == 0 {
			b.WriteString("garbage line\r\n")
			continue
		}
		t := base.Add(time.Duration(i)*100*time.Millisecond - time.Duration(rng.IntN(5))*time.Second)
		var vals []string
		for _, c := range cols {
			switch c {
			case "date":
				vals = append(vals, t.Format("2006-01-02"))
			case "time":
				vals = append(vals, t.Format("15:04:05"))
			case "cs-method":
				vals = append(vals, []string{"GET", "POST", "HEAD"}[rng.IntN(3)])
			case "cs-uri-stem":
				vals = append(vals, fmt.Sprintf("/p%d", rng.IntN(9)))
			case "sc-status":
				vals = append(vals, []string{"200", "404", "500", "0"}[rng.IntN(4)])
			case "sc-bytes":
				vals = append(vals, fmt.Sprint(rng.IntN(100000)))
			case "time-taken":
				vals = append(vals, fmt.Sprint(rng.IntN(3000)))
			case "c-ip":
				vals = append(vals, "10.0.0.1")
			}
		}
		b.WriteString(strings.Join(vals, " ") + "\r\n")
	}
	return b.Bytes()
}

// TestARestartInAW3CLogWritesTheUninterruptedTape is the exactly-once
// property over a log whose #Fields header changes mid-file: whatever the
// durable offset a crash leaves, the replay from it knows the columns
// again (tally's offset holds at the last #Fields header), so the tape is
// byte for byte the uninterrupted one; header lines are in no bucket and
// no marker.
func TestARestartInAW3CLogWritesTheUninterruptedTape(t *testing.T) {
	d, err := doc.Parse("w3c", []byte(w3cDoc))
	if err != nil {
		t.Fatal(err)
	}
	es := splitStore(w3cLog(5, 3000))
	want, snaps := runUntil(t, d, nil, 0, es, -1)
	for _, kind := range []string{"!late", "!drop", "!cap", "seal", `requests{status="0"}`} {
		if !bytes.Contains(want, []byte(kind)) {
			t.Fatalf("the data should make %s records", kind)
		}
	}
	if bytes.Contains(want, []byte("reason=header")) || bytes.Contains(want, []byte("reason=layout")) {
		t.Fatal("a header line became a !drop")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for round := 0; round < 200; round++ {
		crash := rng.IntN(len(snaps))
		reported := rng.IntN(crash + 1)
		lo, hi := snaps[reported].tapeLen, snaps[crash].tapeLen
		cut := lo + rng.IntN(hi-lo+1)
		if i := bytes.LastIndexByte(want[:cut], '\n'); cut > lo {
			cut = i + 1
		}
		tp := repaired(t, want[:max(cut, lo)])
		resume := snaps[reported].safe
		rest, _ := runUntil(t, d, knownFrom(t, tp, resume), resume, es, -1)
		if got := append(tp, rest...); !bytes.Equal(got, want) {
			i := 0
			for i < len(got) && i < len(want) && got[i] == want[i] {
				i++
			}
			t.Fatalf("round %d (crash after entry %d, offset %d from entry %d): the tape differs from the uninterrupted one at byte %d:\n got %.300s\nwant %.300s\nline at offset: %q", round, crash, resume, reported, i, got[max(0, i-100):], want[max(0, i-100):], es[reported].line)
		}
	}
}

// TestEachStoreOfAW3CDocumentReadsItsOwnFieldsHeader: two stores with
// different #Fields, their lines interleaved, each read by its own.
func TestEachStoreOfAW3CDocumentReadsItsOwnFieldsHeader(t *testing.T) {
	r := rollerFor(t, "format w3c\nwindow 10s\nmetric requests count by=status\nmetric bytes sum=bytes by=status\n", nil)
	a, b := r.AddStore("a", 0), r.AddStore("b", 0)
	pa := feedLines(r, a, 0, "#Fields: date time sc-status sc-bytes")
	pb := feedLines(r, b, 0, "#Fields: date time sc-bytes cs-method sc-status")
	pa = feedLines(r, a, pa, "2019-08-21 15:08:41 200 10")
	pb = feedLines(r, b, pb, "2019-08-21 15:08:42 7 GET 500")
	if got := r.Safe(a); got != 0 {
		t.Errorf("store a's safe offset is %d, want 0 (its #Fields header)", got)
	}
	pa = feedLines(r, a, pa, "#Fields: date time sc-bytes sc-status")
	feedLines(r, a, pa, "2019-08-21 15:08:43 20 404")
	feedLines(r, b, pb, "2019-08-21 15:08:44 8 GET 500")
	if got := r.Safe(a); got > pa {
		t.Errorf("store a's safe offset is %d, past %d (its second #Fields header)", got, pa)
	}
	r.End(a)
	r.End(b)
	r.Complete()
	out := string(r.Take())
	for _, want := range []string{`requests{status="200"} 1`, `requests{status="404"} 1`, `requests{status="500"} 2`,
		`bytes{status="200"} 10`, `bytes{status="404"} 20`, `bytes{status="500"} 15`, "entries=4 "} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "!drop") {
		t.Errorf("a header line became a marker:\n%s", out)
	}
}
