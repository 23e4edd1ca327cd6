package doc

import (
	"slices"
	"strings"
)

// The origin fields: what an entry's store and its container runtime say
// of it, not its bytes. Every format offers them, after its own fields
// and its common names, when the document reads them (a metric, or the
// time directive; an origin field nothing reads is not listed, so that
// the fields of a format are what its lines hold), unless it has a field
// of that name itself (its own field wins):
//   - store: the store's id, as feed names it (under --glob, the text the
//     wildcards matched), so one glob over per-vhost or per-pod files
//     gives per-file series with by=store.
//   - stream, runtime_time: with an envelope, the stream the runtime
//     read the line from (stdout, stderr) and the time it stamped the
//     line's first part with (RFC 3339, layout rfc3339).
//   - namespace, pod, container: with an envelope, what the store's path
//     says in the kubelet's layouts (extract.KubeletPath); a store whose
//     path is in neither is refused when it is declared.
//
// A JSON or logfmt format has a field for every name a document reads, so
// there an origin name is the origin field unless the format line names
// it (format json store=store reads the key "store").
var storeOrigins = []string{"store"}

// EnvelopeOrigins are the fields an envelope adds: the runtime's, and
// the kubelet's from the store's path (only a container's log is
// enveloped, and a json or logfmt document without one reads keys of
// those names as before).
var EnvelopeOrigins = []string{"stream", "runtime_time", "namespace", "pod", "container"}

// EnvelopeKind is a container runtime's line around each line of a
// container's output (extract/envelope.go cuts them).
type EnvelopeKind int

// The envelopes: none, CRI's (containerd, CRI-O), docker's json-file.
const (
	NoEnvelope EnvelopeKind = iota
	CRI
	Docker
)

// envelopeWords spell the envelopes, as the directive does.
var envelopeWords = [...]string{CRI: "cri", Docker: "docker"}

// String returns the envelope's word.
func (k EnvelopeKind) String() string {
	if k > 0 && int(k) < len(envelopeWords) {
		return envelopeWords[k]
	}
	return "none"
}

// originNames are the origin fields a document may read.
func (d *Doc) originNames() []string {
	names := slices.Clone(storeOrigins)
	if d.Envelope != NoEnvelope {
		names = append(names, EnvelopeOrigins...)
	}
	return names
}

// origins are the origin fields the document reads that its format has no
// field of its own for.
func (d *Doc) origins(own []string) []string {
	var out []string
	for _, n := range d.originNames() {
		if (d.Uses(n) || d.TimeField == n) && !slices.Contains(own, n) {
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

// isOrigin says whether name is an origin field's name for this document.
func (d *Doc) isOrigin(name string) bool {
	return slices.Contains(d.originNames(), name)
}

const envelopeWant = `"envelope" wants cri (containerd's and CRI-O's TIME STREAM P|F LINE) or docker (docker's json-file {"log":…}), and stream=stdout or stream=stderr to read one stream only, e.g. envelope cri stream=stdout`

// envelope parses "envelope cri|docker [stream=stdout|stderr]".
func (p *parser) envelope(n int, words []string) error {
	if err := p.once(n, "envelope", &p.envelopeLine); err != nil {
		return err
	}
	if len(words) == 3 {
		s, ok := strings.CutPrefix(words[2], "stream=")
		if !ok || s != "stdout" && s != "stderr" {
			return p.errorf(n, envelopeWant)
		}
		p.d.EnvelopeStream = s
	}
	if len(words) == 2 || len(words) == 3 {
		for k, w := range envelopeWords {
			if w != "" && w == words[1] {
				p.d.Envelope = EnvelopeKind(k)
				return nil
			}
		}
	}
	return p.errorf(n, envelopeWant)
}
