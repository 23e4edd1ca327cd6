package extract

import (
	"bytes"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/timbertally/timbertally/lib/internal/doc"
)

// slowNamed is an independent, slow reader of a named format: a regular
// expression built from the doc.LogFormat's parts (each field up to its
// literal: [^E]* for the literal's first byte E, a quoted field's escapes
// as (?:[^"\\]|\\.)*), tried for the format and then each variant, after
// a syslog header and squid's padding are taken off by regular
// expressions too; the checks are the documented ones, and the time is
// read by time.Parse.
type slowNamed struct {
	forms  []slowForm
	names  []string
	syslog bool
	sq     bool
	layout string
	tf     string // the time field
}

type slowForm struct {
	re    *regexp.Regexp
	parts []doc.Part
}

var (
	// time.Parse takes "FeB" and a one-digit hour; the formats write neither.
	slowCLF     = regexp.MustCompile(`^[0-9]{2}/(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)/[0-9]{4}:[0-9]{2}:[0-9]{2}:[0-9]{2} [+-][0-9]{4}$`)
	slowHAProxy = regexp.MustCompile(`^[0-9]{2}/(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)/[0-9]{4}:[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)?$`)
	slowSyslog  = regexp.MustCompile(`^(?:` +
		`<[0-9]{1,3}>1 (?:[^ ]+ ){5}(?:-|(?:\[(?:[^"\]]|"(?:[^"\\]|\\.)*")*\])+) ` + // RFC 5424
		`|(?:<[0-9]{1,3}>)?(?:(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ 0-9][0-9] [0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)?|[0-9]{4}-[0-9]{2}-[0-9]{2}T[^ ]*) (?:(?:(?:[^ :]|:[^ ])+|[^ ]+ (?:[^ :]|:[^ ])+): )?` + // a time, a TAG or not
		`|(?:<[0-9]{1,3}>)?[^ :\[]+\[[0-9]+\]: ` + // a TAG alone
		`|<[0-9]{1,3}>)`) // a <PRI> alone
	slowSqueeze = regexp.MustCompile(`  +`)
)

func newSlowNamed(d *doc.Doc) *slowNamed {
	l := d.LogFormat
	s := &slowNamed{names: l.Fields(), syslog: l.Syslog, sq: l.Squeeze, layout: d.Layout, tf: d.TimeField}
	for k, f := range append([]*doc.LogFormat{l}, l.Variants...) {
		var re strings.Builder
		re.WriteString(`(?s)^` + regexp.QuoteMeta(f.Prefix))
		for i, p := range f.Parts {
			switch {
			case p.Addr && f.Parts[i+1].Lit == "":
				re.WriteString(`(.*)`) // greedy: the last ':' before the port
			case p.Addr:
				re.WriteString(`([^` + regexp.QuoteMeta(f.Parts[i+1].Lit[:1]) + `]*)`)
			case p.Lit == "" && k > 0 && p.Kind == doc.Text && !p.Quoted && p.Field != l.Parts[len(l.Parts)-1].Field:
				re.WriteString(`([^ \t]*)`) // an older form ends after a whole field
			case p.Lit == "":
				re.WriteString(`(.*)`)
			case p.Quoted:
				re.WriteString(`((?:[^"\\]|\\.)*)`)
			default:
				e := regexp.QuoteMeta(p.Lit[:1])
				re.WriteString(`(`)
				for range p.Skip {
					re.WriteString(`[^` + e + `]*` + e)
				}
				re.WriteString(`[^` + e + `]*)`)
			}
			re.WriteString(regexp.QuoteMeta(p.Lit))
		}
		re.WriteString(`$`)
		s.forms = append(s.forms, slowForm{regexp.MustCompile(re.String()), f.Parts})
	}
	return s
}

// extract returns the fields by name and the time, ok false for a line
// the format refuses.
func (s *slowNamed) extract(line string) (map[string]string, int64, bool) {
	line = strings.TrimSuffix(line, "\r")
	if s.syslog {
		if m := slowSyslog.FindStringIndex(line); m != nil {
			line = line[m[1]:]
		}
		line = strings.TrimLeft(line, " ") // rsyslog's msg keeps the space after the TAG
	}
	if s.sq {
		line = slowSqueeze.ReplaceAllString(line, " ")
	}
	for _, f := range s.forms {
		m := f.re.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		fields := map[string]string{}
		for _, n := range s.names {
			fields[n] = "-"
		}
		ok := true
		for i, p := range f.parts {
			v := m[i+1]
			switch p.Kind {
			case doc.Status:
				ok = ok && slowStatus(v)
			case doc.Size:
				ok = ok && (v == "-" || slowDigits(v) && len(v) <= 15)
			case doc.Numeric:
				_, isNum := Number([]byte(v))
				ok = ok && (v == "-" || isNum)
			case doc.Text:
				ok = ok && (v != "" || p.Quoted || p.Delimited)
			}
			if p.Lit == "" && p.Kind != doc.Text && strings.Contains(v, " ") {
				ok = false
			}
			if p.Field != "" {
				fields[p.Field] = v
			}
			if p.Kind == doc.Request {
				meth, path, proto := slowRequest(v)
				fields["method"], fields["path"], fields["proto"] = meth, path, proto
			}
		}
		if !ok {
			continue
		}
		t, ok := slowTime(s.layout, fields[s.tf])
		return fields, t, ok
	}
	return nil, 0, false
}

func slowStatus(v string) bool {
	return len(v) == 3 && slowDigits(v) || v == "0" || v == "-1"
}

func slowDigits(v string) bool {
	for _, c := range []byte(v) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return v != ""
}

// slowRequest cuts a request as docs/tally.md says: at its first and
// last space; "-" for parts that cannot be told.
func slowRequest(r string) (string, string, string) {
	first := strings.IndexByte(r, ' ')
	last := strings.LastIndexByte(r, ' ')
	switch {
	case first > 0 && last < len(r)-1 && last-first >= 2:
		return r[:first], r[first+1 : last], r[last+1:]
	case first > 0 && first == last && last < len(r)-1:
		return r[:first], r[first+1:], "-"
	}
	return "-", "-", "-"
}

// slowTime reads a time by time.Parse, or by strconv for the unix ones.
func slowTime(layout, v string) (int64, bool) {
	var t time.Time
	var err error
	switch layout {
	case doc.LayoutCLF:
		if !slowCLF.MatchString(v) || v[len(v)-2:] >= "60" {
			return 0, false // a zone's minutes past 59: time.Parse takes them, no clock writes them
		}
		t, err = time.Parse("02/Jan/2006:15:04:05 -0700", v)
	case doc.LayoutRFC3339:
		t, err = time.Parse(time.RFC3339Nano, v)
	case doc.LayoutHAProxy:
		if !slowHAProxy.MatchString(v) {
			return 0, false
		}
		t, err = time.Parse("02/Jan/2006:15:04:05", v)
	case doc.LayoutUnix, doc.LayoutUnixUs:
		whole, frac, _ := strings.Cut(v, ".")
		s, err := strconv.ParseInt(whole, 10, 64)
		if err != nil || !slowDigits(whole) || strings.Contains(v, ".") && !slowDigits(frac) {
			return 0, false
		}
		if layout == doc.LayoutUnixUs { // a fraction's first 3 digits are nanoseconds
			f, _ := strconv.ParseInt((frac + "000")[:3], 10, 64)
			return s*1000 + f, s < 9223372036000000
		}
		f, _ := strconv.ParseInt((frac + "000000000")[:9], 10, 64)
		return s*1e9 + f, s < 9223372036
	default:
		return 0, false
	}
	if err != nil || t.Year() < 1678 || t.Year() > 2261 {
		return 0, false
	}
	return t.UnixNano(), true
}

// FuzzNamedFormats checks every LogFormat-based named format's cutter
// (the template, the variants, the syslog header, squid's padding)
// against slowNamed: the same lines extract, with the same fields and
// time.
func FuzzNamedFormats(f *testing.F) {
	formats := []string{"traefikclf", "awselb", "awsalb", "awss3", "cloudstorage", "squid", "vcombined", "haproxy httplog", "haproxy tcplog", "haproxy httpslog", "envoy"}
	files := map[string]string{"haproxy httplog": "haproxy-httplog.log", "haproxy tcplog": "haproxy-tcplog.log", "haproxy httpslog": "haproxy-httpslog.log"}
	type pair struct {
		x    *Extractor
		slow *slowNamed
	}
	// pairs[i] reads formats[i%len(formats)]: counting its lines, then
	// (i >= len(formats)) summing each of its numeric fields too, whose
	// numbers a cutter records as it checks them: Entry.Number must then
	// be Number of the field, as for a field no metric reads.
	var pairs []pair
	for sums := range 2 {
		for i, name := range formats {
			text := "format " + name + "\nwindow 1s\nmetric r count\n"
			d, err := doc.Parse("t", []byte(text))
			if err != nil {
				f.Fatal(err)
			}
			for k, p := range d.LogFormat.Parts {
				if sums == 1 && p.Kind == doc.Numeric && p.Field != "" {
					text += "metric s" + strconv.Itoa(k) + " sum=" + p.Field + "\n"
				}
			}
			if d, err = doc.Parse("t", []byte(text)); err != nil {
				f.Fatal(err)
			}
			x, _ := New(d)
			x.CutRequests()
			pairs = append(pairs, pair{x, newSlowNamed(d)})
			file := files[name]
			if file == "" {
				file = name + ".log"
			}
			for _, l := range fixtureLines(f, file) {
				f.Add(uint8(sums*len(formats)+i), string(l))
			}
		}
	}
	// Quotes a backslash escapes, which the straight-line cutters leave
	// to the compiled one.
	f.Add(uint8(slices.Index(formats, "envoy")), `[2016-04-15T20:17:00.310Z] "GET /x HTTP/1.1" 200 - 0 0 1 - "-" "a \"b\" c" "id" "h" "-"`)
	f.Add(uint8(slices.Index(formats, "haproxy httplog")), `10.0.1.2:1 [06/Feb/2009:12:14:14.655] f b/s 1/0/3/6/1 200 2 - - ---- 1/1/1/1/0 0/0 "GET /a\\" HTTP/1.1"`)
	f.Fuzz(func(t *testing.T, which uint8, line string) {
		if strings.ContainsAny(line, "\n") {
			return
		}
		p := pairs[int(which)%len(pairs)]
		var e Entry
		reason := p.x.Extract([]byte(line), &e)
		want, wantTime, ok := p.slow.extract(line)
		if (reason == "") != ok {
			t.Fatalf("format %s, %q: extract says %q, the slow reader ok=%v %v", formats[int(which)%len(pairs)%len(formats)], line, reason, ok, want)
		}
		if !ok {
			return
		}
		if e.Time != wantTime {
			t.Fatalf("%q: time %d, the slow reader's %d", line, e.Time, wantTime)
		}
		for n, v := range want {
			if got := string(e.Fields[p.x.Field(n)]); got != v {
				t.Fatalf("%q: field %s = %q, the slow reader's %q", line, n, got, v)
			}
		}
		for i := range p.x.ownFields() {
			got, gotOK := e.Number(i)
			if v, ok := Number(e.Fields[i]); got != v || gotOK != ok || math.Signbit(got) != math.Signbit(v) {
				t.Fatalf("%q: field %s's number %v %v, Number of %q %v %v", line, p.x.names[i], got, gotOK, e.Fields[i], v, ok)
			}
		}
	})
}

// FuzzW3C checks the W3C cutter against a slow reader that splits each
// line on its separator: a document of lines, #Fields headers among them,
// reads the same.
func FuzzW3C(f *testing.F) {
	for _, c := range []struct{ format, file string }{{"w3c", "w3c.log"}, {"cloudfront", "cloudfront.log"}} {
		b := bytes.Join(fixtureLines(f, c.file), []byte("\n"))
		f.Add(c.format == "cloudfront", string(b))
	}
	f.Fuzz(func(t *testing.T, cloudfront bool, text string) {
		format, sep := "w3c", " "
		if cloudfront {
			format, sep = "cloudfront", "\t"
		}
		x := namedExtractor(t, format+"\nmetric b count by=sc_bytes,cs_host,x_edge_location")
		cols := x.d.W3C.Default
		var e Entry
		for _, line := range strings.Split(text, "\n") {
			reason := x.Extract([]byte(line), &e)
			line = strings.TrimSuffix(line, "\r")
			if strings.HasPrefix(line, "#") {
				if ids, ok := strings.CutPrefix(line, "#Fields:"); ok {
					cols = strings.Fields(ids)
					if reason != ReasonLayout {
						t.Fatalf("%q: reason %q, want layout", line, reason)
					}
				} else if reason != ReasonHeader {
					t.Fatalf("%q: reason %q, want header", line, reason)
				}
				continue
			}
			vals := strings.Split(line, sep)
			// The reason is the first column's, in order: a column
			// before the last without a separator after it, or a last
			// one with one, is format; else its check's.
			wantReason := ""
			want := map[string]string{}
			for i := 0; wantReason == "" && i < len(cols); i++ {
				if i < len(cols)-1 && len(vals) <= i+1 || i == len(cols)-1 && len(vals) > len(cols) {
					wantReason = ReasonFormat
					break
				}
				name, v := doc.W3CField(cols[i]), vals[i]
				if k := x.Field(name); cols[i] == "time" || cols[i] == "date" || k < 0 || k >= x.ownFields() {
					continue // a column the document has no field for (or a bare "bytes", the common name's) is not read
				}
				want[name] = v
				switch doc.W3CKind(name) {
				case doc.Status:
					if !slowStatus(v) {
						wantReason = ReasonStatus
					}
				case doc.Size: // digits below 2^53 (leading zeros and all)
					if _, isNum := Number([]byte(v)); v != "-" && !(slowDigits(v) && isNum) {
						wantReason = ReasonBytes
					}
				case doc.Numeric:
					if _, isNum := Number([]byte(v)); v != "-" && !isNum {
						wantReason = ReasonNumber
					}
				}
			}
			var wantTime int64
			if wantReason == "" {
				// The extractor's date and clock are the header's last
				// "date" and "time" columns (a header naming either twice
				// is malformed; its rule kept as it was).
				di, ti := lastIndexOfString(cols, "date"), lastIndexOfString(cols, "time")
				ok := di >= 0 && ti == di+1
				if ok {
					tt, err := time.Parse("2006-01-02 15:04:05", vals[di]+" "+vals[ti])
					ok = err == nil && tt.Year() >= 1678 && tt.Year() <= 2261 && len(vals[di]) == 10 && len(vals[ti]) >= 8 && vals[ti][len(vals[ti])-1] != '.'
					wantTime = tt.UnixNano()
				}
				if !ok {
					wantReason = ReasonTime
				}
			}
			if reason != wantReason {
				t.Fatalf("%s %q (columns %v): extract says %q, the slow reader %q", format, line, cols, reason, wantReason)
			}
			ok := reason == ""
			if !ok {
				continue
			}
			if e.Time != wantTime {
				t.Fatalf("%q: time %d, want %d", line, e.Time, wantTime)
			}
			for n, v := range want {
				if got := string(e.Fields[x.Field(n)]); got != v {
					t.Fatalf("%q: field %s = %q, want %q", line, n, got, v)
				}
				// a number read as the column is cut is Number's
				got, gotOK := e.Number(x.Field(n))
				if wantV, wantOK := Number([]byte(v)); got != wantV || gotOK != wantOK {
					t.Fatalf("%q: field %s's number %v %v, want %v %v", line, n, got, gotOK, wantV, wantOK)
				}
			}
		}
	})
}

func lastIndexOfString(list []string, s string) int {
	for i := len(list) - 1; i >= 0; i-- {
		if list[i] == s {
			return i
		}
	}
	return -1
}
