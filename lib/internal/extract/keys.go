package extract

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"strings"

	"github.com/timbertally/timbertally/lib/internal/doc"
)

// A KeyValue is one key path a JSON or logfmt line has, written as a
// format line's NAME=PATH names it, and its value as a field holds it.
type KeyValue struct{ Path, Value string }

// A Keyed field is one a JSON or logfmt document reads by a key path.
type Keyed struct {
	Field      int // its index in Entry.Fields
	Name, Path string
}

// Keyed returns the fields the document reads by a key path its author
// chose (its own fields, in a JSON or logfmt document); nil in other
// formats and in a preset's (caddy's), whose paths are the server's own
// and some of them absent by nature (a Referer header a request lacks).
func (x *Extractor) Keyed() []Keyed {
	if x.d.Format != doc.JSON && x.d.Format != doc.Logfmt || x.d.Preset != "" {
		return nil
	}
	var ks []Keyed
	for i, n := range x.names[:x.ownFields()] {
		ks = append(ks, Keyed{Field: i, Name: n, Path: x.d.KeyPath(n)})
	}
	return ks
}

// KeyPaths lists every key path of a JSON or logfmt line, in the line's
// order, each a path the format line can name: for what a user asks
// (tally --try --fields) and for the note on a key path no entry has. It
// is a slow path, allocating, and independent of the extractor's cut
// (encoding/json reads the JSON). Only a JSON line's leaves are listed:
// scalars, and containers with nothing in them; an array's elements are
// paths by their index. It returns nil for another format, or a line that
// is not one of the format's.
func (x *Extractor) KeyPaths(line []byte) []KeyValue {
	switch x.d.Format {
	case doc.JSON:
		return jsonKeyPaths(line)
	case doc.Logfmt:
		return logfmtKeyPaths(line)
	}
	return nil
}

// jsonKeyPaths lists the leaves of the JSON object line.
func jsonKeyPaths(line []byte) []KeyValue {
	d := json.NewDecoder(bytes.NewReader(line))
	d.UseNumber()
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	w := jsonWalk{d: d}
	if !w.object(nil) {
		return nil
	}
	if _, err := d.Token(); err != io.EOF {
		return nil
	}
	return w.kv
}

// jsonWalk is one line's walk: the decoder past the container being read.
type jsonWalk struct {
	d  *json.Decoder
	kv []KeyValue
}

// object reads an object's members up to its '}', at path.
func (w *jsonWalk) object(path []string) bool {
	n := 0
	for ; w.d.More(); n++ {
		k, err := w.d.Token()
		key, ok := k.(string)
		if err != nil || !ok || !w.value(append(path, key)) {
			return false
		}
	}
	return w.end(path, n, "{}")
}

// array reads an array's elements up to its ']', at path.
func (w *jsonWalk) array(path []string) bool {
	n := 0
	for ; w.d.More(); n++ {
		if !w.value(append(path, strconv.Itoa(n))) {
			return false
		}
	}
	return w.end(path, n, "[]")
}

// end reads a container's close; one with n == 0 members is a leaf.
func (w *jsonWalk) end(path []string, n int, empty string) bool {
	if _, err := w.d.Token(); err != nil {
		return false
	}
	if n == 0 && len(path) > 0 {
		w.kv = append(w.kv, KeyValue{doc.JoinKeyPath(path), empty})
	}
	return true
}

// value reads the value at path: a leaf, or a container to walk.
func (w *jsonWalk) value(path []string) bool {
	t, err := w.d.Token()
	if err != nil {
		return false
	}
	var v string
	switch t := t.(type) {
	case json.Delim:
		if t == '{' {
			return w.object(path)
		}
		return w.array(path)
	case string:
		v = t
	case json.Number:
		v = t.String()
	case bool:
		v = strconv.FormatBool(t)
	case nil:
		v = "" // null: as a field reads it, absent
	}
	w.kv = append(w.kv, KeyValue{doc.JoinKeyPath(path), v})
	return true
}

// logfmtKeyPaths lists the pairs of a logfmt line, in the grammar
// Extractor.logfmt reads (bareEnd, scanString, unescape are its).
func logfmtKeyPaths(line []byte) []KeyValue {
	var kv []KeyValue
	for i := 0; ; {
		for i < len(line) && line[i] <= ' ' {
			i++
		}
		if i == len(line) {
			return kv
		}
		ks := i
		if i = bareEnd(line, i); i == ks {
			return nil
		}
		key, v := line[ks:i], []byte(nil)
		if i < len(line) && line[i] == '=' {
			if i++; i < len(line) && line[i] == '"' {
				s, q, _, ok := scanString(line, i)
				if !ok {
					return nil
				}
				v, _ = unescape(nil, line[s:q])
				i = q + 1
			} else {
				vs := i
				i = bareEnd(line, i)
				v = line[vs:i]
			}
		}
		if i < len(line) && line[i] > ' ' {
			return nil
		}
		// A logfmt key is one key, a '.' in it as written: only a '\'
		// needs its escape for the format line to read it back.
		kv = append(kv, KeyValue{strings.ReplaceAll(string(key), `\`, `\\`), string(v)})
	}
}
