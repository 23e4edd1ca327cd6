package tally

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/timbertally/timbertally/lib/internal/tallystore"
	"hash/crc32"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/timbertally/timbertally/lib/internal/atomicfile"
	"github.com/timbertally/timbertally/lib/internal/tape"
	"github.com/timbertally/timbertally/lib/protocol"
)

// The bindings file (tallystore.Layout.Bindings) is the tally store's
// record of what its tape was counted from (docs/bindings.md):
//
//	tape dev=2049 ino=131077 size=9120                       the tape file the lines below belong to, and its size when a run last ended
//	doc crc=5d41402a                                         CRC-32 of the document the tape was begun with
//	store id=web1 offset=0 gen=0 sig=30d022ed siglen=256     a store generation's first bytes
//
// A store line says that the tape counts store web1's generation starting
// at position gen= from content whose first siglen= bytes have the CRC-32
// sig=, and that a run first delivered that store to this tape at offset=.
// size= is the tape's size once a run's last records were durable and
// reported: a tape found shorter lost records whose entries feed's cursor
// is past (a tail cut by hand, a bad restore), and is refused, not
// repaired with the claim that they are replayed. (A tail a crash tore is
// past size=: its entries were never reported durable, so they are.)
// It is a side file, not tape records, so that tapes stay what they were
// (byte for byte the tape of an uninterrupted run) and a run's checks read
// a few lines, not the whole tape. It is rewritten whole (atomically)
// before the run appends anything; a bindings file of another tape file

// binding is one store line of the bindings file.
type binding struct {
	id     string
	offset int64
	gen    protocol.Gen
	from   string // protocol.FromEnd: the store's feeding began at offset (feed --from end); else ""
}

// bindings is the parsed bindings file.
type bindings struct {
	dev, ino uint64 // the tape file's identity
	size     int64  // the tape's size when a run last ended
	doc      uint32
	hasDoc   bool
	stores   []binding
	read     []byte // the file's text as read: unchanged bindings are not rewritten
}

// parseBindings parses a bindings file's text; name is for messages.
func parseBindings(name string, text []byte) (*bindings, error) {
	b := &bindings{}
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

func (b *bindings) parseLine(line []byte) error {
	word, rest, _ := strings.Cut(string(line), " ")
	switch word {
	case "tape":
		var w protocol.Words
		err := protocol.SplitWords(rest, &w)
		if err == nil {
			err = w.Want("dev", "ino", "size")
		}
		var size uint64
		for i, dst := range []*uint64{&b.dev, &b.ino, &size} {
			if err == nil {
				_, v := w.At(i)
				*dst, err = num(v, 10)
			}
		}
		if err != nil || size > math.MaxInt64 {
			return fmt.Errorf("%q is not tape dev=N ino=N size=N", line)
		}
		b.size = int64(size)
	case "doc":
		var w protocol.Words
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
		b.doc, b.hasDoc = uint32(crc), true
	case "store":
		h, err := protocol.ParseHeader(line)
		if err == nil && !h.Gen.Known {
			err = errors.New("a store line needs gen= sig= siglen=")
		}
		if err != nil {
			return err
		}
		b.stores = append(b.stores, binding{id: h.ID, offset: h.Offset, gen: h.Gen, from: fromEnd(h.From)})
	default:
		return fmt.Errorf("%q is not a tape, doc or store line", line)
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

// format returns the file's text.
func (b *bindings) format() []byte {
	out := fmt.Appendf(nil, "tape dev=%d ino=%d size=%d\n", b.dev, b.ino, b.size)
	if b.hasDoc {
		out = fmt.Appendf(out, "doc crc=%08x\n", b.doc)
	}
	for _, s := range b.stores {
		out = protocol.AppendStoreFrom(out, s.id, s.offset, s.gen, s.from)
	}
	return out
}

// find returns the binding of store id's generation at base.
func (b *bindings) find(id string, base int64) *binding {
	for i := range b.stores {
		if s := &b.stores[i]; s.id == id && s.gen.Base == base {
			return s
		}
	}
	return nil
}

// reach is the furthest position a binding of store id says a run began
// delivering it from: a store first fed from its end (feed --from end)
// is accounted for from there although no record of the tape names it.
func (b *bindings) reach(id string) int64 {
	var r int64
	for _, s := range b.stores {
		if s.id == id {
			r = max(r, s.offset)
		}
	}
	return r
}

// Began returns, per store of the tally store dir that was first fed
// from its end (feed --from end), where the tape's counting of it begins:
// its entries before it were never fed. nil without bindings for its tape
// (removed, an older release's): a store resumed from a cursor is then
// recorded where it resumed, which is not where its feeding began.
func Began(dir string) (map[string]int64, error) {
	b, err := loadBindings(dir, tallystore.At(dir).Tape())
	if err != nil || len(b.stores) == 0 {
		return nil, err
	}
	began := map[string]int64{}
	for _, s := range b.stores {
		if s.from == protocol.FromEnd && !slices.ContainsFunc(b.stores, func(o binding) bool { return o.id == s.id && o.offset < s.offset }) {
			began[s.id] = s.offset
		}
	}
	return began, nil
}

// fromEnd keeps from when it is protocol.FromEnd, the one origin a
// binding records.
func fromEnd(from string) string {
	if from == protocol.FromEnd {
		return from
	}
	return ""
}

// loadBindings reads dir's bindings, or none when the file is missing or
// belongs to another tape file than the one at tp (or there is none).
func loadBindings(dir, tp string) (*bindings, error) {
	var dev, ino uint64
	if fi, err := os.Stat(tp); err == nil {
		dev, ino = fileID(fi)
	}
	p := tallystore.At(dir).Bindings()
	text, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return &bindings{dev: dev, ino: ino}, nil
	}
	if err != nil {
		return nil, err
	}
	b, err := parseBindings(p, text)
	if err != nil {
		return nil, err
	}
	if b.dev != dev || b.ino != ino || ino == 0 {
		return &bindings{}, nil
	}
	b.read = text
	return b, nil
}

// save writes the bindings file whole, for the tape file tape; with ended,
// the tape's size is recorded as the size at a run's end (everything on it
// durable and reported).
func (b *bindings) save(dir string, tape *os.File, ended bool) error {
	fi, err := tape.Stat()
	if err != nil {
		return err
	}
	b.dev, b.ino = fileID(fi)
	if ended {
		b.size = fi.Size()
	}
	text := b.format()
	if bytes.Equal(text, b.read) {
		return nil
	}
	return atomicfile.WriteFile(tallystore.At(dir).Bindings(), text)
}

func fileID(fi os.FileInfo) (dev, ino uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), st.Ino
	}
	return 0, 0
}

// docCRC is the fingerprint of a document's text.
func docCRC(text []byte) uint32 { return crc32.ChecksumIEEE(text) }

// declared is one store line of feed's input.
type declared struct {
	id   string
	pos  int64
	gen  protocol.Gen
	from string
}

// rederive is the complete remedy for a tape that must be counted again
// from the stores: both steps, in order (tape.Remake, which every reader
// that stops at a damaged tape advises too).
func rederive(dir string) string { return tape.Remake(dir) }

// checkSize refuses a tape shorter (once its torn tail is cut) than when
// a run last ended, unless every store is replayed from 0: which entries
// the records cut from it held, and so whether feed's cursor is before
// them, the rest of the tape cannot say.
func (b *bindings) checkSize(dir string, size int64, torn int, decl []declared) error {
	if size >= b.size {
		return nil
	}
	for _, s := range decl {
		if s.pos > 0 {
			return fmt.Errorf("the tape of %s is %d bytes once its torn tail (%d bytes) is cut, shorter than the %d it was when its last run ended: records were cut from it (by hand, or a restore of an older copy), and store %s resumes at %d, past entries they may have held, which would not be replayed but lost. Nothing was written. Replay every store from 0 into it, feed --reset with the same stores (what the tape still holds is recognised, not counted again), or re-derive: %s",
				dir, size, torn, b.size, s.id, s.pos, rederive(dir))
		}
	}
	return nil
}

// orphan returns the size the tape (size bytes once its torn tail is cut)
// is cut to before the run: a tape shorter than at its last run's end
// whose last seal was deleted keeps that bucket's group, unsealed, before
// its end records; a replay from 0 would seal the bucket again after them
// and leave the two as fragments. The group and the end records are cut
// only when every store the tape counted is replayed from 0 (checkSize
// refuses any other shorter tape): the replay then counts their entries
// again, whole, and appends a new end record.
func (b *bindings) orphan(r io.ReaderAt, size int64, decl []declared) (int64, error) {
	if size >= b.size {
		return size, nil
	}
	for _, s := range b.stores {
		if !slices.ContainsFunc(decl, func(d declared) bool { return d.id == s.id && d.pos == 0 }) {
			return size, nil
		}
	}
	return tape.OrphanGroup(r, size)
}

// twin returns the id of another store whose generation the bindings
// hold with the same first bytes as store s's, when s is new to the tape:
// the same file fed again under a new id (and a new cursor) counts its
// entries a second time, as !late. Two logs that begin alike (a banner)
// look the same, so it is said, not refused.
func (b *bindings) twin(s declared) string {
	if !s.gen.Known || s.gen.SigLen == 0 || slices.ContainsFunc(b.stores, func(o binding) bool { return o.id == s.id }) {
		return ""
	}
	for _, o := range b.stores {
		if o.gen.SigLen == s.gen.SigLen && o.gen.Sig == s.gen.Sig {
			return o.id
		}
	}
	return ""
}

// twinNote is the warning for store id, new to the tape of dir, whose file
// begins as store other's generation does; counted says whether the tape
// holds a sealed bucket already (else nothing of other is counted yet, and
// a second count is still to come, not done).
func twinNote(dir, id, other string, counted bool) string {
	if !counted {
		return fmt.Sprintf("warning: store %s is new to the tape of %s, but its file begins with the same bytes as store %s's, which this tally store is fed too (no bucket of it is sealed yet): if it is the same file under a new id (another cursor), each of its entries would be counted twice. If so, stop, and re-derive the tally store (%s), naming the file once, as %s=PATH with the cursor that fed it; if they are two logs that begin alike, nothing is wrong",
			id, dir, other, rederive(dir), other)
	}
	return fmt.Sprintf("warning: store %s is new to the tape of %s, but its file begins with the same bytes as store %s's, which the tape already counts: if it is the same file under a new id (another cursor), its entries are counted a second time (as !late). If so, stop, and re-derive the tally store to drop the second count (%s), naming the file as %s=PATH with the cursor that fed it from then on; if they are two logs that begin alike, nothing is wrong",
		id, dir, other, rederive(dir), other)
}

// checkDoc refuses a document other than the one the tape was begun with,
// once the tape holds anything.
func (b *bindings) checkDoc(dir string, text []byte, tapeSize int64) error {
	crc := docCRC(text)
	if b.hasDoc && b.doc != crc && tapeSize > 0 {
		return fmt.Errorf("%s is not the document the tape of %s was begun with (CRC-32 %08x, now %08x): it was edited since, and counting on with it would put two documents' buckets on one tape. Nothing was written. Put the document back as it was, or, to count with the edited one, re-derive: %s",
			tallystore.At(dir).Document(), dir, b.doc, crc, rederive(dir))
	}
	b.doc, b.hasDoc = crc, true
	return nil
}

// checkStore refuses a store line whose content or position does not fit
// what the tape accounts for: frontier is the furthest position of the
// store any record of the tape covers.
func (b *bindings) checkStore(dir string, s declared, frontier int64, torn int) error {
	reach := max(frontier, b.reach(s.id))
	if s.pos > reach && s.from != protocol.FromEnd && s.from != protocol.FromStart {
		why := "DIR was provisioned or replaced since the cursor was written, or the cursor belongs to another tally store"
		if torn > 0 {
			why = fmt.Sprintf("the tape's tail was cut (%d bytes of a torn record group: truncated, edited, or a crash), or the cursor belongs to another tally store", torn)
		}
		return fmt.Errorf("store %s resumes at position %d (feed's cursor), but the tape of %s accounts for it only up to %d: the entries between would never be counted (%s). Nothing was written. If the cursor is this store's, re-derive: %s; if it belongs to another tally store, give this one a cursor of its own: feed --cursor NEWFILE with the same stores, -- tally --run %s",
			s.id, s.pos, dir, reach, strings.ReplaceAll(why, "DIR", dir), rederive(dir), dir)
	}
	if !s.gen.Known || s.gen.SigLen == 0 {
		return nil
	}
	old := b.find(s.id, s.gen.Base)
	if old != nil && s.pos < reach && old.gen.SigLen == s.gen.SigLen && old.gen.Sig != s.gen.Sig {
		return fmt.Errorf("store %s: the content feed is about to deliver from position %d is not what the tape of %s counted at those positions (the first %d bytes of its generation at %d differ: CRC-32 %08x on the tape, %08x now): the file was truncated in place (copytruncate), replaced or rotated while feed was down, and its new lines would be lost among positions the tape already holds. Nothing was written. To count the new content beside what the tape holds, name the file under a new store id (%s.2=PATH) and run feed without --reset; to count the tape again from what the files hold now, re-derive: %s",
			s.id, s.pos, dir, old.gen.SigLen, old.gen.Base, old.gen.Sig, s.gen.Sig, s.id, rederive(dir))
	}
	switch {
	case old == nil:
		b.stores = append(b.stores, binding{id: s.id, offset: s.pos, gen: s.gen, from: fromEnd(s.from)})
	case old.gen.SigLen < s.gen.SigLen:
		old.gen = s.gen // a longer signature of the same generation (it had fewer bytes)
	}
	if old != nil && s.pos < old.offset {
		// Replayed from before where it was first fed (a --reset after --from end).
		old.offset, old.from = s.pos, fromEnd(s.from)
	}
	return nil
}

// FirstGens returns, per store id, the generation its tape's counting
// began in (the binding at its lowest offset), as feed's store line named
// it: where it begins on the store's axis and a CRC-32 of its first bytes.
// A check against a list of generations places that one by its first
// bytes: those before it in the list were never fed to this tape.
func FirstGens(dir string) (map[string]protocol.Gen, error) {
	b, err := loadBindings(dir, tallystore.At(dir).Tape())
	if err != nil || b == nil {
		return nil, err
	}
	first := map[string]binding{}
	for _, s := range b.stores {
		if f, ok := first[s.id]; !ok || s.offset < f.offset {
			first[s.id] = s
		}
	}
	out := map[string]protocol.Gen{}
	for id, s := range first {
		if s.gen.Known && s.gen.SigLen > 0 {
			out[id] = s.gen
		}
	}
	return out, nil
}
