package extract

import "bytes"

// logfmtKey is a key a logfmt document reads and the field it fills.
type logfmtKey struct {
	key   []byte
	field int
}

// logfmt reads key=value pairs as go-logfmt's grammar has them: pairs
// apart by white space (bytes up to ' '), a key of bytes above ' ' but
// '=' and '"', a value bare (the same bytes) or quoted with JSON's escapes,
// and a key alone (no '=') with an empty value. A '"' or '=' where the
// grammar has none drops the line (reason format). The fields named are
// set, the last pair winning when a key repeats; an absent key is empty.
func (x *Extractor) logfmt(line []byte, e *Entry) string {
	for i := range e.Fields {
		e.Fields[i] = line[:0]
	}
	x.scratch = x.scratch[:0]
	for i := 0; ; {
		for i < len(line) && line[i] <= ' ' {
			i++
		}
		if i == len(line) {
			return ""
		}
		ks := i
		i = bareEnd(line, i)
		if i == ks {
			return ReasonFormat // a pair starting with '=' or '"'
		}
		key, v := line[ks:i], line[i:i]
		if i < len(line) && line[i] == '=' {
			i++
			if i < len(line) && line[i] == '"' {
				var q int
				var ok bool
				if v, q, ok = x.str(line, i); !ok {
					return ReasonFormat
				}
				i = q + 1
			} else {
				vs := i
				i = bareEnd(line, i)
				v = line[vs:i]
			}
		}
		if i < len(line) && line[i] > ' ' {
			return ReasonFormat // '"' or '=' inside a key or bare value, or glued after a quote
		}
		for _, k := range x.lkeys {
			if len(k.key) == len(key) && k.key[0] == key[0] && bytes.Equal(k.key, key) {
				e.Fields[k.field] = v
			}
		}
	}
}

// bareEnd returns where the bare key or value at b[i] ends.
func bareEnd(b []byte, i int) int {
	for i < len(b) && b[i] > ' ' && b[i] != '=' && b[i] != '"' {
		i++
	}
	return i
}
