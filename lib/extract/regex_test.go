package extract

import (
	"testing"
	"time"
)

const regexDoc = "format regex ^(?P<ts>\\S+) (?P<level>[A-Z]+)(?: (?P<code>\\d+))? #(?P<msg>.*)$\n" +
	"time ts layout=rfc3339\nwindow 1s\nmetric r count by=level\n"

func TestExtractRegexFieldsAreNamedGroups(t *testing.T) {
	x := newExtractor(t, regexDoc)
	if x.numFields() != 4 || x.Field("ts") != 0 || x.Field("msg") != 3 {
		t.Fatalf("fields %q", x.names)
	}
	var e Entry
	if r := x.Extract([]byte("2026-10-10T13:55:36Z WARN 42 #disk \xff full\r"), &e); r != "" {
		t.Fatalf("Extract = %q", r)
	}
	want := map[string]string{"ts": "2026-10-10T13:55:36Z", "level": "WARN", "code": "42", "msg": "disk \xff full"}
	for k, v := range want {
		if got := string(e.Fields[x.Field(k)]); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	if e.Time != time.Date(2026, 10, 10, 13, 55, 36, 0, time.UTC).UnixNano() {
		t.Errorf("time = %v", time.Unix(0, e.Time).UTC())
	}
}

func TestExtractRegexGroupOutsideTheMatchIsEmpty(t *testing.T) {
	x := newExtractor(t, regexDoc)
	var e Entry
	if r := x.Extract([]byte("2026-10-10T13:55:36Z INFO #ok"), &e); r != "" || len(e.Fields[x.Field("code")]) != 0 {
		t.Errorf("Extract = %q, code %q", r, e.Fields[x.Field("code")])
	}
}

func TestExtractRegexDropsWhatDoesNotMatchOrHasNoTime(t *testing.T) {
	x := newExtractor(t, regexDoc)
	var e Entry
	for line, want := range map[string]string{
		"":                             ReasonFormat,
		"2026-10-10T13:55:36Z warn #x": ReasonFormat,
		"yesterday INFO #x":            ReasonTime,
	} {
		if r := x.Extract([]byte(line), &e); r != want {
			t.Errorf("Extract(%q) = %q, want %q", line, r, want)
		}
	}
}
