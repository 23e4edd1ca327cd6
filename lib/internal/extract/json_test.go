package extract

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

const (
	jsonDoc    = "format json method=request.method ua=request.headers.User-Agent.0\ntime ts layout=unix\nwindow 10s\nmetric r count by=status,method\nmetric d sum=duration by=ua\n"
	jsonLine   = `{"level":"info","ts":1791640536.5241024,"logger":"http.log.access","msg":"handled request","request":{"remote_ip":"203.0.113.195","proto":"HTTP/2.0","method":"GET","host":"example.com","uri":"/static/js/app.min.js?v=20261010","headers":{"User-Agent":["Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"],"Accept":["*/*"]}},"duration":0.000812,"size":48213,"status":200}`
	logfmtDoc  = "format logfmt\ntime ts layout=rfc3339\nwindow 10s\nmetric r count by=status,method\nmetric d sum=duration by=path\n"
	logfmtLine = `ts=2026-10-10T13:55:36.524Z level=info msg="handled request" method=GET path="/static/js/app.min.js?v=20261010" status=200 size=48213 duration=0.000812 ua="Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"`
)

func TestJSONReadsKeyPathsAndUnescapesStrings(t *testing.T) {
	x := newExtractor(t, jsonDoc)
	for _, c := range []struct {
		line string
		want map[string]string
	}{
		{jsonLine, map[string]string{"status": "200", "method": "GET", "duration": "0.000812",
			"ua": "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"}},
		{`{"ts":1791640536,"status":"4\u0030\u0034","request":{"method":"G\"E\\T","headers":{"User-Agent":["caf\u00e9 \ud83d\ude00 \ud800"]}}}`,
			map[string]string{"status": "404", "method": `G"E\T`, "ua": "café 😀 \uFFFD", "duration": ""}},
		{"{\"ts\":1791640536, \"status\":null, \"request\":{\"method\":\"\xff\xfe\"}, \"duration\":2.5e-3}",
			map[string]string{"status": "", "method": "\xff\xfe", "ua": "", "duration": "2.5e-3"}},
		{`{"ts":1791640536,"request":{"method":"A","headers":{"User-Agent":"not an array"}},"status":{"code":5}}`,
			map[string]string{"status": `{"code":5}`, "method": "A", "ua": ""}},
		{`{"status":500,"status":501,"ts":1791640536,"request":[1,2]}`, map[string]string{"status": "501", "method": ""}},
	} {
		var e Entry
		if r := x.Extract([]byte(c.line), &e); r != "" {
			t.Errorf("Extract(%s) = %q", c.line, r)
			continue
		}
		for k, v := range c.want {
			if got := string(e.Fields[x.Field(k)]); got != v {
				t.Errorf("%s: %s = %q, want %q", c.line, k, got, v)
			}
		}
	}
	var e Entry
	x.Extract([]byte(`{"ts":1791640536,"duration":2.5e-3}`), &e)
	if d, ok := e.Number(x.Field("duration")); !ok || d != 0.0025 {
		t.Errorf("an exponent's number: %v, %v", d, ok)
	}
	if x.Extract([]byte(jsonLine), &e); e.Time != time.Date(2026, 10, 10, 13, 55, 36, 524102400, time.UTC).UnixNano() {
		t.Errorf("Caddy's fractional ts read as %v", time.Unix(0, e.Time).UTC())
	}
}

func TestJSONDropsWhatIsNotOneObject(t *testing.T) {
	x := newExtractor(t, jsonDoc)
	for _, line := range []string{
		``, `[1]`, `"ts"`, `{"ts":1791640536`, `{"ts":1791640536}x`, `{"ts":1791640536}{}`, `{"ts":01}`,
		`{"ts":1791640536,"a":[1 2]}`, `{"ts":1791640536,"a":tru}`, `{"ts":1791640536,"a":"\q"}`,
		`{"ts":1791640536,"request":{"method":"\u12"}}`, `{ts:1}`, `{"ts":1791640536,}`,
		`{"ts":1791640536,"a":{"\q":1}}`, `{"ts":1791640536,"a":[{"b\x":1}]}`,
		jsonLine[:len(jsonLine)/2], `Dec  1 21:14:10 host sshd[1]: Accepted publickey`,
	} {
		var e Entry
		if r := x.Extract([]byte(line), &e); r != ReasonFormat {
			t.Errorf("Extract(%s) = %q, want %q", line, r, ReasonFormat)
		}
	}
	var e Entry
	if r := x.Extract([]byte(`{"status":200}`), &e); r != ReasonTime {
		t.Errorf("a line without its time key: %q, want %q", r, ReasonTime)
	}
}

func TestLogfmtReadsGoLogfmtsGrammar(t *testing.T) {
	x := newExtractor(t, logfmtDoc)
	for _, c := range []struct {
		line string
		want map[string]string
	}{
		{logfmtLine, map[string]string{"status": "200", "method": "GET", "duration": "0.000812", "path": "/static/js/app.min.js?v=20261010"}},
		{`ts=2026-10-10T13:55:36Z method="P\"O\\ST \u00e9" status path= duration=`, map[string]string{"status": "", "method": `P"O\ST é`, "path": ""}},
		{"ts=2026-10-10T13:55:36Z\tmethod=\xff status=1 status=2", map[string]string{"status": "2", "method": "\xff"}},
	} {
		var e Entry
		if r := x.Extract([]byte(c.line), &e); r != "" {
			t.Errorf("Extract(%s) = %q", c.line, r)
			continue
		}
		for k, v := range c.want {
			if got := string(e.Fields[x.Field(k)]); got != v {
				t.Errorf("%s: %s = %q, want %q", c.line, k, got, v)
			}
		}
	}
	for _, line := range []string{`ts=2026-10-10T13:55:36Z a=b=c`, `ts=2026-10-10T13:55:36Z a="b`, `ts=2026-10-10T13:55:36Z a="b"c`,
		`ts=2026-10-10T13:55:36Z =x`, `ts=2026-10-10T13:55:36Z a"b=c`, `ts=2026-10-10T13:55:36Z a="\x"`} {
		var e Entry
		if r := x.Extract([]byte(line), &e); r != ReasonFormat {
			t.Errorf("Extract(%s) = %q, want %q", line, r, ReasonFormat)
		}
	}
}

// FuzzJSON checks the contract, and that a line encoding/json reads as
// one object with string keys is never refused as a format error, its
// top-level strings read alike.
func FuzzJSON(f *testing.F) {
	f.Add([]byte(jsonLine))
	f.Add([]byte(`{"ts":1791640536,"status":"4\u0030\u0034","request":{"method":"G\"E\\T","headers":{"User-Agent":["caf\u00e9 \ud83d\ude00"]}}}`))
	f.Add([]byte("{\"ts\":1,\"status\":null,\"duration\":2.5e-3,\"x\":[[[{}]]]}\r"))
	x := newExtractor(f, "format json\ntime ts layout=unix\nwindow 1s\nmetric r count by=status\nmetric s sum=a.b.0\n")
	f.Fuzz(func(t *testing.T, line []byte) {
		checkAnyExtract(t, x, line)
		var m map[string]any
		if !utf8.Valid(line) || json.Unmarshal(line, &m) != nil || m == nil {
			return
		}
		var e Entry
		r := x.Extract(line, &e)
		if r == ReasonFormat {
			t.Fatalf("Extract(%q) refused an object encoding/json reads", line)
		}
		if s, ok := m["status"].(string); ok && r == "" && string(e.Fields[x.Field("status")]) != s {
			t.Fatalf("Extract(%q): status %q, encoding/json %q", line, e.Fields[x.Field("status")], s)
		}
	})
}

func FuzzLogfmt(f *testing.F) {
	f.Add([]byte(logfmtLine))
	f.Add([]byte(`ts=2026-10-10T13:55:36Z method="P\"O\\ST \u00e9" status path= duration=`))
	x := newExtractor(f, logfmtDoc)
	f.Fuzz(func(t *testing.T, line []byte) {
		checkAnyExtract(t, x, line)
	})
}

func FuzzApacheLogFormat(f *testing.F) {
	f.Add([]byte(`h - - [10/Oct/2026:13:55:36 +0000] "GET / HTTP/1.1" 200 1 "-" "-" 12 www "1.2.3.4"`))
	f.Add([]byte(`2001:db8::1 - - [10/Oct/2026:13:55:36 +0530] "POST /api?q=\"x\" HTTP/2.0" 201 - "-" "curl/8" 1234567 www.example.com "-"`))
	f.Add([]byte(`h - - [10/Oct/2026:13:55:36 +0000] "GET / HTTP/1.1" 200 1 "-" "-" 0.5 www "-"`))
	f.Add([]byte(`h - - [10/Oct/2026:13:55:36 +0000] "GET / HTTP/1.1" 200 1 "-" "-" 1234567890123456 www "-"`))
	x, loop := newExtractor(f, apacheDurationLF), generic(f, apacheDurationLF)
	f.Fuzz(func(t *testing.T, line []byte) {
		checkAnyExtract(t, x, line)
		sameCut(t, x, loop, line)
		// A number read as it is cut is Number's.
		var e Entry
		if x.Extract(line, &e) == "" {
			for i, fv := range e.Fields {
				v, ok := e.Number(i)
				if w, wok := Number(fv); v != w || ok != wok {
					t.Fatalf("%q: %s = %q: %v, %v as cut, Number %v, %v", line, x.names[i], fv, v, ok, w, wok)
				}
			}
		}
	})
}

func FuzzNginxLogFormat(f *testing.F) {
	f.Add([]byte(`10.0.0.1 - - [10/Oct/2026:13:55:36 -0700] "GET / HTTP/1.1" 502 0 "-" "-" 0.015 0.012, - : 0.100`))
	f.Add([]byte(`10.0.0.1 - - [10/Oct/2026:13:55:36 -0700] "GET / HTTP/1.1" 200 612 "-" "a\x22b\x5C" 0.015 0.012`))
	x, loop := newExtractor(f, nginxLF), generic(f, nginxLF)
	f.Fuzz(func(t *testing.T, line []byte) {
		checkAnyExtract(t, x, line)
		sameCut(t, x, loop, line)
	})
}

// checkAnyExtract checks the contract of every format: a reason word, or
// every field set, each part of the line, of the extractor's buffer of
// unescaped strings, or "-"; and the same outcome twice over.
func checkAnyExtract(t *testing.T, x *Extractor, line []byte) {
	var e Entry
	r := x.Extract(line, &e)
	if r != "" {
		if !isReason(r) {
			t.Fatalf("Extract(%q) = reason %q, not a word", line, r)
		}
		return
	}
	if len(e.Fields) != x.numFields() {
		t.Fatalf("Extract(%q) set %d fields, want %d", line, len(e.Fields), x.numFields())
	}
	for i, f := range e.Fields {
		if !within(f, line) && !within(f, dash) && !within(f, x.scratch) {
			t.Fatalf("Extract(%q): field %s = %q is not part of the line", line, x.names[i], f)
		}
		e.Number(i)
	}
	var again Entry
	if r2 := x.Extract(line, &again); r2 != r || again.Time != e.Time {
		t.Fatalf("Extract(%q) twice: %q then %q", line, r, r2)
	}
}

// FuzzScanString checks that scanString, which reads 8 bytes a step,
// ends every string where a loop over its bytes does, and refuses one
// with an escape JSON has not.
func FuzzScanString(f *testing.F) {
	f.Add([]byte(`"abc"`))
	f.Add([]byte(`"a\"b\\"c"`))
	f.Add([]byte(`"0123456789abcdef\\\"x\"0123456789" tail`))
	f.Add([]byte(`"01234567\`))
	f.Add([]byte(`"0123456789\u00e9\q"`))
	f.Add([]byte(`"\u12"`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == 0 || b[0] != '"' {
			b = append([]byte{'"'}, b...)
		}
		want := struct {
			q       int
			esc, ok bool
		}{}
		for j := 1; j < len(b); j++ {
			if b[j] == '"' {
				want.q, want.ok = j, true
				break
			}
			if b[j] == '\\' {
				want.esc = true
				if !jsonEscape(b[j:]) {
					break // want.ok false: no closing quote is looked for past it
				}
				j++
			}
		}
		s, q, esc, ok := scanString(b, 0)
		if ok != want.ok || ok && (s != 1 || q != want.q || esc != want.esc) {
			t.Fatalf("scanString(%q) = %d, %d, %v, %v; a byte loop gives q %d, esc %v, ok %v", b, s, q, esc, ok, want.q, want.esc, want.ok)
		}
	})
}

// FuzzShortString checks that shortString, which reads one word, ends a
// string where scanString does, and only a string without escapes.
func FuzzShortString(f *testing.F) {
	f.Add([]byte(`"ts":1`))
	f.Add([]byte(`"a\"b":1`))
	f.Add([]byte(`"\\":12345678`))
	f.Add([]byte(`"abcdefgh":1`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == 0 || b[0] != '"' {
			b = append([]byte{'"'}, b...)
		}
		q := shortString(b, 0)
		if q < 0 {
			return
		}
		_, want, esc, ok := scanString(b, 0)
		if !ok || q != want || esc || q > 8 {
			t.Fatalf("shortString(%q) = %d; scanString gives q %d, esc %v, ok %v", b, q, want, esc, ok)
		}
	})
}

// jsonEscape reports whether s starts with one of JSON's escapes.
func jsonEscape(s []byte) bool {
	if len(s) >= 2 && s[1] == 'u' {
		if len(s) < 6 || strings.ContainsAny(string(s[2:6]), "+-_xX") {
			return false
		}
		_, err := strconv.ParseUint(string(s[2:6]), 16, 16)
		return err == nil
	}
	return len(s) >= 2 && strings.Contains(`"\/bfnrt`, string(s[1]))
}

func TestAJSONKeyGivenTwiceCountsByItsLastValueThePathsBelowItToo(t *testing.T) {
	x := newExtractor(t, jsonDoc)
	for _, c := range []struct {
		line   string
		method string
		d      float64
		dOK    bool
	}{
		{`{"ts":1791640536,"request":{"method":"GET"},"request":null,"status":200}`, "", 0, false},
		{`{"ts":1791640536,"request":{"method":"GET"},"status":200,"request":{"x":"y"}}`, "", 0, false},
		{`{"ts":1791640536,"request":{"method":"C"},"request":5,"status":203}`, "", 0, false},
		{`{"ts":1791640536,"request":{"method":"A"},"request":{"method":"B"},"duration":1e3,"duration":5}`, "B", 5, true},
		{`{"ts":1791640536,"duration":1e3,"duration":"x"}`, "", 0, false},
	} {
		var e Entry
		if r := x.Extract([]byte(c.line), &e); r != "" {
			t.Fatalf("Extract(%s) = %q", c.line, r)
		}
		if got := string(e.Fields[x.Field("method")]); got != c.method {
			t.Errorf("%s: method = %q, want %q (Python's json keeps the last key)", c.line, got, c.method)
		}
		if d, ok := e.Number(x.Field("duration")); ok != c.dOK || d != c.d {
			t.Errorf("%s: duration = %v, %v, want %v, %v", c.line, d, ok, c.d, c.dOK)
		}
	}
}

// A scalar is no nesting: 257 containers deep (the line's object and
// 256 below it) is read whatever the innermost one holds, a number or
// true as much as a string or nothing, on the path a document reads and
// off it; one container more is dropped, whatever it holds.
func TestAJSONLineAtTheNestingLimitIsReadWhateverItsInnermostValue(t *testing.T) {
	x := newExtractor(t, "format json deep=request.a.a\ntime ts layout=unix\nwindow 10s\nmetric r count by=deep\n")
	// around returns the containers of levels (the line's object one of
	// them, and inner too when it is one) that hold inner.
	around := func(levels int, inner string) int {
		if inner == "{}" || inner == "[]" {
			return levels - 2
		}
		return levels - 1
	}
	nest := func(key string, levels int, inner string) string {
		n := around(levels, inner)
		return `{"ts":1791640536,"` + key + `":` + strings.Repeat(`{"a":`, n) + inner + strings.Repeat("}", n) + "}"
	}
	arrays := func(levels int, inner string) string {
		n := around(levels, inner)
		return `{"ts":1791640536,"x":` + strings.Repeat("[", n) + inner + strings.Repeat("]", n) + "}"
	}
	for _, inner := range []string{`"s"`, `1`, `-2.5e3`, `true`, `null`, `{}`, `[]`} {
		for _, key := range []string{"request", "other"} {
			for levels, want := range map[int]string{maxDepth + 1: "", maxDepth + 2: ReasonFormat} {
				var e Entry
				if line := nest(key, levels, inner); x.Extract([]byte(line), &e) != want {
					t.Errorf("%d objects deep around %s under %q: %q, want %q", levels, inner, key, x.Extract([]byte(line), &e), want)
				}
			}
		}
		for levels, want := range map[int]string{maxDepth + 1: "", maxDepth + 2: ReasonFormat} {
			var e Entry
			if line := arrays(levels, inner); x.Extract([]byte(line), &e) != want {
				t.Errorf("%d arrays deep around %s: %q, want %q", levels, inner, x.Extract([]byte(line), &e), want)
			}
		}
	}
}

// A number a metric adds that is too large to add exactly (2^53 or more)
// is a !drop with the reason number in JSON and logfmt, as the same digits
// in an Apache or nginx numeric field are, not a silent 0; a field no
// metric adds, a smaller number and text that is no number are as before.
func TestANumberTooLargeToAddExactlyIsADropInJSONAndLogfmtAsInApache(t *testing.T) {
	js := newExtractor(t, jsonDoc)
	lf := newExtractor(t, logfmtDoc)
	ap := newExtractor(t, "format apache \"%h %l %u %t \\\"%r\\\" %>s %b %D\"\ntime time layout=clf\nwindow 10s\nmetric d sum=duration_us\n")
	for _, c := range []struct {
		x    *Extractor
		line string
		want string
	}{
		{js, `{"ts":1791640536,"duration":9007199254740992}`, ReasonNumber},
		{js, `{"ts":1791640536,"duration":-9007199254740993}`, ReasonNumber},
		{js, `{"ts":1791640536,"duration":1e400}`, ReasonNumber},
		{js, `{"ts":1791640536,"duration":"123456789012345678901"}`, ReasonNumber},
		{js, `{"ts":1791640536,"duration":9007199254740991}`, ""},
		{js, `{"ts":1791640536,"duration":"slow"}`, ""},
		{js, `{"ts":1791640536,"size":123456789012345678901,"duration":1}`, ""},
		{lf, `ts=2026-10-10T13:55:36Z duration=123456789012345678901`, ReasonNumber},
		{lf, `ts=2026-10-10T13:55:36Z duration=1.5`, ""},
		{lf, `ts=2026-10-10T13:55:36Z duration=-`, ""},
		{ap, `1.2.3.4 - - [10/Oct/2026:13:55:36 +0000] "GET / HTTP/1.1" 200 5 123456789012345678901`, ReasonNumber},
	} {
		var e Entry
		if got := c.x.Extract([]byte(c.line), &e); got != c.want {
			t.Errorf("Extract(%s) = %q, want %q", c.line, got, c.want)
		}
	}
}

func FuzzNumberShapedAgreesWithAPattern(f *testing.F) {
	for _, s := range []string{"1", "-1.5e-3", "1e", "--1", ".5", "1.", "007", "1E+9"} {
		f.Add(s)
	}
	re := regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$`)
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := numberShaped([]byte(s)), re.MatchString(s); got != want {
			t.Fatalf("numberShaped(%q) = %v, the pattern says %v", s, got, want)
		}
	})
}
