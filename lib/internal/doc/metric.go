package doc

import (
	"slices"
	"strings"
)

const metricWant = `"metric" wants NAME KIND, e.g. metric requests count by=status`

const kindWant = `KIND is count, sum=FIELD, min=FIELD, max=FIELD or histogram=FIELD`

// metric parses "metric NAME KIND [by=F1,F2] [where=F<op>VALUE]", and a
// histogram's buckets= and scale=.
func (p *parser) metric(n int, words []string) error {
	if len(words) < 3 {
		return p.errorf(n, metricWant)
	}
	m := Metric{Name: words[1], Line: n}
	if !isMetricName(m.Name) {
		return p.errorf(n, "metric name %q is not a Prometheus metric name ([a-zA-Z_:][a-zA-Z0-9_:]*); %s", m.Name, metricWant)
	}
	for _, other := range p.d.Metrics {
		if other.Name == m.Name {
			return p.errorf(n, "metric %s is already defined on line %d; give each metric its own name", m.Name, other.Line)
		}
	}
	if !parseKind(words[2], &m) {
		return p.errorf(n, "metric %s: kind %q is not one; %s", m.Name, words[2], kindWant)
	}
	seen := map[string]bool{}
	for _, opt := range words[3:] {
		key, val, _ := strings.Cut(opt, "=")
		if seen[key] {
			return p.errorf(n, "metric %s: a second %s=; write it once", m.Name, key)
		}
		seen[key] = true
		var err error
		switch key {
		case "by":
			err = p.by(n, &m, val)
		case "where":
			err = p.where(n, &m, val)
		case "buckets":
			err = p.buckets(n, &m, val)
		case "scale":
			err = p.scale(n, &m, val)
		default:
			err = p.errorf(n, "metric %s: unknown option %q; want by=F1,F2 or where=F<op>VALUE%s", m.Name, opt, histogramOptions(m.Kind))
		}
		if err != nil {
			return err
		}
	}
	if m.Kind == Histogram && m.Buckets == nil {
		m.Buckets = slices.Clone(DefaultBuckets)
	}
	if m.Kind == Histogram && m.Scale == 0 {
		m.Scale = 1
	}
	p.d.Metrics = append(p.d.Metrics, m)
	return nil
}

// histogramOptions names a histogram's own options for an error.
func histogramOptions(k MetricKind) string {
	if k == Histogram {
		return ", buckets=B1,B2,... or scale=K"
	}
	return ""
}

// parseKind reads count, sum=F, min=F, max=F or histogram=F into m.
func parseKind(word string, m *Metric) bool {
	if word == Count.String() {
		m.Kind = Count
		return true
	}
	name, field, _ := strings.Cut(word, "=")
	kind, ok := ParseMetricKind(name)
	if !ok || kind == Count {
		return false
	}
	m.Kind = kind
	m.Field = field
	return isFieldName(field)
}

func (p *parser) by(n int, m *Metric, val string) error {
	for _, l := range strings.Split(val, ",") {
		if !isLabelName(l) {
			return p.errorf(n, "metric %s: by= label %q is not a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*, not starting with __)", m.Name, l)
		}
		if slices.Contains(m.By, l) {
			return p.errorf(n, "metric %s: by= names %q twice; name each label once", m.Name, l)
		}
		m.By = append(m.By, l)
	}
	return nil
}

// ops are the where= operators, two-byte ones first so that "<=" is not
// read as "<" followed by a value starting with "=".
var ops = []struct {
	s  string
	op Op
}{{"!=", Ne}, {"<=", Le}, {">=", Ge}, {"=", Eq}, {"<", Lt}, {">", Gt}}

func (p *parser) where(n int, m *Metric, val string) error {
	i := strings.IndexAny(val, "=!<>")
	if i > 0 && isFieldName(val[:i]) {
		for _, o := range ops {
			if v, ok := strings.CutPrefix(val[i:], o.s); ok {
				if v == "" || strings.ContainsAny(v[:1], "=!<>") {
					break // "<>", "=>", "==": a typo, not a value starting with an operator
				}
				m.Where = &Where{Field: val[:i], Op: o.op, Value: v}
				return nil
			}
		}
	}
	return p.errorf(n, "metric %s: where=%s wants FIELD<op>VALUE with op one of = != < <= > >=, e.g. where=status>=500", m.Name, val)
}

// isMetricName reports whether s matches [a-zA-Z_:][a-zA-Z0-9_:]*.
func isMetricName(s string) bool {
	return isName(s, ":")
}

// isLabelName reports whether s matches [a-zA-Z_][a-zA-Z0-9_]* and does
// not start with "__", which Prometheus reserves.
func isLabelName(s string) bool {
	return isName(s, "") && !strings.HasPrefix(s, "__")
}

// isFieldName reports whether s can name a field: a regex group name
// ([a-zA-Z0-9_]+), a LogFormat field, or a JSON key path or logfmt key
// (those may also hold '.', '-' and '@': request.headers.User-Agent).
func isFieldName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isLetter(s[i]) && !isDigit(s[i]) && !strings.ContainsRune(".-@", rune(s[i])) {
			return false
		}
	}
	return true
}

// isName reports whether s is a letter, '_' or one of extra, then any of
// those or digits.
func isName(s, extra string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isLetter(c) && !strings.ContainsRune(extra, rune(c)) && (i == 0 || !isDigit(c)) {
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool  { return '0' <= c && c <= '9' }
