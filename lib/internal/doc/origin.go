package doc

import "slices"

// The origin fields: what an entry's store says of it, not its bytes.
// Every format offers them, after its own fields and its common names,
// when a metric reads them (an origin field no metric reads is not listed,
// so that the fields of a format are what its lines hold), unless it has a
// field of that name itself (its own field wins):
//   - store: the store's id, as feed names it (under --glob, the text the
//     wildcards matched), so one glob over per-vhost or per-pod files
//     gives per-file series with by=store.
//
// A JSON or logfmt format has a field for every name a document reads, so
// there an origin name is the origin field unless the format line names
// it (format json store=store reads the key "store").
var OriginNames = []string{"store"}

// origins are the origin fields the document reads that its format has no
// field of its own for.
func (d *Doc) origins(own []string) []string {
	var out []string
	for _, n := range OriginNames {
		if d.Uses(n) && !slices.Contains(own, n) {
			out = append(out, n)
		}
	}
	return out
}

// Origins returns the origin fields the document's format offers; Fields
// lists them last, after the common names.
func (d *Doc) Origins() []string {
	return d.origins(d.ownFields())
}

// isOrigin says whether name is an origin field's name.
func isOrigin(name string) bool {
	return slices.Contains(OriginNames, name)
}
