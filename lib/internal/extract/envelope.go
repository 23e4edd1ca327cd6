package extract

import (
	"bytes"

	"github.com/timbertally/timbertally/lib/internal/doc"
)

// The container envelopes (doc.Envelope): the line a container runtime
// writes around each line of a container's output, and the parts it
// splits a long line into.
//
//   - CRI (containerd, CRI-O): TIME STREAM TAG LOG, single spaces, TAG
//     P (a part: the line goes on in the next part of its stream) or F
//     (the line's last part), optionally followed by ":"-separated
//     further tags; LOG is the rest of the line, possibly empty (with or
//     without the space before it).
//   - docker json-file: {"log":"…","stream":"…","time":"…"} (any key
//     order, other keys skipped); a "log" ending in \n is a line's last
//     part (the \n is not the entry's), one without it a part.
//
// A line that is neither is a !drop reason=envelope. A part's LOG is
// held by its store's Joiner until its last part: then the parts are one
// entry, its bytes their LOGs in order, its position from the first
// part's offset to the last part's end.

// ReasonEnvelope is a line that is not its envelope's shape.
const ReasonEnvelope = "envelope"

// ReasonSplit is a split line that did not end: its parts were followed
// by a line of the other stream, or by a line that is no runtime's line,
// before their last part. The parts are one entry, dropped: the runtime
// writes a line's parts one after the other, so this is a broken file,
// not a line to guess the rest of.
const ReasonSplit = "split"

// ReasonStream is a line of the stream the document does not read
// (envelope cri stream=stdout: the error log nginx's image writes to
// stderr, in the same file as its access log on stdout). It is a marker,
// so the line is accounted, but not a line of the wrong format: the
// wrong-format notes do not count it.
const ReasonStream = "stream"

// ReasonLong is a split line whose parts join to more than MaxJoined
// bytes: one entry, dropped, as feed's --max-line drops a line over it.
const ReasonLong = "long"

// MaxJoined bounds a joined line: feed's default --max-line.
const MaxJoined = 1 << 20

// Part is one line of a runtime's log, unwrapped. Log aliases the line,
// or the Unwrapper's buffer for a docker log with escapes (valid until
// the next Unwrap).
type Part struct {
	Time, Stream, Log []byte
	Partial           bool
}

// Unwrapper reads one envelope. Not safe for concurrent use.
type Unwrapper struct {
	kind         doc.EnvelopeKind
	only         []byte // the one stream read (doc.Doc.EnvelopeStream); nil: both
	scratch      []byte // a docker log's unescaped bytes
	stream, time []byte // a docker stream's or time's, when escaped (no runtime escapes them)
	key          []byte // an escaped key, unescaped
}

// NewUnwrapper returns an Unwrapper for kind (doc.CRI or doc.Docker).
func NewUnwrapper(kind doc.EnvelopeKind) *Unwrapper { return &Unwrapper{kind: kind} }

// UnwrapperFor returns the Unwrapper of document d's envelope, reading
// only the stream it names, if it names one.
func UnwrapperFor(d *doc.Doc) *Unwrapper {
	u := NewUnwrapper(d.Envelope)
	if d.EnvelopeStream != "" {
		u.only = []byte(d.EnvelopeStream)
	}
	return u
}

// Unwrap reads one line (without its '\n'). It never panics and
// allocates only to grow its buffer to the longest escaped docker log.
func (u *Unwrapper) Unwrap(line []byte) (Part, bool) {
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	if u.kind == doc.Docker {
		return u.docker(line)
	}
	return cri(line)
}

// cri cuts TIME STREAM TAG[ LOG].
func cri(line []byte) (Part, bool) {
	var p Part
	i := bytes.IndexByte(line, ' ')
	if i <= 0 {
		return p, false
	}
	p.Time, line = line[:i], line[i+1:]
	if i = bytes.IndexByte(line, ' '); i <= 0 {
		return p, false
	}
	p.Stream, line = line[:i], line[i+1:]
	if !isStream(p.Stream) {
		return p, false
	}
	tag := line
	if i = bytes.IndexByte(line, ' '); i >= 0 {
		tag, p.Log = line[:i], line[i+1:]
	} else {
		p.Log = line[len(line):]
	}
	if k := bytes.IndexByte(tag, ':'); k >= 0 {
		tag = tag[:k]
	}
	switch string(tag) {
	case "P":
		p.Partial = true
	case "F":
	default:
		return p, false
	}
	return p, true
}

// isStream is CRI's and docker's two streams.
func isStream(s []byte) bool {
	return string(s) == "stdout" || string(s) == "stderr"
}

// docker cuts a json-file record: one object whose "log", "stream" and
// "time" are strings; any other key's value is skipped.
func (u *Unwrapper) docker(line []byte) (Part, bool) {
	var p Part
	var has [3]bool
	i := skipWS(line, 0)
	if i >= len(line) || line[i] != '{' {
		return p, false
	}
	i = skipWS(line, i+1)
	for first := true; ; first = false {
		if i < len(line) && line[i] == '}' && first {
			break
		}
		if i >= len(line) || line[i] != '"' {
			return p, false
		}
		ks, kq, kesc, ok := scanString(line, i)
		if !ok {
			return p, false
		}
		key := line[ks:kq]
		if kesc {
			u.key, _ = unescape(u.key[:0], key) // scanString checked its escapes
			key = u.key
		}
		if i = skipWS(line, kq+1); i >= len(line) || line[i] != ':' {
			return p, false
		}
		i = skipWS(line, i+1)
		k := dockerKey(key)
		if k < 0 {
			if i, ok = skipValue(line, i, 1); !ok {
				return p, false
			}
		} else {
			if i >= len(line) || line[i] != '"' {
				return p, false
			}
			vs, vq, esc, ok := scanString(line, i)
			if !ok {
				return p, false
			}
			if !u.dockerValue(&p, k, line[vs:vq], esc) {
				return p, false
			}
			has[k] = true
			i = vq + 1
		}
		if i = skipWS(line, i); i < len(line) && line[i] == ',' {
			i = skipWS(line, i+1)
			continue
		}
		if i >= len(line) || line[i] != '}' {
			return p, false
		}
		break
	}
	if skipWS(line, i+1) != len(line) || !has[0] || !has[1] || !isStream(p.Stream) {
		return p, false
	}
	return p, true
}

// dockerKey is the index of a docker record's key: 0 log, 1 stream,
// 2 time, -1 another.
func dockerKey(k []byte) int {
	switch string(k) {
	case "log":
		return 0
	case "stream":
		return 1
	case "time":
		return 2
	}
	return -1
}

// dockerValue sets key k's value v (a JSON string's content; esc: it has
// escapes), unescaped. The log's trailing \n (escaped: the two bytes \n)
// says the line's last part.
func (u *Unwrapper) dockerValue(p *Part, k int, v []byte, esc bool) bool {
	switch k {
	case 1:
		return unescaped(&p.Stream, &u.stream, v, esc)
	case 2:
		return unescaped(&p.Time, &u.time, v, esc)
	}
	p.Partial = true
	if n := len(v); n >= 2 && v[n-2] == '\\' && v[n-1] == 'n' && !oddBackslashesBefore(v, n-2) {
		p.Partial, v = false, v[:n-2]
	}
	if !esc || bytes.IndexByte(v, '\\') < 0 {
		p.Log = v
		return true
	}
	return unescaped(&p.Log, &u.scratch, v, true)
}

// unescaped sets *dst to v, or, when v has escapes, to v unescaped into
// *buf (reused).
func unescaped(dst, buf *[]byte, v []byte, esc bool) bool {
	if !esc {
		*dst = v
		return true
	}
	var ok bool
	*buf, ok = unescape((*buf)[:0], v)
	*dst = *buf
	return ok
}

// oddBackslashesBefore says whether the backslash at v[i] is itself
// escaped: an odd number of backslashes run up to it.
func oddBackslashesBefore(v []byte, i int) bool {
	n := 0
	for i > 0 && v[i-1] == '\\' {
		n, i = n+1, i-1
	}
	return n%2 == 1
}

// Joiner joins one store's split lines. Not safe for concurrent use.
//
// Invariant: while a split line is open (Open), its first part's offset
// is the first position a restart must replay from: none of its parts is
// an entry yet, and nothing of them is counted.
type Joiner struct {
	open   bool
	at     int64  // the open line's first part's offset
	buf    []byte // the open line's LOGs so far (up to MaxJoined)
	over   bool   // the parts passed MaxJoined: the line is dropped at its end
	stream []byte // the open line's stream, and its first part's time (copies)
	time   []byte
}

// Joined is what a line makes of its store's entries.
type Joined struct {
	// Cut: the open split line [CutAt, CutEnd) ended without its last
	// part (this line is of the other stream, or no runtime's line): one
	// entry, a !drop reason=split. The line itself is then as below.
	Cut           bool
	CutAt, CutEnd int64
	// Held: the line is a part, held for the rest of its line: no entry.
	Held bool
	// Otherwise an entry at At (to the line's end): Reason is its !drop
	// reason (envelope, long), or "" and Part is the entry, whose Log is
	// the joined parts (the Joiner's buffer, valid until its next Line).
	At     int64
	Reason string
	Part   Part
}

// Open returns the offset of the open split line's first part, if one is
// open.
func (j *Joiner) Open() (int64, bool) { return j.at, j.open }

// Close ends the open split line without its last part (feed skipped
// the line after it: over --max-line), returning its first part's offset;
// the caller drops it as one entry, reason split.
func (j *Joiner) Close() (int64, bool) {
	at, open := j.at, j.open
	j.open = false
	return at, open
}

// Line takes the store's line at pos (without its '\n'), unwrapped by u.
func (j *Joiner) Line(u *Unwrapper, pos int64, line []byte) Joined {
	var r Joined
	p, ok := u.Unwrap(line)
	if j.open && (!ok || string(p.Stream) != string(j.stream)) {
		r.Cut, r.CutAt, r.CutEnd = true, j.at, pos
		j.open = false
	}
	r.At = pos
	switch {
	case !ok:
		r.Reason = ReasonEnvelope
	case u.only != nil && string(p.Stream) != string(u.only):
		r.Reason = ReasonStream // each line of it, a part or not: nothing of it is joined
	case p.Partial:
		j.hold(pos, p)
		r.Held = true
	case j.open:
		r.At = j.at
		j.open = false
		if j.add(p.Log); j.over {
			r.Reason = ReasonLong
			break
		}
		r.Part = Part{Time: j.time, Stream: j.stream, Log: j.buf}
	default:
		r.Part = p
	}
	return r
}

// hold adds part p at pos to the open line, opening it at its first part.
func (j *Joiner) hold(pos int64, p Part) {
	if !j.open {
		j.open, j.at, j.over = true, pos, false
		j.buf = j.buf[:0]
		j.stream = append(j.stream[:0], p.Stream...)
		j.time = append(j.time[:0], p.Time...)
	}
	j.add(p.Log)
}

// add appends a part's LOG, up to MaxJoined.
func (j *Joiner) add(log []byte) {
	if j.over || len(j.buf)+len(log) > MaxJoined {
		j.over = true
		return
	}
	j.buf = append(j.buf, log...)
}
