package tape

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"
)

// checkWholeSecond holds the time fast path to time.Parse: where it reads a
// time, the same Unix nanoseconds; where time.Parse refuses, it reads none.
func checkWholeSecond(t *testing.T, s string) {
	t.Helper()
	ns, ok := wholeSecondUTC(s)
	want, err := time.Parse(time.RFC3339Nano, s)
	switch {
	case ok && err != nil:
		t.Fatalf("%q: the fast path reads %d, time.Parse refuses it (%v)", s, ns, err)
	case ok && want.UnixNano() != ns:
		t.Fatalf("%q: the fast path reads %d, time.Parse %d", s, ns, want.UnixNano())
	}
}

// The whole-second fast path reads every time AppendTime writes for a
// whole second from 1970 to 2199 (each day's first and last second, and
// random seconds) as time.Parse does, and leaves the rest to it.
func TestTheWholeSecondFastPathReadsWhatTimeParseReads(t *testing.T) {
	for day := time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC); day.Year() < 2200; day = day.AddDate(0, 0, 1) {
		for _, at := range []time.Time{day, day.Add(24*time.Hour - time.Second)} {
			s := string(AppendTime(nil, at.UnixNano()))
			if ns, ok := wholeSecondUTC(s); !ok || ns != at.UnixNano() {
				t.Fatalf("%q: the fast path reads %d (%v), want %d", s, ns, ok, at.UnixNano())
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		checkWholeSecond(t, string(AppendTime(nil, r.Int64N(7_258_118_400)*1e9)))
	}
	for _, s := range []string{"2026-02-29T00:00:00Z", "2024-02-29T00:00:00Z", "2100-02-29T00:00:00Z", "2000-02-29T12:00:00Z",
		"2026-04-31T00:00:00Z", "2026-12-05T24:00:00Z", "2026-12-05T23:60:00Z", "2026-12-05T23:59:60Z",
		"1969-12-31T23:59:59Z", "2200-01-01T00:00:00Z", "2026-12-05T10:00:00z", "2026-12-05 10:00:00Z", "+026-12-05T10:00:00Z",
		"2026-12-05T10:00:00.5Z", "2026-12-05T10:00:00+00:00", "2026-00-05T10:00:00Z", "2026-12-00T10:00:00Z"} {
		checkWholeSecond(t, s)
	}
}

func FuzzTheWholeSecondFastPathReadsWhatTimeParseReads(f *testing.F) {
	f.Add("2026-12-05T10:00:00Z")
	f.Add("2024-02-29T23:59:59Z")
	f.Fuzz(func(t *testing.T, s string) { checkWholeSecond(t, s) })
}

// checkSmallWhole holds the value fast path to strconv.ParseFloat.
func checkSmallWhole(t *testing.T, s string) {
	t.Helper()
	v, ok := smallWhole(s)
	want, err := strconv.ParseFloat(s, 64)
	if ok && (err != nil || math.Float64bits(v) != math.Float64bits(want)) {
		t.Fatalf("%q: the fast path reads %v, strconv.ParseFloat %v (%v)", s, v, want, err)
	}
}

// The whole-number fast path reads every value AppendValue writes for a
// whole number of up to 15 digits as strconv.ParseFloat does, and leaves
// the rest (a sign, a fraction, an exponent, 16 digits or more) to it.
func TestTheWholeNumberFastPathReadsWhatParseFloatReads(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 200000 {
		n := r.Int64N(1_000_000_000_000_000)
		s := string(AppendValue(nil, float64(n>>(i%50))))
		if _, ok := smallWhole(s); !ok && len(s) <= 15 {
			t.Fatalf("%q: left to strconv.ParseFloat", s)
		}
		checkSmallWhole(t, s)
	}
	for _, s := range []string{"0", "00", "007", "999999999999999", "9999999999999999", "-1", "+1", "1.0", "1e3", "0x10", "1_000", "", " 1"} {
		checkSmallWhole(t, s)
	}
	if _, ok := smallWhole(fmt.Sprint(uint64(1) << 60)); ok {
		t.Error("a 19-digit number was read by the fast path")
	}
}

func FuzzTheWholeNumberFastPathReadsWhatParseFloatReads(f *testing.F) {
	f.Add("431")
	f.Add("0.25")
	f.Fuzz(func(t *testing.T, s string) { checkSmallWhole(t, s) })
}
