package tape

import (
	"bytes"
	"errors"

	"github.com/timbertally/timbertally/lib/protocol"
)

// ErrUnknownKind is the error Parse wraps for a line that is well formed as
// a record of a kind this version does not know: a kind word ([!]?[a-z]
// then [a-z0-9_-]*, not a kind of this version) and one or more key=value
// words, one space apart, each key [a-z][a-z0-9_]* and each value
// printable ASCII without a space. Versions are additive, so a consumer
// that can pass over what it does not know (tgpush) may pass over such a
// line; any other line that does not parse (a NUL byte, "garbage here", a
// known kind with a wrong key) is damage.
var ErrUnknownKind = errors.New("a well-formed record of a kind this version does not know")

// ParseOrLater is Parse for a reader that passes over what a later version
// added: a line well formed as a record of a kind this version does not
// know (ErrUnknownKind) is a Record of Kind Later, not an error; every other
// line Parse refuses is damage, with Parse's error. Every reader of a tape,
// forward (Reader.Next, Resolve, tgpush's follower) or backward
// (ScanBack), classifies lines here, so no two disagree on what is a
// record, of which kind, and where a tape is damaged.
func ParseOrLater(line []byte) (Record, error) { return orLater(Parse(line)) }

// orLater is a parse's outcome as ParseOrLater gives it: a line of a kind
// added later is a Record of Kind Later.
func orLater(rec Record, err error) (Record, error) {
	if errors.Is(err, ErrUnknownKind) {
		return Record{Kind: Later}, nil
	}
	return rec, err
}

// LaterWord is the kind word that starts a later kind's line, as a note
// names it: its first clipLen bytes, then "...", for a word longer than a
// line a person reads (a forged one).
func LaterWord(line []byte) string {
	word, _, _ := bytes.Cut(line, []byte{' '})
	return clip(word)
}

// laterKind reports whether the line word+" "+rest is well formed as a
// record of a kind added later (ErrUnknownKind): its words split as the
// protocol splits every line's (protocol.SplitWords), with keys and values
// of the shapes this version writes.
func laterKind(word, rest string, more bool) bool {
	var w protocol.Words
	if !more || !kindWord(word) || protocol.SplitWords(rest, &w) != nil {
		return false
	}
	for i := range w.Len() {
		if k, v := w.At(i); !keyWord(k) || !printable(v) {
			return false
		}
	}
	return true
}

func kindWord(w string) bool {
	if len(w) > 0 && w[0] == '!' {
		w = w[1:]
	}
	if w == "" || w[0] < 'a' || w[0] > 'z' {
		return false
	}
	for i := 1; i < len(w); i++ {
		if c := w[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

func keyWord(k string) bool {
	if k == "" || k[0] < 'a' || k[0] > 'z' {
		return false
	}
	for i := 1; i < len(k); i++ {
		if c := k[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

func printable(v string) bool {
	for i := 0; i < len(v); i++ {
		if v[i] <= ' ' || v[i] > '~' {
			return false
		}
	}
	return true
}
