package doc

import (
	"strings"
	"testing"
)

func TestEachFormatNamesItsFields(t *testing.T) {
	for _, c := range []struct{ format, fields, time, layout string }{
		{`format apache "%h %l %u %t \"%r\" %>s %b \"%{Referer}i\" \"%{User-Agent}i\""`,
			"host ident user time method path proto status bytes referer agent", "time", LayoutCLF},
		{`format apache "%h %{%d/%b/%Y:%H:%M:%S}t.%{msec_frac}t %>s %{begin:usec_frac}t"`,
			"host time time_msec_frac status time_usec_frac", "time", "02/Jan/2006:15:04:05"},
		{`format apache combined`, "host ident user time method path proto status bytes referer agent", "time", LayoutCLF},
		{`format apache "%a %A %v:%p %{ms}T %T %D %{us}T %I %O %S %k %L %m %U %q %H %{X-Forwarded-For}i %{Set-Cookie}o %{HOME}e %{sid}C %{msec}t"`,
			"client_ip local_ip vhost port duration_ms duration_s duration_us duration_us_2 bytes_in bytes_out bytes_total keepalive log_id method url_path query proto x_forwarded_for out_set_cookie env_home cookie_sid time bytes duration", "time", LayoutUnixMs},
		{`format nginx '$remote_addr [$time_iso8601] "$request" $status ${request_time}s $upstream_response_time'`,
			"remote_addr time_iso8601 request method path proto status request_time upstream_response_time time duration", "time_iso8601", LayoutRFC3339},
		{`format nginx escape=json '{"t":"$msec","s":"$status"}'  # a comment`, "msec status time", "msec", LayoutUnix},
		{"format json method=request.method\ntime ts layout=unix", "method request.size ts", "ts", LayoutUnix},
		{"format logfmt\ntime ts layout=rfc3339", "request.size ts", "ts", LayoutRFC3339},
	} {
		text := c.format + "\nwindow 1s\nmetric r sum=request.size\n"
		if !strings.HasPrefix(c.format, "format json") && !strings.HasPrefix(c.format, "format logfmt") {
			text = c.format + "\nwindow 1s\nmetric r count\n"
		}
		if strings.Contains(c.format, "%{us}T") { // two fields of one name are refused
			_, err := Parse("t", []byte(text))
			if err == nil || !strings.Contains(err.Error(), "two directives give field duration_us") {
				t.Errorf("%s: %v", c.format, err)
			}
			text = strings.Replace(text, " %{us}T", "", 1)
			c.fields = strings.Replace(c.fields, " duration_us_2", "", 1)
		}
		d, err := Parse("t", []byte(text))
		if err != nil {
			t.Errorf("%s: %v", c.format, err)
			continue
		}
		if got := strings.Join(d.Fields(), " "); got != c.fields {
			t.Errorf("%s:\nfields %s\nwant   %s", c.format, got, c.fields)
		}
		if d.TimeField != c.time || d.Layout != c.layout {
			t.Errorf("%s: time %s layout=%s, want %s layout=%s", c.format, d.TimeField, d.Layout, c.time, c.layout)
		}
	}
}

func TestKeyFormatsNeedATimeAndLabelNames(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"format json\nwindow 1s\nmetric r count\n", `"format json" needs a time directive naming the key, e.g. time ts layout=unix`},
		{"format logfmt\nwindow 1s\nmetric r count\n", `"format logfmt" needs a time directive`},
		{"format json a.b=c\ntime ts layout=unix\nwindow 1s\nmetric r count\n", `"a.b=c" is not NAME=KEYPATH`},
		{"format json a=b a=c\ntime ts layout=unix\nwindow 1s\nmetric r count\n", "field a is named twice"},
		{"format json\ntime ts layout=unix\nwindow 1s\nmetric r count by=request.method\n", "is not a Prometheus label name"},
	} {
		_, err := Parse("t", []byte(c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.text, err, c.want)
		}
	}
}

// A config line pasted as it is reads as its format string alone.
func TestAPastedConfigLineReadsAsItsString(t *testing.T) {
	for _, c := range []struct{ line, src string }{
		{`format apache "%h %>s %t" timed`, `%h %>s %t`},
		{`format nginx main '$status ' '[$time_local]';`, `$status [$time_local]`},
		{`format nginx '$status [$time_local]';  # the main format`, `$status [$time_local]`},
	} {
		d, err := Parse("t", []byte(c.line+"\nwindow 1s\nmetric r count\n"))
		if err != nil {
			t.Errorf("%s: %v", c.line, err)
			continue
		}
		if d.LogFormat.Source != c.src {
			t.Errorf("%s: source %q, want %q", c.line, d.LogFormat.Source, c.src)
		}
	}
	if _, err := Parse("t", []byte("format apache \"%h %t\" two words\nwindow 1s\nmetric r count\n")); err == nil {
		t.Error("two words after the string were taken")
	}
}

// FuzzLogFormatString feeds any string as an Apache LogFormat and as an
// nginx log_format: Parse never panics, and a format it accepts has unique
// field names, a literal after every field but the last, and its time
// among its fields.
func FuzzLogFormatString(f *testing.F) {
	f.Add(apacheNicknames["combined"] + ` %D %{ms}T %v "%{X-Forwarded-For}i" %{%Y-%m-%d %H:%M:%S}t`)
	f.Add(nginxNicknames["combined"] + ` $request_time ${upstream_response_time}s [$time_iso8601] $msec`)
	f.Add(`%!200,304{Referer}i %% %<s %{c}a %^ti`)
	f.Fuzz(func(t *testing.T, src string) {
		quoted := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", " ").Replace(src)
		for _, line := range []string{`format apache "` + quoted + `"`, `format nginx "` + quoted + `"`} {
			d, err := Parse("fuzz", []byte(line+"\nwindow 1s\nmetric r count\n"))
			if err != nil {
				continue
			}
			fields := d.Fields()
			seen := map[string]bool{}
			for _, n := range fields {
				if seen[n] || n == "" {
					t.Fatalf("%s: field %q twice or empty in %q", line, n, fields)
				}
				seen[n] = true
			}
			for i, p := range d.LogFormat.Parts {
				if p.Lit == "" && i != len(d.LogFormat.Parts)-1 {
					t.Fatalf("%s: part %d (%s) has no literal after it", line, i, p.name())
				}
			}
			if !seen[d.TimeField] {
				t.Fatalf("%s: time %q is not a field of %q", line, d.TimeField, fields)
			}
		}
	})
}
