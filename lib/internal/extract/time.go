package extract

import (
	"time"

	"github.com/timbertally/timbertally/lib/internal/civil"
	"github.com/timbertally/timbertally/lib/internal/doc"
)

// layoutKind is how a time field is read.
type layoutKind int

const (
	layoutGo layoutKind = iota // time.Parse with the document's layout
	layoutCLF
	layoutRFC3339
	layoutUnix
	layoutUnixMs
	layoutUnixUs
	layoutW3C
	layoutCloudFront
	layoutHAProxy
)

func layoutOf(layout string) layoutKind {
	switch layout {
	case doc.LayoutCLF:
		return layoutCLF
	case doc.LayoutRFC3339:
		return layoutRFC3339
	case doc.LayoutUnix:
		return layoutUnix
	case doc.LayoutUnixMs:
		return layoutUnixMs
	case doc.LayoutUnixUs:
		return layoutUnixUs
	case doc.LayoutW3C:
		return layoutW3C
	case doc.LayoutCloudFront:
		return layoutCloudFront
	case doc.LayoutHAProxy:
		return layoutHAProxy
	}
	return layoutGo
}

// The Unix seconds that int64 nanoseconds can hold (years 1678 to 2262):
// a time outside them does not parse rather than wrap around.
const (
	minSec = -9223372036
	maxSec = 9223372036
)

// time reads a time field as the document's layout says, into Unix
// nanoseconds.
func (x *Extractor) time(b []byte) (int64, bool) {
	switch x.layout {
	case layoutCLF:
		return x.clf.parseCLF(b)
	case layoutUnix:
		return parseUnitFrac(b, unitSeconds)
	case layoutUnixMs:
		return parseUnitFrac(b, unitMillis)
	case layoutUnixUs:
		return parseUnitFrac(b, unitMicros)
	case layoutW3C:
		return x.rfc.parseDateTime(b, ' ')
	case layoutCloudFront:
		return x.rfc.parseDateTime(b, '\t')
	case layoutHAProxy:
		return x.clf.parseHAProxy(b)
	case layoutRFC3339:
		if ns, ok := x.rfc.parse(b); ok {
			return ns, true
		}
		// What the hand-written reader does not take, time.Parse judges
		// (RFC3339 also reads an optional fractional second when parsing).
		return goTime(time.Parse(time.RFC3339, string(b)))
	}
	return goTime(time.Parse(x.d.Layout, string(b))) // UTC unless the layout has a zone
}

// goTime converts time.Parse's result, refusing times int64 nanoseconds
// cannot hold.
func goTime(t time.Time, err error) (int64, bool) {
	if err != nil || t.Unix() < minSec || t.Unix() >= maxSec {
		return 0, false
	}
	return t.UnixNano(), true
}

// clfDate remembers the last CLF date (dd/Mon/yyyy) read and its first
// second: consecutive entries almost always share their date, so its
// validation and day count are done once a day, not once an entry.
type clfDate struct {
	date [11]byte
	secs int64 // Unix seconds of the date's midnight, before the zone
	set  bool
	// The last whole time read and its result: a busy log writes many
	// lines a second, and comparing 26 bytes is cheaper than reading them.
	last   [26]byte
	lastNS int64
	hit    bool // last holds a time that parsed
}

// parseCLF reads Apache's %t without its brackets, exactly 26 bytes:
//
//	10/Oct/2000:13:55:36 -0700
//	0  3   7    12 15 18 21
//
// Every range is checked: day against the month's length (leap years
// included), hour 0-23, minute and second 0-59, zone ±hhmm with hh 0-23
// and mm 0-59.
func (c *clfDate) parseCLF(b []byte) (int64, bool) {
	if c.hit && string(b) == string(c.last[:]) {
		return c.lastNS, true
	}
	ns, ok := c.parse(b)
	if c.hit = ok; ok { // ok: b is 26 bytes
		copy(c.last[:], b)
		c.lastNS = ns
	}
	return ns, ok
}

// parse is parseCLF without the last time's shortcut.
func (c *clfDate) parse(b []byte) (int64, bool) {
	if len(b) != 26 || b[11] != ':' || b[14] != ':' || b[17] != ':' || b[20] != ' ' {
		return 0, false
	}
	if !c.set || string(b[:11]) != string(c.date[:]) {
		secs, ok := dateSecs(b[:11])
		if !ok {
			return 0, false
		}
		copy(c.date[:], b[:11])
		c.secs, c.set = secs, true
	}
	hour, minute, sec := num(b[12:14]), num(b[15:17]), num(b[18:20])
	zh, zm := num(b[22:24]), num(b[24:26])
	if hour < 0 || hour > 23 || minute < 0 || minute > 59 || sec < 0 || sec > 59 ||
		zh < 0 || zh > 23 || zm < 0 || zm > 59 {
		return 0, false
	}
	zone := int64(zh*3600 + zm*60)
	switch b[21] {
	case '+':
		zone = -zone // local time is ahead of UTC: subtract to reach UTC
	case '-':
	default:
		return 0, false
	}
	s := c.secs + int64(hour*3600+minute*60+sec) + zone
	if s < minSec || s >= maxSec {
		return 0, false
	}
	return s * int64(time.Second), true
}

// dateSecs reads dd/Mon/yyyy into the Unix seconds of its midnight.
func dateSecs(b []byte) (int64, bool) {
	if b[2] != '/' || b[6] != '/' {
		return 0, false
	}
	day, year, month := num(b[0:2]), num(b[7:11]), monthOf(b[3], b[4], b[5])
	if month == 0 || year < 0 || day < 1 || day > civil.DaysIn(month, year) {
		return 0, false
	}
	return civil.DaysFromCivil(year, month, day) * 86400, true
}

// num reads a run of ASCII digits, or returns -1 when b holds anything else.
func num(b []byte) int {
	n := 0
	for _, c := range b {
		if !isDigit(c) {
			return -1
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// monthOf returns 1-12 for English month abbreviations (as Apache writes
// them, whatever the locale), else 0.
func monthOf(a, b, c byte) int {
	switch uint32(a)<<16 | uint32(b)<<8 | uint32(c) {
	case 'J'<<16 | 'a'<<8 | 'n':
		return 1
	case 'F'<<16 | 'e'<<8 | 'b':
		return 2
	case 'M'<<16 | 'a'<<8 | 'r':
		return 3
	case 'A'<<16 | 'p'<<8 | 'r':
		return 4
	case 'M'<<16 | 'a'<<8 | 'y':
		return 5
	case 'J'<<16 | 'u'<<8 | 'n':
		return 6
	case 'J'<<16 | 'u'<<8 | 'l':
		return 7
	case 'A'<<16 | 'u'<<8 | 'g':
		return 8
	case 'S'<<16 | 'e'<<8 | 'p':
		return 9
	case 'O'<<16 | 'c'<<8 | 't':
		return 10
	case 'N'<<16 | 'o'<<8 | 'v':
		return 11
	case 'D'<<16 | 'e'<<8 | 'c':
		return 12
	}
	return 0
}

// unixUnit is a unix layout's unit and what parseUnitFrac needs of it,
// worked out once: per entry, the division and the loop of divisions
// that give them were half of parseUnitFrac's time.
type unixUnit struct {
	ns     int64 // nanoseconds a unit
	limit  int64 // whole units from which a time is past maxSec seconds
	digits int   // the fraction's digits that are whole nanoseconds: 9 for seconds
}

// The units of the unix layouts (seconds, milliseconds, microseconds).
var (
	unitSeconds = unitOf(int64(time.Second))
	unitMillis  = unitOf(int64(time.Millisecond))
	unitMicros  = unitOf(int64(time.Microsecond))
)

func unitOf(ns int64) unixUnit {
	u := unixUnit{ns: ns, limit: maxSec * (int64(time.Second) / ns)}
	for v := ns; v > 1; v /= 10 {
		u.digits++
	}
	return u
}

// parseUnitFrac reads units since the epoch, with an optional fraction
// ("1700000000", "1700000000123.5"); digits past nanoseconds are
// dropped.
func parseUnitFrac(b []byte, u unixUnit) (int64, bool) {
	limit, digits := u.limit, u.digits
	var n int64
	i := 0
	for ; i < len(b) && isDigit(b[i]); i++ {
		if n = n*10 + int64(b[i]-'0'); n >= limit {
			return 0, false
		}
	}
	if i == 0 {
		return 0, false
	}
	ns := n * u.ns
	if i == len(b) {
		return ns, true
	}
	if b[i] != '.' || i == len(b)-1 {
		return 0, false
	}
	// The fraction's first digits, as many as reach a nanosecond, read
	// as one integer: a division a digit costs more than the rest.
	var frac int64
	read := 0
	for _, c := range b[i+1:] {
		if !isDigit(c) {
			return 0, false
		}
		if read < digits {
			frac = frac*10 + int64(c-'0')
			read++
		}
	}
	for ; read < digits; read++ {
		frac *= 10
	}
	return ns + frac, true
}

// rfcDate is clfDate's date cache for RFC 3339 times (yyyy-mm-dd).
type rfcDate struct {
	date [10]byte
	secs int64
	set  bool
	// parse's last second (yyyy-mm-ddThh:mm:ss) and its Unix seconds,
	// before the zone: a log writes many lines a second, each with its
	// own fraction, and comparing 19 bytes is cheaper than reading them.
	second     [19]byte
	secondSecs int64
	secondSet  bool
}

// parse reads the common RFC 3339 form by hand, without allocating:
//
//	2026-10-10T13:55:36[.fraction](Z|+hh:mm|-hh:mm)
//
// ok is false for anything else (time.Parse then judges it), and for an
// out-of-range element, which time.Parse refuses too.
func (c *rfcDate) parse(b []byte) (int64, bool) {
	if len(b) >= 20 && c.secondSet && string(b[:19]) == string(c.second[:]) {
		return fractionZone(b, c.secondSecs)
	}
	if len(b) < 20 || b[4] != '-' || b[7] != '-' || b[10] != 'T' || b[13] != ':' || b[16] != ':' {
		return 0, false
	}
	if !c.set || string(b[:10]) != string(c.date[:]) {
		year, month, day := num(b[0:4]), num(b[5:7]), num(b[8:10])
		if year < 0 || month < 1 || month > 12 || day < 1 || day > civil.DaysIn(month, year) {
			return 0, false
		}
		copy(c.date[:], b[:10])
		c.secs, c.set = civil.DaysFromCivil(year, month, day)*86400, true
	}
	hour, minute, sec := num(b[11:13]), num(b[14:16]), num(b[17:19])
	if hour < 0 || hour > 23 || minute < 0 || minute > 59 || sec < 0 || sec > 59 {
		return 0, false
	}
	copy(c.second[:], b[:19])
	c.secondSecs, c.secondSet = c.secs+int64(hour*3600+minute*60+sec), true
	return fractionZone(b, c.secondSecs)
}

// fractionZone reads the [.fraction](Z|+hh:mm|-hh:mm) that follows the
// second of an RFC 3339 time b, whose Unix seconds before the zone are
// secs.
func fractionZone(b []byte, secs int64) (int64, bool) {
	i, frac := 19, int64(0)
	if b[i] == '.' {
		read := 0
		for i++; i < len(b) && isDigit(b[i]); i++ {
			if read < 9 { // digits past a nanosecond are dropped
				frac = frac*10 + int64(b[i]-'0')
				read++
			}
		}
		if i == 20 { // a dot without digits
			return 0, false
		}
		for ; read < 9; read++ {
			frac *= 10
		}
	}
	var zone int64
	switch z := b[i:]; {
	case len(z) == 1 && z[0] == 'Z':
	case len(z) == 6 && (z[0] == '+' || z[0] == '-') && z[3] == ':':
		zh, zm := num(z[1:3]), num(z[4:6])
		if zh < 0 || zh > 23 || zm < 0 || zm > 59 {
			return 0, false
		}
		if zone = int64(zh*3600 + zm*60); z[0] == '+' {
			zone = -zone
		}
	default:
		return 0, false
	}
	s := secs + zone
	if s < minSec || s >= maxSec-1 {
		return 0, false
	}
	return s*int64(time.Second) + frac, true
}
