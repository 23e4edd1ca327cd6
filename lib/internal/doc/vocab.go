package doc

import "slices"

// The common vocabulary: beside its own names, every format offers these
// where it has the quantity, so that one document reads any access log.
//   - time: the entry's time (the format's default time field)
//   - status: the response status
//   - bytes: the response's size in bytes
//   - method, path: the request's method and target
//   - duration: the time taken, in seconds
//
// Alias is a common name for a format's own field: the same bytes, or,
// with Div, the field's number divided by Div (a duration logged in
// milliseconds is Div 1000), its text the quotient as a number. With
// Plus, the sum of Of's number and each Plus field's: a load balancer
// logs its time taken in parts (AWS's request, target and response
// processing times), and the sum is `-` when a part is not a number or is
// negative (AWS's -1: the request never reached a target, or the
// connection closed), never a total that leaves a part out.
type Alias struct {
	Name, Of string
	Div      float64  // 0 or 1: the field as it is
	Plus     []string // the fields added to Of's number
}

// CommonNames are the common vocabulary's names.
var CommonNames = []string{"time", "status", "bytes", "method", "path", "duration"}

// apacheVocab is an Apache LogFormat's common names: bytes is %b, else
// %O (the bytes sent, headers included, which vhost_combined logs);
// duration is %D (or %{us}T), else %{ms}T, else %T, in seconds.
func apacheVocab(l *LogFormat) []Alias {
	return vocabFrom(l, []Alias{
		{Name: "bytes", Of: "bytes_out"},
		{Name: "duration", Of: "duration_us", Div: 1e6}, {Name: "duration", Of: "duration_ms", Div: 1e3}, {Name: "duration", Of: "duration_s"},
	})
}

// nginxVocab is an nginx log_format's common names: bytes is
// $body_bytes_sent, else $bytes_sent; duration is $request_time.
func nginxVocab(l *LogFormat) []Alias {
	return vocabFrom(l, []Alias{
		{Name: "bytes", Of: "body_bytes_sent"}, {Name: "bytes", Of: "bytes_sent"},
		{Name: "duration", Of: "request_time"},
	})
}

// vocabFrom keeps the candidates whose field the format has, the first of
// each name, and adds time for the format's first time field.
func vocabFrom(l *LogFormat, candidates []Alias) []Alias {
	fields := l.Fields()
	var out []Alias
	for _, p := range l.Parts {
		if p.Kind == Stamp {
			out = append(out, Alias{Name: "time", Of: p.Field})
			break
		}
	}
	for _, a := range candidates {
		if slices.Contains(fields, a.Of) && !slices.ContainsFunc(out, func(b Alias) bool { return b.Name == a.Name }) {
			out = append(out, a)
		}
	}
	return out
}

// aliases are the document's common names that its format does not have
// as fields of its own, each naming a field it has.
func (d *Doc) aliases(own []string) []Alias {
	var out []Alias
	for _, a := range d.Vocab {
		if !slices.Contains(own, a.Name) && slices.Contains(own, a.Of) &&
			!slices.ContainsFunc(out, func(b Alias) bool { return b.Name == a.Name }) {
			out = append(out, a)
		}
	}
	return out
}

// Aliases returns the common names the document's format offers beyond
// its own fields; Fields lists them after those.
func (d *Doc) Aliases() []Alias {
	return d.aliases(d.ownFields())
}

// isAlias says whether name is a common name the vocabulary gives.
func (d *Doc) isAlias(name string) bool {
	return slices.ContainsFunc(d.Vocab, func(a Alias) bool { return a.Name == name })
}
