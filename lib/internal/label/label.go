// Package label owns how the toolkit's commands take and show label
// values: the --label K=V flags tgread and tgpush share (and every command
// that adds labels), and a label value shown as text, the one spelling of
// it in tgread's formats and in what tgpush sends.
//
// Invariants:
//   - A --label name is a Prometheus label name not starting with __,
//     given once; its value is UTF-8 text and not empty. The labels come
//     back sorted by name.
//   - A shown value names one value only: a byte that is not UTF-8 is the
//     text \xHH and a backslash is \\, so two values never show alike.
package label

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/timbertally/timbertally/lib/internal/tape"
)

// ParseFlags reads --label K=V arguments (tgread's and tgpush's: one
// syntax, so that a backfill read with tgread carries the labels tgpush
// adds) into labels sorted by name. A name is a Prometheus label name not
// starting with __, given once; a value is UTF-8 text and not empty (an
// empty label is no label to Prometheus, so it would vanish silently).
// Errors start with cmd, the command's name.
func ParseFlags(cmd string, args []string) ([]tape.Label, error) {
	var out []tape.Label
	for _, a := range args {
		k, v, ok := strings.Cut(a, "=")
		switch {
		case !ok || !tape.ValidLabel(k) || strings.HasPrefix(k, "__"):
			return nil, fmt.Errorf("%s: --label %s is not NAME=VALUE with a Prometheus label name (not starting with __)", cmd, a)
		case v == "":
			return nil, fmt.Errorf("%s: --label %s has an empty value, which Prometheus takes as no label at all; give a value (%s=web1)", cmd, a, k)
		case !utf8.ValidString(v):
			return nil, fmt.Errorf("%s: --label %s: the value is not UTF-8 text; give a UTF-8 value", cmd, k)
		}
		if slices.ContainsFunc(out, func(l tape.Label) bool { return l.Name == k }) {
			return nil, fmt.Errorf("%s: --label %s is given twice; give each label once", cmd, k)
		}
		out = append(out, tape.Label{Name: k, Value: v})
	}
	slices.SortFunc(out, func(a, b tape.Label) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// Shown returns a label value as the JSON and OpenMetrics formats
// show it: a byte that is not part of valid UTF-8 as the text \xHH and a
// backslash as \\. tgpush sends label values so.
func Shown(v string) string {
	for i := 0; i < len(v); i++ { // one pass over nearly every value: ASCII without a backslash
		if c := v[i]; c >= utf8.RuneSelf || c == '\\' {
			if utf8.ValidString(v) && !strings.Contains(v, `\`) {
				return v
			}
			return string(AppendShown(nil, v, 0))
		}
	}
	return v
}

const hexDigits = "0123456789abcdef"

// Show says how AppendShown escapes a label value beyond what every format
// needs.
type Show uint8

const (
	// ShowControls: a tab, newline or carriage return as \t, \n or \r and
	// any other control byte as \xHH, for a line-per-record format and a
	// terminal.
	ShowControls Show = 1 << iota
	// ShowInList: a comma as \, for a value in a k=v,k=v list, which then
	// splits one way only.
	ShowInList
	// ShowEdges: for the eye (an aligned table, a chart's legend), a space
	// that starts or ends a value or follows another as \x20 ("curl" and
	// "curl " would look alike, and an SVG collapses a run of spaces), and
	// a character that does not show (a no-break or zero-width space, a
	// byte order or bidi mark) as its bytes.
	ShowEdges
	// ShowCR: a carriage return as \r, for CSV, whose readers fold CR LF
	// within a field into LF.
	ShowCR
)

// AppendShown appends a label value for a human or a text format: each byte
// that is not part of valid UTF-8 becomes the text \xHH, and a backslash
// becomes \\, so that what is shown names one value only: a byte 0xff
// shows as \xff and the four characters \xff as \\xff (two series of a
// tape, which a loader keyed on labels must not take for one). Apache's
// own escapes are shown escaped again: its \" for a quote shows as \\".
func AppendShown(b []byte, v string, how Show) []byte {
	controls := how&ShowControls != 0
	for i := 0; i < len(v); {
		c := v[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(v[i:])
			if r == utf8.RuneError && n == 1 || controls && (r >= 0x80 && r <= 0x9f || r == 0xfffe || r == 0xffff) || how&ShowEdges != 0 && invisible(r) {
				// Not UTF-8, a C1 control (U+009B is a CSI), a noncharacter
				// (XML, so an SVG, cannot hold U+FFFE or U+FFFF), or for the
				// eye a character that does not show: each byte as \xHH.
				for _, c := range []byte(v[i : i+n]) {
					b = append(b, '\\', 'x', hexDigits[c>>4], hexDigits[c&15])
				}
			} else {
				b = append(b, v[i:i+n]...)
			}
			i += n
			continue
		}
		switch {
		case c == '\\':
			b = append(b, '\\', '\\')
		case c == ',' && how&ShowInList != 0:
			b = append(b, '\\', ',')
		case controls && c == '\t':
			b = append(b, '\\', 't')
		case controls && c == '\n':
			b = append(b, '\\', 'n')
		case c == '\r' && how&(ShowControls|ShowCR) != 0:
			b = append(b, '\\', 'r')
		case c == ' ' && how&ShowEdges != 0 && (i == 0 || i == len(v)-1 || v[i-1] == ' '):
			b = append(b, `\x20`...)
		case controls && (c < ' ' || c == 0x7f):
			// Other control bytes (ESC above all) would drive the terminal
			// a table or chart is printed on: a log line must not.
			b = append(b, '\\', 'x', hexDigits[c>>4], hexDigits[c&15])
		default:
			b = append(b, c)
		}
		i++
	}
	return b
}

// invisible reports whether r shows as nothing or as a plain space: a
// format character (zero-width space, byte order and bidi marks), or a
// space or separator other than ' '.
func invisible(r rune) bool {
	return unicode.In(r, unicode.Cf, unicode.Zs, unicode.Zl, unicode.Zp) && r != ' '
}

// AppendOpenMetrics appends a label value shown as text (\xHH for a
// byte that is not UTF-8) and escaped as OpenMetrics wants: \\, \", \n
// (the Prometheus text format escapes alike; tgserve writes both with it).
func AppendOpenMetrics(b []byte, v string) []byte {
	for _, c := range AppendShown(nil, v, 0) {
		switch c {
		case '\\', '"':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		default:
			b = append(b, c)
		}
	}
	return b
}
