package extract

import (
	"bytes"
	"strconv"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/timbertally/timbertally/lib/internal/synth"
)

// slowLogfmt is an independent reading of go-logfmt's grammar, a byte at
// a time: the last value of each key, or ok false where the grammar has
// no place for a byte.
func slowLogfmt(line []byte) (map[string]string, bool) {
	bare := func(c byte) bool { return c > ' ' && c != '=' && c != '"' }
	vals := map[string]string{}
	i := 0
	for {
		for i < len(line) && line[i] <= ' ' {
			i++
		}
		if i == len(line) {
			return vals, true
		}
		k := i
		for i < len(line) && bare(line[i]) {
			i++
		}
		if k == i {
			return nil, false
		}
		key, val := string(line[k:i]), ""
		if i < len(line) && line[i] == '=' {
			i++
			if i < len(line) && line[i] == '"' {
				v, n, ok := slowUnquote(line[i+1:])
				if !ok {
					return nil, false
				}
				val, i = v, i+1+n+1
			} else {
				s := i
				for i < len(line) && bare(line[i]) {
					i++
				}
				val = string(line[s:i])
			}
		}
		if i < len(line) && line[i] > ' ' {
			return nil, false
		}
		vals[key] = val
	}
}

// slowUnquote reads a JSON string's content up to its closing quote: the
// value, the bytes read before the quote, and ok.
func slowUnquote(b []byte) (string, int, bool) {
	var out []byte
	hex := func(s []byte) (rune, bool) {
		if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
			return 0, false
		}
		n, err := strconv.ParseUint(string(s[2:6]), 16, 16)
		return rune(n), err == nil && !bytes.ContainsAny(s[2:6], "+-_")
	}
	for i := 0; i < len(b); {
		switch c := b[i]; c {
		case '"':
			return string(out), i, true
		case '\\':
			if i+1 == len(b) {
				return "", 0, false
			}
			if e := bytes.IndexByte([]byte(`"\/bfnrt`), b[i+1]); e >= 0 {
				out = append(out, "\"\\/\b\f\n\r\t"[e])
				i += 2
				continue
			}
			r, ok := hex(b[i:])
			if !ok {
				return "", 0, false
			}
			i += 6
			if utf16.IsSurrogate(r) {
				if r2, ok2 := hex(b[i:]); ok2 && r < 0xdc00 {
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						r, i = d, i+6
					} else {
						r = utf8.RuneError
					}
				} else {
					r = utf8.RuneError
				}
			}
			out = utf8.AppendRune(out, r)
		default:
			out = append(out, c)
			i++
		}
	}
	return "", 0, false
}

// FuzzLogfmtAgainstASlowReading checks the logfmt reader (its 8-byte
// steps, its unescaping only of the keys read) against slowLogfmt: a line
// is refused as format exactly when the slow reading refuses it, and each
// key the document reads has the slow reading's value.
func FuzzLogfmtAgainstASlowReading(f *testing.F) {
	f.Add([]byte(logfmtLine))
	f.Add([]byte(`ts=2026-10-10T13:55:36Z method="P\"O\\ST \u00e9 \ud83d\ude00 \ud800" status path= duration=`))
	f.Add([]byte("ts=2026-10-10T13:55:36Z\tmethod=\xff status=1 status=2 a=b=c"))
	g, _ := synth.New(synth.Config{Seed: 5, Format: synth.FormatLogfmt, Realistic: true, Malformed: 0.2})
	for range 30 {
		l := g.Next(nil)
		f.Add(l[:len(l)-1])
	}
	x := newExtractor(f, logfmtDoc)
	f.Fuzz(func(t *testing.T, line []byte) {
		var e Entry
		r := x.Extract(line, &e)
		want, ok := slowLogfmt(line)
		if (r == ReasonFormat) != !ok {
			t.Fatalf("Extract(%q) = %q; the slow reading says ok %v", line, r, ok)
		}
		if r != "" {
			return
		}
		for _, k := range []string{"status", "method", "duration", "path"} {
			if got := string(e.Fields[x.Field(k)]); got != want[k] {
				t.Fatalf("Extract(%q): %s = %q, the slow reading %q", line, k, got, want[k])
			}
		}
	})
}

// FuzzBareEnd checks bareEnd's 8-byte steps against a loop over bytes.
func FuzzBareEnd(f *testing.F) {
	f.Add([]byte("trace_id=4bf92f3577b34da6a3ce929d0e0e4736 x"), 9)
	f.Add([]byte("caller=http/server.go:142\x80\xff\x7f!\x20"), 0)
	f.Fuzz(func(t *testing.T, b []byte, i int) {
		if i < 0 || i > len(b) {
			return
		}
		want := i
		for want < len(b) && b[want] > ' ' && b[want] != '=' && b[want] != '"' {
			want++
		}
		if got := bareEnd(b, i); got != want {
			t.Fatalf("bareEnd(%q, %d) = %d, want %d", b, i, got, want)
		}
	})
}
