package extract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/timbertally/timbertally/lib/internal/doc"
)

func TestAJSONLinesKeyPathsAreItsLeavesInOrderAsAFormatLineNamesThem(t *testing.T) {
	x := newExtractor(t, "format json\ntime ts layout=unix\nwindow 1s\nmetric r count by=status\n")
	got := x.KeyPaths([]byte(`{"ts":1, "request":{"method":"G\"ET","uri":"/a"},"zones":{"hg.nginx.org":{"n":2.50}},"up":null,"tags":["a",{"k":true}],"e":{},"l":[]}`))
	want := []KeyValue{{"ts", "1"}, {"request.method", `G"ET`}, {"request.uri", "/a"}, {`zones.hg\.nginx\.org.n`, "2.50"},
		{"up", ""}, {"tags.0", "a"}, {"tags.1.k", "true"}, {"e", "{}"}, {"l", "[]"}}
	if !slices.Equal(got, want) {
		t.Errorf("KeyPaths =\n%q\nwant\n%q", got, want)
	}
	for _, bad := range []string{`{"a":1`, `[1]`, `{"a":1} x`, ``} {
		if kv := x.KeyPaths([]byte(bad)); kv != nil {
			t.Errorf("KeyPaths(%s) = %q, want nil", bad, kv)
		}
	}
}

func TestALogfmtLinesKeyPathsAreItsKeysInOrder(t *testing.T) {
	x := newExtractor(t, logfmtDoc)
	got := x.KeyPaths([]byte(`ts=1 msg="a \"b\"" http.status=200 solo k\x=`))
	want := []KeyValue{{"ts", "1"}, {"msg", `a "b"`}, {"http.status", "200"}, {"solo", ""}, {`k\\x`, ""}}
	if !slices.Equal(got, want) {
		t.Errorf("KeyPaths =\n%q\nwant\n%q", got, want)
	}
	if kv := x.KeyPaths([]byte(`a="open`)); kv != nil {
		t.Errorf("a cut quote: %q", kv)
	}
	if kv := newExtractor(t, combinedDoc).KeyPaths([]byte(`{"a":1}`)); kv != nil {
		t.Errorf("an Apache document listed key paths: %q", kv)
	}
}

// FuzzKeyPathsReadBackByTheExtractor checks the slow listing (encoding/
// json) against the fast cut: each key path it lists, named on a format
// line, reads the value it listed.
func FuzzKeyPathsReadBackByTheExtractor(f *testing.F) {
	f.Add([]byte(`{"method":"GET","h.x":{"a\\b":[1,"two",null,false]},"n":-2.5e3}`))
	f.Add([]byte(`[{"0":{"1":"\u00e9\ud83d\ude00"}}, "x\"y"]`))
	f.Add([]byte(`"plain"`))
	f.Fuzz(func(t *testing.T, v []byte) {
		line := append(append([]byte(`{"ts":1,"v":`), v...), '}')
		if !utf8.Valid(line) || !json.Valid(line) || dupKeys(line) {
			return
		}
		x := newExtractor(t, "format json\ntime ts layout=unix\nwindow 1s\nmetric r count\n")
		kv := x.KeyPaths(line)
		if len(kv) == 0 || kv[0] != (KeyValue{"ts", "1"}) {
			t.Fatalf("KeyPaths(%s) = %q", line, kv)
		}
		for i, p := range kv[1:] {
			keys, err := doc.SplitKeyPath(p.Path)
			if err != nil || p.Value == "{}" || p.Value == "[]" || len(keys) > 8 || i > 64 {
				continue // a key "" has no path; an empty container reads as written; deep or many paths: slow
			}
			d, err := doc.Parse("t", fmt.Appendf(nil, "format json f=%s\ntime ts layout=unix\nwindow 1s\nmetric r count by=f\n", p.Path))
			if err != nil {
				t.Fatalf("path %s: %v", p.Path, err)
			}
			fx, err := New(d)
			if err != nil {
				t.Fatal(err)
			}
			var e Entry
			if r := fx.Extract(line, &e); r != "" {
				t.Fatalf("Extract(%s) with f=%s: %s", line, p.Path, r)
			}
			if got := string(e.Fields[fx.Field("f")]); got != p.Value {
				t.Fatalf("line %s: f=%s reads %q, KeyPaths listed %q", line, p.Path, got, p.Value)
			}
		}
	})
}

// dupKeys says whether an object of the JSON text has a key twice (the
// extractor takes the last, the listing lists both).
func dupKeys(b []byte) bool {
	d := json.NewDecoder(bytes.NewReader(b))
	var seen []map[string]bool
	var inObj []bool
	expectKey := func() bool { return len(inObj) > 0 && inObj[len(inObj)-1] }
	wantKey := true
	for {
		tok, err := d.Token()
		if err != nil {
			return false
		}
		switch tok := tok.(type) {
		case json.Delim:
			switch tok {
			case '{':
				seen, inObj, wantKey = append(seen, map[string]bool{}), append(inObj, true), true
			case '[':
				inObj = append(inObj, false)
			default:
				if inObj[len(inObj)-1] {
					seen = seen[:len(seen)-1]
				}
				inObj = inObj[:len(inObj)-1]
				wantKey = true
			}
			continue
		case string:
			if expectKey() && wantKey {
				m := seen[len(seen)-1]
				if m[strings.Clone(tok)] {
					return true
				}
				m[tok], wantKey = true, false
				continue
			}
		}
		wantKey = true
	}
}
