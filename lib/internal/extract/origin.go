package extract

import "github.com/timbertally/timbertally/lib/internal/doc"

// origin is the extractor's knowledge of where entries come from (the
// document's origin fields, doc/origin.go): per store, the values of its
// fields, made once when the store is declared, and per entry, its
// envelope's stream and time (Envelope), so that filling them costs a
// slice assignment per field per entry.
type origin struct {
	at     int        // the first origin field's index; they are the last fields
	names  []string   // the origin fields, in Entry.Fields order
	stores [][][]byte // per store: a value per origin field
	cur    [][]byte   // the current store's (Store), or each field empty
	// The envelope's fields: their index in cur (-1: not read), and the
	// current entry's values.
	streamAt, timeAt int
	stream, time     []byte
}

func newOrigin(names []string, at int) *origin {
	o := &origin{at: at, names: names, cur: make([][]byte, len(names)), streamAt: -1, timeAt: -1}
	for i, n := range names {
		o.cur[i] = []byte{}
		switch n {
		case "stream":
			o.streamAt = i
		case "runtime_time":
			o.timeAt = i
		}
	}
	return o
}

// Envelope sets the stream and the runtime's time of the entries
// extracted next (the parts of the envelope around them).
func (x *Extractor) Envelope(stream, time []byte) {
	x.origin.stream, x.origin.time = stream, time
}

// Origin declares store st: its id, as feed names it, and its file's
// path ("" when not known). The extractor fills the origin fields of the
// store's entries from them (Store says which store the next entries come
// from). A document that reads the kubelet's fields (namespace, pod,
// container) refuses a path not in a kubelet layout: *PathError.
func (x *Extractor) Origin(st int, id, path string) error {
	o := x.origin
	if st < 0 {
		return nil
	}
	k, err := kubeletOf(o.kubelet(), id, path)
	if err != nil {
		return err
	}
	for len(o.stores) <= st {
		o.stores = append(o.stores, nil)
	}
	vals := make([][]byte, len(o.names))
	for i, n := range o.names {
		switch n {
		case "store":
			vals[i] = []byte(id)
		case "namespace":
			vals[i] = []byte(k.Namespace)
		case "pod":
			vals[i] = []byte(k.Pod)
		case "container":
			vals[i] = []byte(k.Container)
		default:
			vals[i] = []byte{}
		}
	}
	o.stores[st] = vals
	if st == x.st {
		o.cur = vals
	}
	return nil
}

// kubelet returns the origin fields read that a kubelet path gives.
func (o *origin) kubelet() []string { return kubeletFields(o.names) }

func kubeletFields(names []string) []string {
	var out []string
	for _, n := range names {
		if n == "namespace" || n == "pod" || n == "container" {
			out = append(out, n)
		}
	}
	return out
}

// kubeletOf reads store id's path in the kubelet layouts when the
// document reads fields (some of namespace, pod, container) it gives.
func kubeletOf(fields []string, id, path string) (Kubelet, error) {
	if len(fields) == 0 {
		return Kubelet{}, nil
	}
	k, ok := KubeletPath(path)
	if path == "" || !ok {
		return k, &PathError{Store: id, Path: path, Fields: fields}
	}
	return k, nil
}

// CheckFile says whether document d can count store id from the file at
// path: a document that reads the kubelet's fields refuses a path in no
// kubelet layout (*PathError). Origin says the same; this is for a
// check before anything is written.
func CheckFile(d *doc.Doc, id, path string) error {
	_, err := kubeletOf(kubeletFields(d.Origins()), id, path)
	return err
}

// selectStore makes store st's origin values the current ones.
func (o *origin) selectStore(st int) {
	if st >= 0 && st < len(o.stores) && o.stores[st] != nil {
		o.cur = o.stores[st]
	}
}

// fill sets the entry's origin fields.
func (o *origin) fill(e *Entry) {
	for i, v := range o.cur {
		e.reset(o.at+i, v)
	}
	if o.streamAt >= 0 {
		e.reset(o.at+o.streamAt, o.stream)
	}
	if o.timeAt >= 0 {
		e.reset(o.at+o.timeAt, o.time)
	}
}
