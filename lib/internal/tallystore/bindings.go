package tallystore

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/timbertally/timbertally/lib/internal/atomicfile"
	"github.com/timbertally/timbertally/lib/protocol"
)

// The bindings file (Layout.Bindings) is the tally store's record of what
// its tape was counted from (docs/bindings.md):
//
//	tape dev=2049 ino=131077 size=9120                       the tape file the lines below belong to, and its size when a run last ended
//	doc crc=5d41402a                                         CRC-32 of the document the tape was begun with
//	cursor path=/var/lib/timbertally/web.cursor              feed's cursor in the last run (feed's cursor=), when it had one
//	store id=web1 offset=0 gen=0 sig=30d022ed siglen=256 spec=web1=/var/log/web1.log
//	                                                         a store generation's first bytes, and how the store was last named
//
// A store line says that the tape counts store web1's generation starting
// at position gen= from content whose first siglen= bytes have the CRC-32
// sig=, and that a run first delivered that store to this tape at offset=;
// spec= is how feed last named the store (feed's spec=), for the commands
// the toolkit advises (Remake).
// size= is the tape's size once a run's last records were durable and
// reported: a tape found shorter lost records whose entries feed's cursor
// is past (a tail cut by hand, a bad restore), and is refused, not
// repaired with the claim that they are replayed. (A tail a crash tore is
// past size=: its entries were never reported durable, so they are.)
// It is a side file, not tape records, so that tapes stay what they were
// (byte for byte the tape of an uninterrupted run) and a run's checks read
// a few lines, not the whole tape. It is rewritten whole (atomically)
// before the run appends anything; a bindings file of another tape file
// is none.

// Binding is one store line of the bindings file.
type Binding struct {
	ID     string
	Offset int64
	Gen    protocol.Gen
	From   string // protocol.FromEnd: the store's feeding began at Offset (feed --from end); else ""
	Spec   string // how feed last named the store (ID=GEN1,…,PATH, absolute); "": not said (an older feed)
}

// Bindings is the parsed bindings file.
type Bindings struct {
	Dev, Ino uint64 // the tape file's identity
	Size     int64  // the tape's size when a run last ended
	Doc      uint32 // the CRC-32 of the document the tape was begun with
	HasDoc   bool
	Cursor   string // feed's cursor in the last run (absolute); "": none, or not said
	Stores   []Binding
	read     []byte // the file's text as read: unchanged bindings are not rewritten
}

// ParseBindings parses a bindings file's text; name is for messages.
func ParseBindings(name string, text []byte) (*Bindings, error) {
	b := &Bindings{}
	if len(text) > 0 && text[len(text)-1] != '\n' {
		return nil, fmt.Errorf("%s does not end in a newline: it is torn; remove it (the next run writes it again from what it is fed)", name)
	}
	for n, line := range bytes.Split(bytes.TrimSuffix(text, []byte("\n")), []byte("\n")) {
		if len(text) == 0 {
			break
		}
		if err := b.parseLine(line); err != nil {
			return nil, fmt.Errorf("%s line %d: %w; remove the file (the next run writes it again from what it is fed)", name, n+1, err)
		}
	}
	return b, nil
}

func (b *Bindings) parseLine(line []byte) error {
	word, rest, _ := strings.Cut(string(line), " ")
	var w protocol.Words
	switch word {
	case "tape":
		err := protocol.SplitWords(rest, &w)
		if err == nil {
			err = w.Want("dev", "ino", "size")
		}
		var size uint64
		for i, dst := range []*uint64{&b.Dev, &b.Ino, &size} {
			if err == nil {
				_, v := w.At(i)
				*dst, err = num(v, 10)
			}
		}
		if err != nil || size > math.MaxInt64 {
			return fmt.Errorf("%q is not tape dev=N ino=N size=N", line)
		}
		b.Size = int64(size)
	case "doc":
		err := protocol.SplitWords(rest, &w)
		if err == nil {
			err = w.Want("crc")
		}
		var crc uint64
		if err == nil {
			_, v := w.At(0)
			if crc, err = num(v, 16); err == nil && len(v) != 8 {
				err = errors.New("want 8 hex digits")
			}
		}
		if err != nil {
			return fmt.Errorf("%q is not doc crc=XXXXXXXX", line)
		}
		b.Doc, b.HasDoc = uint32(crc), true
	case "cursor":
		err := protocol.SplitWords(rest, &w)
		if err == nil {
			err = w.Want("path")
		}
		if err == nil {
			_, v := w.At(0)
			b.Cursor, err = protocol.ParseText(v)
		}
		if err != nil || b.Cursor == "" {
			return fmt.Errorf("%q is not cursor path=PATH", line)
		}
	case "store":
		h, err := protocol.ParseHeader(line)
		if err == nil && !h.Gen.Known {
			err = errors.New("a store line needs gen= sig= siglen=")
		}
		if err != nil {
			return err
		}
		b.Stores = append(b.Stores, Binding{ID: h.ID, Offset: h.Offset, Gen: h.Gen, From: FromEnd(h.From), Spec: h.Spec})
	default:
		return fmt.Errorf("%q is not a tape, doc, cursor or store line", line)
	}
	return nil
}

// num parses the value of a key=N word: N decimal (64 bits), or in base
// 16 a CRC-32 (32 bits, lower case).
func num(v string, base int) (uint64, error) {
	if v == "" || strings.ToLower(v) != v {
		return 0, errors.New("want lower case digits")
	}
	bits := 64
	if base == 16 {
		bits = 32
	}
	return strconv.ParseUint(v, base, bits)
}

// Format returns the file's text.
func (b *Bindings) Format() []byte {
	out := fmt.Appendf(nil, "tape dev=%d ino=%d size=%d\n", b.Dev, b.Ino, b.Size)
	if b.HasDoc {
		out = fmt.Appendf(out, "doc crc=%08x\n", b.Doc)
	}
	if b.Cursor != "" {
		out = append(protocol.AppendText(append(out, "cursor path="...), b.Cursor), '\n')
	}
	for _, s := range b.Stores {
		out = protocol.AppendHeader(out, protocol.Header{Kind: protocol.KindStore, ID: s.ID, Offset: s.Offset, Gen: s.Gen, From: s.From, Spec: s.Spec})
	}
	return out
}

// Find returns the binding of store id's generation at base.
func (b *Bindings) Find(id string, base int64) *Binding {
	for i := range b.Stores {
		if s := &b.Stores[i]; s.ID == id && s.Gen.Base == base {
			return s
		}
	}
	return nil
}

// Reach is the furthest position a binding of store id says a run began
// delivering it from: a store first fed from its end (feed --from end)
// is accounted for from there although no record of the tape names it.
func (b *Bindings) Reach(id string) int64 {
	var r int64
	for _, s := range b.Stores {
		if s.ID == id {
			r = max(r, s.Offset)
		}
	}
	return r
}

// Named records spec as how store id was last named (feed's spec=; ""
// keeps what is recorded): on each of its bindings, so that any one of
// them says it.
func (b *Bindings) Named(id, spec string) {
	if spec == "" {
		return
	}
	for i := range b.Stores {
		if b.Stores[i].ID == id {
			b.Stores[i].Spec = spec
		}
	}
}

// Specs are the stores as feed last named them, in the order the tape
// first met them, and false when one of them was not said (an older
// feed): then a command naming them would leave one out.
func (b *Bindings) Specs() ([]string, bool) {
	var specs []string
	seen := map[string]bool{}
	for _, s := range b.Stores {
		if seen[s.ID] {
			continue
		}
		seen[s.ID] = true
		if s.Spec == "" {
			return nil, false
		}
		specs = append(specs, s.Spec)
	}
	return specs, len(specs) > 0
}

// Began returns, per store of the tally store dir that was first fed
// from its end (feed --from end), where the tape's counting of it begins:
// its entries before it were never fed. nil without bindings for its tape
// (removed, an older release's): a store resumed from a cursor is then
// recorded where it resumed, which is not where its feeding began.
func Began(dir string) (map[string]int64, error) {
	b, err := LoadBindings(dir)
	if err != nil || len(b.Stores) == 0 {
		return nil, err
	}
	began := map[string]int64{}
	for _, s := range b.Stores {
		if s.From == protocol.FromEnd && !slices.ContainsFunc(b.Stores, func(o Binding) bool { return o.ID == s.ID && o.Offset < s.Offset }) {
			began[s.ID] = s.Offset
		}
	}
	return began, nil
}

// FirstGens returns, per store id, the generation its tape's counting
// began in (the binding at its lowest offset), as feed's store line named
// it: where it begins on the store's axis and a CRC-32 of its first bytes.
// A check against a list of generations places that one by its first
// bytes: those before it in the list were never fed to this tape.
func FirstGens(dir string) (map[string]protocol.Gen, error) {
	b, err := LoadBindings(dir)
	if err != nil {
		return nil, err
	}
	first := map[string]Binding{}
	for _, s := range b.Stores {
		if f, ok := first[s.ID]; !ok || s.Offset < f.Offset {
			first[s.ID] = s
		}
	}
	out := map[string]protocol.Gen{}
	for id, s := range first {
		if s.Gen.Known && s.Gen.SigLen > 0 {
			out[id] = s.Gen
		}
	}
	return out, nil
}

// FromEnd keeps from when it is protocol.FromEnd, the one origin a
// binding records.
func FromEnd(from string) string {
	if from == protocol.FromEnd {
		return from
	}
	return ""
}

// LoadBindings reads the bindings of dir's tape: none (empty) when the
// file is missing or belongs to another tape file (or there is none).
func LoadBindings(dir string) (*Bindings, error) {
	l := At(dir)
	return l.loadBindings(l.Tape(), l.Bindings())
}

// loadBindings reads the bindings file at p, the tape at tp's.
func (l Layout) loadBindings(tp, p string) (*Bindings, error) {
	var dev, ino uint64
	if fi, err := os.Stat(tp); err == nil {
		dev, ino = fileID(fi)
	}
	b, err := readBindings(p)
	if errors.Is(err, os.ErrNotExist) {
		return &Bindings{Dev: dev, Ino: ino}, nil
	}
	if err != nil {
		return nil, err
	}
	if b.Dev != dev || b.Ino != ino || ino == 0 {
		return &Bindings{}, nil
	}
	return b, nil
}

// readBindings parses the bindings file at p, whichever tape it is of,
// keeping its text (Save does not rewrite it unchanged).
func readBindings(p string) (*Bindings, error) {
	text, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	b, err := ParseBindings(p, text)
	if err != nil {
		return nil, err
	}
	b.read = text
	return b, nil
}

// Save writes the bindings file of dir whole, for the tape file tape;
// with ended, the tape's size is recorded as the size at a run's end
// (everything on it durable and reported). Unchanged bindings are not
// written.
func (b *Bindings) Save(dir string, tape *os.File, ended bool) error {
	fi, err := tape.Stat()
	if err != nil {
		return err
	}
	b.Dev, b.Ino = fileID(fi)
	if ended {
		b.Size = fi.Size()
	}
	text := b.Format()
	if bytes.Equal(text, b.read) {
		return nil
	}
	return atomicfile.WriteFile(At(dir).Bindings(), text)
}

func fileID(fi os.FileInfo) (dev, ino uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), st.Ino
	}
	return 0, 0
}
