package doc

import (
	"slices"
	"strings"
)

// W3C is a W3C extended log's layout (IIS's, CloudFront's): columns
// separated by one byte, named by the file's "#Fields:" header, which may
// change mid-file; until a file's first, the default columns.
type W3C struct {
	Name    string   // "w3c" or "cloudfront"
	Sep     byte     // ' ' (IIS) or '\t' (CloudFront)
	Default []string // the columns before a #Fields header, as a header names them
}

// The default columns: IIS's default field set, as its #Fields header
// names it, and CloudFront's standard log fields.
var (
	iisDefault        = strings.Fields("date time s-ip cs-method cs-uri-stem cs-uri-query s-port cs-username c-ip cs(User-Agent) cs(Referer) sc-status sc-substatus sc-win32-status time-taken")
	cloudFrontDefault = strings.Fields("date time x-edge-location sc-bytes c-ip cs-method cs(Host) cs-uri-stem sc-status cs(Referer) cs(User-Agent) cs-uri-query cs(Cookie) x-edge-result-type x-edge-request-id x-host-header cs-protocol cs-bytes time-taken x-forwarded-for ssl-protocol ssl-cipher x-edge-response-result-type cs-protocol-version fle-status fle-encrypted-fields c-port time-to-first-byte x-edge-detailed-result-type sc-content-type sc-content-len sc-range-start sc-range-end")
)

// w3cFormats are the two W3C layouts by their format names, with their
// common names: IIS logs time-taken in milliseconds, CloudFront in
// seconds.
var w3cFormats = map[string]struct {
	w     W3C
	vocab []Alias
}{
	"w3c": {W3C{"w3c", ' ', iisDefault}, []Alias{{Name: "status", Of: "sc_status"}, {Name: "bytes", Of: "sc_bytes"},
		{Name: "method", Of: "cs_method"}, {Name: "path", Of: "cs_uri_stem"}, {Name: "duration", Of: "time_taken", Div: 1e3}}},
	"cloudfront": {W3C{"cloudfront", '\t', cloudFrontDefault}, []Alias{{Name: "status", Of: "sc_status"}, {Name: "bytes", Of: "sc_bytes"},
		{Name: "method", Of: "cs_method"}, {Name: "path", Of: "cs_uri_stem"}, {Name: "duration", Of: "time_taken"}}},
}

// W3CField is a column's field name: the header's identifier lowercased,
// '-' and '(' as '_', ')' left out (cs(User-Agent) is cs_user_agent,
// time-taken time_taken). The date and time columns are one field, time.
func W3CField(id string) string {
	id = strings.ToLower(id)
	if id == "date" {
		return "time"
	}
	return strings.NewReplacer("-", "_", "(", "_", ")", "").Replace(id)
}

// W3CKind is how a column is checked: the status, the byte counts, and
// the numbers IIS and CloudFront log.
func W3CKind(field string) FieldKind {
	switch field {
	case "sc_status":
		return Status
	case "sc_bytes", "cs_bytes", "sc_content_len":
		return Size
	case "time_taken", "time_to_first_byte", "s_port", "c_port", "sc_substatus", "sc_win32_status":
		return Numeric
	}
	return Text
}

// w3cFields are a W3C format's fields: time, the default columns', the
// common names' sources, then those the metrics read (a header may name
// any column; one the current header lacks is empty, as a JSON key a line
// lacks).
func (d *Doc) w3cFields() []string {
	names := []string{"time"}
	add := func(n string) {
		if n != "" && !slices.Contains(names, n) && !d.isAlias(n) {
			names = append(names, n)
		}
	}
	for _, id := range d.W3C.Default {
		if id != "time" {
			add(W3CField(id))
		}
	}
	for _, a := range d.Vocab {
		add(a.Of)
	}
	for _, m := range d.Metrics {
		for _, f := range m.Fields() {
			if !d.isOrigin(f) {
				add(f)
			}
		}
	}
	add(d.TimeField)
	return names
}
