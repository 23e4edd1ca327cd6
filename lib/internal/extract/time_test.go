package extract

import (
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// TestParseCLFAgreesWithTimeParseOnRandomValidTimes reads random times,
// each followed by a few seconds later, so that the date cache is both
// missed and hit.
func TestParseCLFAgreesWithTimeParseOnRandomValidTimes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	lo := time.Date(1700, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	hi := time.Date(2250, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	var c clfDate
	var sec int64
	for i := range 100000 {
		offset := (r.IntN(28*60) - 14*60) * 60 // -14:00 .. +13:59 in whole minutes
		if i%2 == 0 {
			sec = lo + r.Int64N(hi-lo)
		} else {
			sec += r.Int64N(100) // often the same local date as the last
		}
		tm := time.Unix(sec, 0).In(time.FixedZone("", offset))
		s := tm.Format("02/Jan/2006:15:04:05 -0700")
		want, err := time.Parse("02/Jan/2006:15:04:05 -0700", s)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := c.parseCLF([]byte(s))
		if !ok || got != want.UnixNano() {
			t.Fatalf("parseCLF(%q) = %v, %v; want %v", s, time.Unix(0, got).UTC(), ok, want.UTC())
		}
	}
}

func TestParseCLFRefusesOutOfRangeFields(t *testing.T) {
	var c clfDate
	c.parseCLF([]byte("10/Oct/2000:13:55:36 -0700")) // a cached date must not let a bad time through
	for _, s := range []string{
		"31/Feb/2000:13:55:36 -0700", // February is never 31 days
		"29/Feb/1900:13:55:36 -0700", // 1900 is not a leap year
		"31/Apr/2000:13:55:36 -0700",
		"00/Oct/2000:13:55:36 -0700",
		"32/Oct/2000:13:55:36 -0700",
		"10/Oct/2000:24:00:00 -0700",
		"10/Oct/2000:13:60:36 -0700",
		"10/Oct/2000:13:55:60 -0700",
		"10/Oct/2000:13:55:36 +0960",
		"10/Oct/2000:13:55:36 +2400",
		"10/Oct/2000:13:55:36 *0700",
		"10/oct/2000:13:55:36 -0700",
		"10/Oct/2000:13:55:36 -070",
		"10/Oct/2000:13:55:36 -07000",
		"1/Oct/2000:13:55:36 -0700 ",
		"10/Oct/200x:13:55:36 -0700",
		"10-Oct-2000:13:55:36 -0700",
		"10/Oct/2000 13:55:36 -0700",
		"10/Oct/1600:13:55:36 -0700", // before what int64 nanoseconds hold
		"10/Oct/2300:13:55:36 -0700", // after it
	} {
		if ns, ok := c.parseCLF([]byte(s)); ok {
			t.Errorf("parseCLF(%q) = %v, want a refusal", s, time.Unix(0, ns).UTC())
		}
	}
	if _, ok := new(clfDate).parseCLF([]byte("29/Feb/2000:23:59:59 +1400")); !ok {
		t.Error("parseCLF refused 29 February of 2000, a leap year")
	}
}

func TestExtractReadsEachTimeLayout(t *testing.T) {
	want := time.Date(2026, 10, 10, 13, 55, 36, 250_000_000, time.UTC).UnixNano()
	for _, c := range []struct{ layout, value string }{
		{"rfc3339", "2026-10-10T13:55:36.25Z"},
		{"rfc3339", "2026-10-10T15:55:36.25+02:00"},
		{"unix", "1791640536.25"},
		{"unix", "1791640536.250000000999"},
		{"unix", "1791640536.2500000009"},
		{"unixms", "1791640536250"},
		{"unixms", "1791640536250.0000001"},
		{"unixus", "1791640536250000"},
		{"2006-01-02 15:04:05.000", "2026-10-10 13:55:36.250"},
		{"2006-01-02 15:04:05.000 -0700", "2026-10-10 06:55:36.250 -0700"},
		{"clf", "10/Oct/2026:13:55:36 +0000"},
	} {
		x := newExtractor(t, "format regex ^(?P<t>.*)$\ntime t layout="+c.layout+"\nwindow 1s\nmetric r count\n")
		var e Entry
		if r := x.Extract([]byte(c.value), &e); r != "" {
			t.Errorf("layout %s: Extract(%q) = %q", c.layout, c.value, r)
			continue
		}
		w := want
		if c.layout == "clf" {
			w -= 250_000_000 // CLF has whole seconds
		}
		if e.Time != w {
			t.Errorf("layout %s: %q read as %v, want %v", c.layout, c.value, time.Unix(0, e.Time).UTC(), time.Unix(0, w).UTC())
		}
	}
}

func TestExtractRefusesTimesThatDoNotParse(t *testing.T) {
	for _, c := range []struct{ layout, value string }{
		{"rfc3339", "2026-10-10 13:55:36Z"},
		{"rfc3339", ""},
		{"unix", ""},
		{"unix", "-5"},
		{"unix", "17.1.1"},
		{"unix", "1791640536."},
		{"unix", ".5"},
		{"unix", "99999999999"},
		{"unixms", "1791640536250."},
		{"unixms", "1791640536250.5.1"},
		{"unixms", ""},
		{"unixms", "99999999999999"},
		{"2006-01-02", "2026-13-01"},
		{"2006-01-02", "0001-01-01"},
	} {
		x := newExtractor(t, "format regex ^(?P<t>.*)$\ntime t layout="+c.layout+"\nwindow 1s\nmetric r count\n")
		var e Entry
		if r := x.Extract([]byte(c.value), &e); r != ReasonTime {
			t.Errorf("layout %s: Extract(%q) = %q, want %q", c.layout, c.value, r, ReasonTime)
		}
	}
}

// FuzzRFC3339 checks that every time the hand-written reader accepts,
// time.Parse reads as the same instant, and that one it accepts
// time.Parse does not is none.
func FuzzRFC3339(f *testing.F) {
	f.Add([]byte("2026-10-10T13:55:36Z"))
	f.Add([]byte("2026-10-10T13:55:36.123456789123+05:30"))
	f.Add([]byte("2000-02-29T23:59:59-23:59"))
	var c rfcDate
	f.Fuzz(func(t *testing.T, b []byte) {
		got, ok := c.parse(b)
		want, err := time.Parse(time.RFC3339, string(b))
		if ok && (err != nil || want.UnixNano() != got) {
			t.Fatalf("parse(%q) = %v; time.Parse says %v, %v", b, time.Unix(0, got).UTC(), want.UTC(), err)
		}
	})
}

// FuzzParseUnitFrac checks unix times (seconds, milliseconds,
// microseconds, with a fraction) against exact rational arithmetic: the
// nanoseconds are the value times the unit, rounded down, and a time
// whose whole units reach maxSec seconds is refused.
func FuzzParseUnitFrac(f *testing.F) {
	f.Add([]byte("1791640500.030748118"), uint8(0))
	f.Add([]byte("0000000000000000000001.5"), uint8(1))
	f.Add([]byte("9223372036"), uint8(0))
	f.Add([]byte("1700000000123.4567891"), uint8(2))
	units := []int64{int64(time.Second), int64(time.Millisecond), int64(time.Microsecond)}
	f.Fuzz(func(t *testing.T, b []byte, u uint8) {
		unit := units[int(u)%len(units)]
		got, ok := parseUnitFrac(b, unitOf(unit))
		whole, frac, dot := strings.Cut(string(b), ".")
		valid := isDigits([]byte(whole)) && (!dot || isDigits([]byte(frac)))
		var want *big.Int
		if valid {
			r, _ := new(big.Rat).SetString(string(b))
			r.Mul(r, new(big.Rat).SetInt64(unit))
			want = new(big.Int).Quo(r.Num(), r.Denom())
			w, _ := new(big.Int).SetString(whole, 10)
			valid = w.Cmp(big.NewInt(maxSec*(int64(time.Second)/unit))) < 0
		}
		if ok != valid || ok && want.Cmp(big.NewInt(got)) != 0 {
			t.Fatalf("parseUnitFrac(%q, %d) = %d, %v; want %v, %v", b, unit, got, ok, want, valid)
		}
	})
}

// TestTimesInOneSecondAreReadFromTheRememberedSecond reads a sequence of
// RFC 3339 times through one rfcDate, and of HAProxy's through one
// clfDate: those within the second read before take it from memory (their
// fraction, and an RFC 3339 zone, still read), and each agrees with a
// reader that remembers nothing and, where it reads the time, with
// time.Parse.
func TestTimesInOneSecondAreReadFromTheRememberedSecond(t *testing.T) {
	var rfc rfcDate
	for _, s := range []string{
		"2016-04-15T20:17:00.310Z",
		"2016-04-15T20:17:00.311Z",
		"2016-04-15T20:17:00+02:00",
		"2016-04-15T20:17:00.5-01:30",
		"2016-04-15T20:17:00.Z", // a dot without digits, after the same second
		"2016-04-15T20:17:00.1+24:00",
		"2016-04-15T20:17:01.001Z",
		"2016-04-16T20:17:01.001Z", // another day, the same time of day
		"2016-04-16T20:17:61.001Z",
		"2016-04-16T20:17:01.002Z",
	} {
		ok := readsAsAlone(t, s, time.RFC3339, rfc.parse, func(b []byte) (int64, bool) {
			var fresh rfcDate
			return fresh.parse(b)
		})
		if ok && (!rfc.secondSet || string(rfc.second[:]) != s[:19]) {
			t.Errorf("parse(%q) left its second unremembered: %q", s, rfc.second)
		}
	}
	var clf clfDate // HAProxy's: the milliseconds added to the second
	for _, s := range []string{
		"05/Dec/2026:02:00:01.004",
		"05/Dec/2026:02:00:01.999",
		"05/Dec/2026:02:00:01.000",
		"05/Dec/2026:02:00:01.5x0", // the same second, a fraction that is not digits
		"05/Dec/2026:02:00:01.12",  // a shorter fraction
		"05/Dec/2026:02:00:01.120",
		"05/Dec/2026:02:00:01",
		"05/Dec/2026:02:00:01.120",
		"05/Dec/2026:02:00:02.001",
		"06/Dec/2026:02:00:02.002", // another day, the same time of day
		"06/Dec/2026:02:00:61.002",
		"06/Dec/2026:02:00:02.003",
		"31/Dec/1969:23:59:59.250", // before 1970: the second's nanoseconds are negative
		"31/Dec/1969:23:59:59.750",
	} {
		readsAsAlone(t, s, "02/Jan/2006:15:04:05.999999999", clf.parseHAProxy, func(b []byte) (int64, bool) {
			var fresh clfDate
			return fresh.haproxy(b)
		})
	}
}

// readsAsAlone checks that parse, a reader that remembers the times read
// before, reads s as fresh (one that remembers nothing) does and, where
// it reads it, as time.Parse does in layout; it returns parse's ok.
func readsAsAlone(t *testing.T, s, layout string, parse, fresh func([]byte) (int64, bool)) bool {
	t.Helper()
	got, ok := parse([]byte(s))
	want, wantOK := fresh([]byte(s))
	if got != want || ok != wantOK {
		t.Errorf("%q reads as %v %v after the times before it, %v %v alone", s, got, ok, want, wantOK)
	}
	if tt, err := time.Parse(layout, s); ok && (err != nil || tt.UnixNano() != got) {
		t.Errorf("%q reads as %v %v; time.Parse says %v, %v", s, got, ok, tt, err)
	}
	return ok
}
