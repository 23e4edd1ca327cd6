package protocol

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unsafe"
)

// The word syntax of every line the toolkit writes (this protocol, the
// tape's seals and markers, feed's cursor) is owned here: a line is a kind
// word, then key=value words separated by one space, each key once, and a
// number has one spelling (ParseNum, AppendNum).

// maxKeys bounds the key=value words of one line: the longest line of this
// version has four, and later versions add a few; a line with more is not
// one of ours.
const maxKeys = 16

// fields holds a line's key=value words in order. A handful of keys is
// found faster by a linear search than by a map, and nothing is allocated:
// a consumer or feed parses a line per batch.
type fields struct {
	n  int
	kv [maxKeys][2]string
}

// get returns the value of key k and whether the line has it.
func (kv *fields) get(k string) (string, bool) {
	for i := range kv.n {
		if kv.kv[i][0] == k {
			return kv.kv[i][1], true
		}
	}
	return "", false
}

// split cuts a line into its kind and its key=value words (splitWords).
//
// The kind and the words alias line, unconverted: a consumer parses a line
// per batch, and copying each line made tally's garbage grow its heap to
// the collector's goal on a long run. What a Header or Report keeps (an
// id, a version, a reason) is copied by str.
func split(line []byte, kv *fields) (string, error) {
	if len(line) == 0 {
		return "", errors.New("empty line")
	}
	s := unsafe.String(unsafe.SliceData(line), len(line))
	kind, rest, more := strings.Cut(s, " ")
	if kind == "" {
		return "", errors.New("it starts with a space")
	}
	if !more {
		return kind, nil
	}
	return kind, splitWords(rest, kv)
}

// splitWords cuts s into key=value words, refusing empty words, a word
// without '=', an empty key, a repeated key and more than maxKeys keys. Its
// errors do not quote the line: the callers do.
func splitWords(s string, kv *fields) error {
	for more := true; more; {
		var w string
		w, s, more = strings.Cut(s, " ")
		k, v, ok := strings.Cut(w, "=")
		switch {
		case w == "":
			return errors.New("words are separated by one space")
		case !ok || k == "":
			return fmt.Errorf("%q is not key=value", w)
		case kv.n == maxKeys:
			return fmt.Errorf("more than %d key=value words", maxKeys)
		}
		if _, dup := kv.get(k); dup {
			return fmt.Errorf("key %q appears twice", k)
		}
		kv.kv[kv.n] = [2]string{k, v}
		kv.n++
	}
	return nil
}

// Words are the key=value words of a line, in order, split as the
// protocol splits its own lines. They alias the text they were split from.
type Words struct{ f fields }

// SplitWords splits s, the key=value words of a line after its kind (or,
// on the tape, after its time), into w.
func SplitWords(s string, w *Words) error {
	w.f.n = 0
	return splitWords(s, &w.f)
}

// SplitLine splits a whole line into its kind and its words.
func SplitLine(line []byte, w *Words) (kind string, err error) {
	w.f.n = 0
	return split(line, &w.f)
}

// Len is the number of words.
func (w *Words) Len() int { return w.f.n }

// At returns the key and value of word i.
func (w *Words) At(i int) (key, value string) { return w.f.kv[i][0], w.f.kv[i][1] }

// Get returns the value of key and whether the line has it.
func (w *Words) Get(key string) (string, bool) { return w.f.get(key) }

// Want reports whether the words are exactly keys, in their order: a line
// that has one spelling (a tape record, tgpush's cursor) with a key
// reordered, missing or extra is torn or forged.
func (w *Words) Want(keys ...string) error {
	if w.Len() != len(keys) {
		return fmt.Errorf("want the keys %s", strings.Join(keys, " "))
	}
	for i, want := range keys {
		if k, _ := w.At(i); k != want {
			return fmt.Errorf("want %s= in place of %s=", want, k)
		}
	}
	return nil
}

// ParseNum parses the value v of key as the toolkit spells a number: an
// unsigned decimal that fits an int64, with no sign, no spaces and no
// leading zeros beyond "0" itself (a number has one spelling).
func ParseNum(key, v string) (int64, error) {
	if v == "" || v[0] < '0' || v[0] > '9' || (len(v) > 1 && v[0] == '0') {
		return 0, fmt.Errorf("%s=%q is not an unsigned decimal number", key, v)
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s=%q is not a number that fits 63 bits", key, v)
	}
	return n, nil
}

// AppendNum appends key, which carries its leading space and its '='
// (" offset="), and n as ParseNum reads it back.
func AppendNum(b []byte, key string, n int64) []byte {
	b = append(b, key...)
	return strconv.AppendInt(b, n, 10)
}

// AppendText appends s, any text (a path, a command-line word), as a
// value: a byte a value cannot hold (a control byte, space, DEL) and '%'
// itself are written as %XX (two upper-case hex digits), every other byte
// as it is, so that a path reads as itself in the common case and
// ParseText gives back exactly s.
func AppendText(b []byte, s string) []byte {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c == 0x7f || c == '%' {
			b = append(b, '%', hex[c>>4], hex[c&15])
		} else {
			b = append(b, c)
		}
	}
	return b
}

// ParseText reads a value AppendText wrote. A '%' not followed by two hex
// digits is an error: the value was not written by AppendText.
func ParseText(v string) (string, error) {
	if !strings.Contains(v, "%") {
		return v, nil
	}
	out := make([]byte, 0, len(v))
	for i := 0; i < len(v); i++ {
		if v[i] != '%' {
			out = append(out, v[i])
			continue
		}
		n, err := strconv.ParseUint(v[i+1:min(i+3, len(v))], 16, 8)
		if err != nil || i+3 > len(v) {
			return "", fmt.Errorf("%%%s is not %%XX", v[i+1:min(i+3, len(v))])
		}
		out = append(out, byte(n))
		i += 2
	}
	return string(out), nil
}
