package doc

import (
	"fmt"
	"strings"
)

// apacheDirective is what one %-directive of Apache's LogFormat becomes.
type apacheDirective struct {
	field string
	kind  FieldKind
}

// apacheDirectives are the directives without a {NAME} that matters, by
// letter (mod_log_config's table).
var apacheDirectives = map[string]apacheDirective{
	"a": {"client_ip", Text}, "A": {"local_ip", Text}, "B": {"bytes", Size}, "b": {"bytes", Size},
	"D": {"duration_us", Numeric}, "f": {"filename", Text}, "h": {"host", Text}, "H": {"proto", Text},
	"k": {"keepalive", Numeric}, "l": {"ident", Text}, "L": {"log_id", Text}, "m": {"method", Text},
	"p": {"port", Numeric}, "P": {"pid", Numeric}, "q": {"query", Text}, "r": {"", Request},
	"R": {"handler", Text}, "s": {"status", Status}, "T": {"duration_s", Numeric}, "u": {"user", Text},
	"U": {"url_path", Text}, "v": {"vhost", Text}, "V": {"server_name", Text}, "X": {"conn_status", Text},
	"I": {"bytes_in", Size}, "O": {"bytes_out", Size}, "S": {"bytes_total", Size},
}

// apacheNamed are the directives whose {NAME} becomes part of the field's
// name: prefix + NAME lowercased, '-' as '_'.
var apacheNamed = map[string]string{"i": "", "o": "out_", "e": "env_", "C": "cookie_", "n": "note_", "^ti": "trailer_", "^to": "out_trailer_"}

// apacheHeaderNames are the request headers the built-in formats already
// name: %{Referer}i is referer and %{User-Agent}i agent, as in apache-combined.
var apacheHeaderNames = map[string]string{"referer": "referer", "user_agent": "agent"}

// parseApache reads an Apache LogFormat string into elements. %r has no
// field of its own: it gives method, path and proto, as apache-combined. Modifiers
// (%>s, %<s, %!200,304{Referer}i) are accepted; the value Apache logs for
// a failed condition is "-", a value like any other.
func parseApache(src string) ([]element, error) {
	var elems []element
	times := 0
	for i := 0; i < len(src); {
		if src[i] != '%' {
			var lit element
			lit, i = literalUpTo(src, i, '%')
			elems = append(elems, lit)
			continue
		}
		start := i
		i++
		for i < len(src) && strings.IndexByte("<>!,0123456789", src[i]) >= 0 {
			i++
		}
		arg := ""
		if i < len(src) && src[i] == '{' {
			end := strings.IndexByte(src[i:], '}')
			if end < 0 {
				return nil, fmt.Errorf("%s has no closing }", src[start:])
			}
			arg, i = src[i+1:i+end], i+end+1
		}
		if i == len(src) {
			return nil, fmt.Errorf("the format string ends inside a directive (%s); write %%%% for a literal %%", src[start:])
		}
		letter := src[i : i+1]
		if letter == "^" && i+2 < len(src) {
			letter = src[i : i+3]
		}
		i += len(letter)
		if letter == "%" {
			elems = append(elems, element{lit: "%"})
			continue
		}
		p, err := apachePart(letter, arg, &times)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", src[start:i], err)
		}
		if p.Kind == Stamp && p.Layout == LayoutCLF && arg == "" {
			// %t writes its brackets itself: they are literals around the time.
			elems = append(elems, element{lit: "["}, element{part: p}, element{lit: "]"})
			continue
		}
		elems = append(elems, element{part: p})
	}
	return elems, nil
}

// apachePart names one directive: letter with its {arg}. times counts the
// %t directives so far (the first is "time", later ones time_2, time_3…);
// a %{msec_frac}t or %{usec_frac}t is a fraction of one of them, not a
// time of its own, so it is time_msec_frac wherever it stands (Apache's
// own idiom puts it after the %{…}t it refines).
func apachePart(letter, arg string, times *int) (Part, error) {
	if frac := strings.TrimPrefix(strings.TrimPrefix(arg, "begin:"), "end:"); letter == "t" && (frac == "msec_frac" || frac == "usec_frac") {
		return Part{Field: "time_" + frac, Kind: Numeric}, nil
	}
	if letter == "t" {
		*times++
		return apacheTime(arg, *times)
	}
	if prefix, ok := apacheNamed[letter]; ok {
		if arg == "" {
			return Part{}, fmt.Errorf("wants a {NAME}, e.g. %%{User-Agent}%s", letter)
		}
		name := headerField(arg)
		if letter == "i" {
			if n, ok := apacheHeaderNames[name]; ok {
				name = n
			}
		}
		return Part{Field: prefix + name, Kind: Text}, nil
	}
	d, ok := apacheDirectives[letter]
	if !ok {
		return Part{}, fmt.Errorf("%%%s is not an Apache LogFormat directive this reader knows; see docs/tally.md for the table", letter)
	}
	switch letter + "{" + arg {
	case "T{ms":
		d.field = "duration_ms"
	case "T{us":
		d.field = "duration_us"
	case "a{c":
		d.field = "peer_ip"
	case "p{local":
		d.field = "local_port"
	case "p{remote":
		d.field = "remote_port"
	case "P{tid", "P{hextid":
		d.field = "tid"
	}
	return Part{Field: d.field, Kind: d.kind}, nil
}

// headerField is a header's field name: lowercased, '-' as '_'.
func headerField(name string) string {
	return strings.ReplaceAll(strings.ToLower(name), "-", "_")
}

// apacheTime reads %t and %{FORMAT}t: CLF by default; sec, msec and usec
// the Unix time; a strftime FORMAT translated into a Go layout. Apache's
// begin:/end: prefixes say which instant; the field reads the same.
func apacheTime(arg string, n int) (Part, error) {
	name := "time"
	if n > 1 {
		name = fmt.Sprintf("time_%d", n)
	}
	arg = strings.TrimPrefix(strings.TrimPrefix(arg, "begin:"), "end:")
	p := Part{Field: name, Kind: Stamp}
	switch arg {
	case "":
		p.Layout = LayoutCLF
	case "sec":
		p.Layout = LayoutUnix
	case "msec":
		p.Layout = LayoutUnixMs
	case "usec":
		p.Layout = LayoutUnixUs
	default:
		layout, err := strftimeLayout(arg)
		if err != nil {
			return Part{}, err
		}
		p.Layout = layout
	}
	return p, nil
}

// strftimeLayout translates the strftime conversions Apache's %{FORMAT}t
// takes into a Go layout; a conversion Go has no element for is refused.
func strftimeLayout(f string) (string, error) {
	conv := map[byte]string{
		'Y': "2006", 'm': "01", 'd': "02", 'e': "_2", 'H': "15", 'M': "04", 'S': "05",
		'b': "Jan", 'h': "Jan", 'B': "January", 'a': "Mon", 'A': "Monday", 'y': "06",
		'z': "-0700", 'T': "15:04:05", 'F': "2006-01-02", 'D': "01/02/06", 'R': "15:04",
		'I': "03", 'p': "PM", 'j': "002", '%': "%",
	}
	var out strings.Builder
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			out.WriteByte(f[i])
			continue
		}
		if i++; i == len(f) {
			return "", fmt.Errorf("the time format %q ends with %%", f)
		}
		g, ok := conv[f[i]]
		if !ok {
			return "", fmt.Errorf("the time format %q has %%%c, which has no Go layout element; use %%Y %%m %%d %%H %%M %%S %%z and the like", f, f[i])
		}
		out.WriteString(g)
	}
	if err := checkLayout(out.String()); err != nil {
		return "", err
	}
	return out.String(), nil
}
