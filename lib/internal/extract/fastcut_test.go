package extract

import (
	"strings"
	"testing"
)

// generalExtractor is namedExtractor with its straight-line cuts turned
// off: the compiled cutter alone, the one a fast cut must agree with.
func generalExtractor(t testing.TB, format string) *Extractor {
	x := namedExtractor(t, format)
	if x.nf != nil {
		x.nf.fast = nil
	}
	return x
}

// fastCutFormats are the formats FuzzNamedFastCuts holds to their
// general cutter, with lines of theirs to start from.
var fastCutFormats = []struct {
	format, file string
	seeds        []string
}{
	{"haproxy httplog", "haproxy-httplog.log", nil},
	{"haproxy httpslog", "haproxy-httpslog.log", []string{
		`1.2.3.4:5 [27/Jan/2021:21:52:56.086] f b/s 0/0/1/1/2 200 517 - - ---- 1/1/0/0/0 0/0 "GET / HTTP/1.1" 0/0/0/0/0 a/TLSv1.3/X Y`,
		`1.2.3.4:5 [27/Jan/2021:21:52:56.086] f b/s 0/0/1/1/2 200 517 - - ---- 1/1/0/0/0 0/0 "GET / HTTP/1.1" 0//0/0/0 a/TLSv1.3/X`,
		`1.2.3.4:5 [27/Jan/2021:21:52:56.086] f b/s 0/0/1/1/2 200 517 - - ---- 1/1/0/0/0 0/0 "GET / HTTP/1.1" 0/0/0/0/0 a/TLSv1.3/`,
		`1.2.3.4:5 [27/Jan/2021:21:52:56.086] f b/s 0/0/1/1/2 200 517 - - ---- 1/1/0/0/0 0/0 "GET / HTTP/1.1" 0/0/0/0/0 a/b/c/d`,
	}},
	{"haproxy tcplog", "haproxy-tcplog.log", nil},
	{"envoy", "envoy.log", nil},
	{"squid", "squid.log", []string{
		"1286536309.450     98 192.168.0.68 TCP_MISS/200 411 GET http://www.google.com/ - DIRECT/74.125.77.99 text/html",
		"1286536309.450 98  192.168.0.68   TCP_MISS/200  411  GET  http://x/ -  DIRECT/1.2.3.4  text/html ",
		" 1286536309.450 98 h TCP_MISS/200 411 GET u - DIRECT/a t",
		"1286536309 -98 h TCP_MISS/200 411 GET u - DIRECT/a t",
		"1286536309 98 h TCP MISS/200 411 GET u - DIRECT/a t/x y",
		"1286536309 98 h TCP_MISS/20 411 GET u - DIRECT/a/b t",
		"1286536309 98.5 h /200 - GET u - DIRECT/ t",
	}},
	{"awselb", "awselb.log", []string{
		`2015-05-13T23:39:43.945958Z my-loadbalancer 192.168.131.39:2817 10.0.0.1:80 0.000073 0.001048 0.000057 200 200 0 29 "GET http://www.example.com:80/ HTTP/1.1" "curl/7.38.0" - -`,
		`2015-05-13T23:39:43.945958Z lb 1.2.3.4:2817 - -1 -1 -1 503 0 120 0 "GET http://x/ HTTP/1.1" "a \"b\" c" - TLS 1.2`,
		`2015-05-13T23:39:43.945958Z lb 1.2.3.4:2817 - - 1e3 -0.5 503 - - 0000000000000000 "" "" - -`,
		` lb 1.2.3.4:2817 - 0.1 0.2 0.3 503 0 120 0 "GET / HTTP/1.1" "ua"  -`,
		`2015-05-13T23:39:43.945958Z lb 1.2.3.4:2817 - 0.1 0.2 0.3 503 0 120 0 "GET / HTTP/1.1" "ua"x - -`,
	}},
	{"traefikclf", "traefikclf.log", []string{
		`192.168.2.1 - - [13/Aug/2018:10:20:30 +0000] "GET /whoami HTTP/1.1" 200 438 "-" "curl/7.58.0" 1 "whoami@docker" "http://172.18.0.4:80" 1ms`,
		`10.0.0.9 - - [13/Aug/2018:10:20:33 +0000] "GET / HTTP/1.1" 200 17 "-" "curl" - "a\"b" "" 1.5ms`,
		`10.0.0.9 - - [13/Aug/2018:10:20:33 +0000] "GET / HTTP/1.1" 200 17 "-" "curl" -4 "api@file" "http://172.18.0.6:9000" -ms`,
		`10.0.0.9 - - [13/Aug/2018:10:20:33 +0000] "GET / HTTP/1.1" 200 17 "-" "curl" 4 "api@file" "http://172.18.0.6:9000" 3ms `,
		`10.0.0.9 - - [13/Aug/2018:10:20:33 +0000] "GET / HTTP/1.1" 200 17 "-" "curl" 4 "api@file""http://172.18.0.6:9000" 3ms`,
		`10.0.0.9 - - [13/Aug/2018:10:20:33 +0000] "GET / HTTP/1.1" 200 17 "-" "curl" 4 "api@file" "x" 3m`,
		`10.0.0.9 - - [13/Aug/2018:10:20:33 +0000] "GET / HTTP/1.1" 200 17 "-" "curl" 4 "api@file" "x" 3mss`,
	}},
	{"cloudstorage", "cloudstorage.log", []string{
		`"1392141213000000","2001:db8::1","2","","PUT","/example-bucket/photo.jpg","503","2048","0","2500","storage.googleapis.com","","curl/7.35.0","AEnB2UoJ","PUT_Object","example-bucket","photo.jpg"`,
		`"1392141213000000","2001:db8::1","2","","PUT","/a\"b","503","-","0","-","h","","c","A","P","b","p"`,
		`"1392141213000000","2001:db8::1","2","","PUT","/a\","503","-","0","-","h","","c","A","P","b","p"`, // an escaped quote: a field fewer
		`"1392141213000000","2001:db8::1","2","","PUT","/a","-1","-","0000000000000000","1.5","h","","c","A","P","b","p"`,
		`"1392141213000000","2001:db8::1","2","","PUT","/a","200","7","0","-2","h","","c","A","P","b","p"x`,
		`"1392141213000000","2001:db8::1","2","","PUT","/a","200","7","0","x","h","","c","A","P","b"`,
	}},
}

// FuzzNamedFastCuts checks each straight-line cut against the compiled
// cutter it stands in for: on any line, the same reason, and for an
// entry the same time, fields and numbers.
func FuzzNamedFastCuts(f *testing.F) {
	type pair struct{ fast, general *Extractor }
	var pairs []pair
	for i, c := range fastCutFormats {
		// Each format twice: with every request part and common name
		// set (--try --fields), and as a document that reads none.
		for _, cut := range []bool{true, false} {
			fast, general := namedExtractor(f, c.format), generalExtractor(f, c.format)
			if cut {
				fast.CutRequests()
				general.CutRequests()
			}
			pairs = append(pairs, pair{fast, general})
		}
		for _, l := range fixtureLines(f, c.file) {
			f.Add(uint8(2*i), string(l))
			f.Add(uint8(2*i+1), string(l))
		}
		for _, l := range c.seeds {
			f.Add(uint8(2*i), l)
			f.Add(uint8(2*i+1), l)
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, line string) {
		if strings.Contains(line, "\n") {
			return
		}
		p := pairs[int(which)%len(pairs)]
		sameCut(t, p.fast, p.general, []byte(line))
	})
}

// TestSquidPaddingIsReadInPlaceWithoutACopy extracts a padded squid line:
// its fields are the line's own bytes, not a squeezed copy's, and read
// as the general cutter reads them.
func TestSquidPaddingIsReadInPlaceWithoutACopy(t *testing.T) {
	line := []byte("1286536309.450     98 192.168.0.68 TCP_MISS/200 411 GET http://www.google.com/ - DIRECT/74.125.77.99 text/html")
	x := namedExtractor(t, "squid")
	var e Entry
	if r := x.Extract(line, &e); r != "" {
		t.Fatalf("dropped: %s", r)
	}
	for i, n := range x.names[:x.ownFields()] {
		if !within(e.Fields[i], line) {
			t.Errorf("field %s (%q) is not the line's own bytes", n, e.Fields[i])
		}
	}
	sameCut(t, x, generalExtractor(t, "squid"), line)
}

// TestStraightLineCutsReadTheFixturesEntriesThemselves runs each fast
// cut on its fixture's entries: it reads every one of them itself, none
// left to the compiled cutter (a shape check that failed, or a cut that
// gave up on a line as logged, would pass every other test, slowly).
func TestStraightLineCutsReadTheFixturesEntriesThemselves(t *testing.T) {
	for _, c := range fastCutFormats {
		x := namedExtractor(t, c.format)
		if x.nf.fast == nil {
			t.Fatalf("%s: no straight-line cut (its layout is not the one the cut is written for)", c.format)
		}
		n := 0
		for _, l := range fixtureLines(t, c.file) {
			var e Entry
			if x.Extract(l, &e) != "" {
				continue
			}
			e.gen++
			if x.nf.syslog {
				l = afterSpaces(afterSyslog(l)) // as named passes them over before the cut
			}
			if !x.nf.fast(x, l, &e) {
				t.Errorf("%s: %q is left to the compiled cutter", c.format, l)
			}
			n++
		}
		if n == 0 {
			t.Errorf("%s: no entries in %s", c.format, c.file)
		}
	}
}
