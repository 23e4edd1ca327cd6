package cursor

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/timbertally/timbertally/lib/internal/atomicfile"
	"github.com/timbertally/timbertally/lib/internal/store"
	"github.com/timbertally/timbertally/lib/protocol"
)

// Marks maps a store id to its durable resume position and its generation.
type Marks map[string]Mark

// Cursor maps a store id to its durable resume position alone.
type Cursor map[string]int64

// Mark is one store's resume position and the generation that holds it.
// A zero Gen (a cursor written before generations were recorded) is the
// file at the store's path from position 0.
type Mark struct {
	Offset int64
	Gen    store.Gen
	Seam   store.Seam    // the bytes before Offset; zero in an older cursor
	Gens   []store.GenID // a store named with its history: its generations (store.Reader.Recorded); nil: none
}

// Load reads the positions of the cursor file at path. A missing file is an
// empty cursor.
func Load(path string) (Cursor, error) {
	m, err := LoadMarks(path)
	if err != nil {
		return nil, err
	}
	c := make(Cursor, len(m))
	for id, mark := range m {
		c[id] = mark.Offset
	}
	return c, nil
}

// LoadMarks reads the cursor file at path. A missing file is an empty cursor.
func LoadMarks(path string) (Marks, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Marks{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cursor: cannot read %s: %w; fix it, or run feed with --reset (every store read again from 0: tally recognises what its tape holds and counts the rest)", path, err)
	}
	return parse(path, data)
}

func parse(path string, data []byte) (Marks, error) {
	c := Marks{}
	if len(data) == 0 {
		return c, nil
	}
	if data[len(data)-1] != '\n' {
		return nil, fmt.Errorf("cursor: %s does not end in a newline: it is torn; fix or remove it", path)
	}
	for n, line := range bytes.Split(data[:len(data)-1], []byte("\n")) {
		h, err := protocol.ParseHeader(line)
		if err == nil && h.Kind != protocol.KindStore {
			err = fmt.Errorf("%q is not a store line", line)
		}
		if _, dup := c[h.ID]; err == nil && dup {
			err = fmt.Errorf("store %s appears twice", h.ID)
		}
		var w protocol.Words // the keys ParseHeader ignores, split once as it splits them
		if err == nil {
			_, err = protocol.SplitLine(line, &w)
		}
		var g store.Gen
		var sm store.Seam
		var gens []store.GenID
		if err == nil {
			g, err = parseGen(line, &w)
		}
		if err == nil {
			sm, err = parseSeam(line, &w, g)
		}
		if err == nil {
			gens, err = parseHist(line, &w)
		}
		if err != nil {
			return nil, fmt.Errorf("cursor: %s line %d: %w; fix or remove the file", path, n+1, err)
		}
		c[h.ID] = Mark{Offset: h.Offset, Gen: g, Seam: sm, Gens: gens}
	}
	return c, nil
}

// The generation's keys on a store line; all or none of them are present.
var genKeys = []string{"gen", "dev", "ino", "sig", "siglen"}

// parseGen reads the generation keys of a store line, which ParseHeader
// ignores: gen= base, dev= and ino= decimal, sig= hex CRC-32, siglen= bytes.
// w is line split as ParseHeader splits it (protocol.SplitLine).
func parseGen(line []byte, w *protocol.Words) (store.Gen, error) {
	var n [5]uint64
	found := 0
	for i, k := range genKeys {
		v, ok := w.Get(k)
		if !ok {
			continue
		}
		found++
		var err error
		if k == "sig" {
			n[i], err = strconv.ParseUint(v, 16, 32)
		} else {
			var d int64
			d, err = protocol.ParseNum(k, v)
			n[i] = uint64(d)
		}
		if err != nil {
			return store.Gen{}, fmt.Errorf("%q has a bad %s= (the generation needs %s)", line, k, strings.Join(genKeys, "= ")+"=")
		}
	}
	switch {
	case found == 0:
		return store.Gen{}, nil
	case found < len(genKeys):
		return store.Gen{}, fmt.Errorf("%q has a bad or missing generation key (the generation needs %s)", line, strings.Join(genKeys, "= ")+"=")
	}
	g := store.Gen{Base: int64(n[0]), Dev: n[1], Ino: n[2], Sig: uint32(n[3]), SigLen: int(n[4])}
	if !g.Known() || g.SigLen > store.SigSpan {
		return store.Gen{}, fmt.Errorf("%q has ino=0 or siglen= over %d", line, store.SigSpan)
	}
	return g, nil
}

// parseSeam reads a store line's seam= (hex CRC-32) and seamlen= (bytes,
// 1..SigSpan), both or neither; only a line with a generation has one.
func parseSeam(line []byte, w *protocol.Words, g store.Gen) (store.Seam, error) {
	sig, _ := w.Get("seam")
	n, _ := w.Get("seamlen")
	if sig == "" && n == "" {
		return store.Seam{}, nil
	}
	s, err1 := strconv.ParseUint(sig, 16, 32)
	l, err2 := strconv.ParseUint(n, 10, 16)
	if err1 != nil || err2 != nil || l == 0 || l > store.SigSpan || !g.Known() {
		return store.Seam{}, fmt.Errorf("%q has a bad seam= or seamlen= (both, seamlen= 1 to %d, on a line with its generation)", line, store.SigSpan)
	}
	return store.Seam{Sig: uint32(s), Len: int(l)}, nil
}

// parseHist reads the hist= key of a store line: the generations of a
// store named with its history, oldest first, each BASE:SIGLEN:SIG (BASE
// decimal or "-" for not yet reached, SIGLEN decimal, SIG hex CRC-32).
func parseHist(line []byte, w *protocol.Words) ([]store.GenID, error) {
	v, _ := w.Get("hist")
	if v == "" {
		return nil, nil
	}
	var gens []store.GenID
	for _, item := range strings.Split(v, ",") {
		parts := strings.Split(item, ":")
		var id store.GenID
		var err error
		if len(parts) != 3 {
			err = errors.New("not BASE:SIGLEN:SIG")
		}
		if err == nil && parts[0] == "-" {
			id.Base = -1
		} else if err == nil {
			id.Base, err = strconv.ParseInt(parts[0], 10, 64)
		}
		var n uint64
		if err == nil {
			n, err = strconv.ParseUint(parts[1], 10, 16)
			id.SigLen = int(n)
		}
		if err == nil {
			n, err = strconv.ParseUint(parts[2], 16, 32)
			id.Sig = uint32(n)
		}
		if err == nil && (id.Base < -1 || id.SigLen > store.SigSpan) {
			err = fmt.Errorf("a base below 0 or a siglen over %d", store.SigSpan)
		}
		if err != nil {
			return nil, fmt.Errorf("%q has a bad hist= generation %q (%v)", line, item, err)
		}
		gens = append(gens, id)
	}
	return gens, nil
}

// appendHist appends the hist= key of gens to a store line's text.
func appendHist(b []byte, gens []store.GenID) []byte {
	for i, g := range gens {
		sep := byte(',')
		if i == 0 {
			b, sep = append(b, " hist="...), 0
		}
		if sep != 0 {
			b = append(b, sep)
		}
		if g.Base < 0 {
			b = append(b, '-')
		} else {
			b = strconv.AppendInt(b, g.Base, 10)
		}
		b = fmt.Appendf(b, ":%d:%08x", g.SigLen, g.Sig)
	}
	return b
}

// Format returns the file's text: one store line per id, sorted by id.
func (c Marks) Format() []byte {
	ids := make([]string, 0, len(c))
	for id := range c {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var b []byte
	for _, id := range ids {
		m := c[id]
		b = protocol.AppendStore(b, id, m.Offset)
		b = b[:len(b)-1]
		if g := m.Gen; g.Known() {
			b = fmt.Appendf(b, " gen=%d dev=%d ino=%d sig=%08x siglen=%d", g.Base, g.Dev, g.Ino, g.Sig, g.SigLen)
			if m.Seam.Len > 0 {
				b = fmt.Appendf(b, " seam=%08x seamlen=%d", m.Seam.Sig, m.Seam.Len)
			}
		}
		b = append(appendHist(b, m.Gens), '\n')
	}
	return b
}

// Save writes c to path atomically.
func (c Marks) Save(path string) error {
	if err := atomicfile.WriteFile(path, c.Format()); err != nil {
		return fmt.Errorf("cursor: cannot save %s: %w", path, err)
	}
	return nil
}
