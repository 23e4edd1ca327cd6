package tally

import (
	"fmt"
	"hash/crc32"
	"io"
	"slices"
	"strings"

	"github.com/timbertally/timbertally/lib/internal/tallystore"

	"github.com/timbertally/timbertally/lib/internal/store"
	"github.com/timbertally/timbertally/lib/internal/tape"
	"github.com/timbertally/timbertally/lib/protocol"
)

// bindings is the tally store's record of what its tape was counted from
// (tallystore.Bindings, docs/bindings.md), with the checks a run holds it to.
type bindings struct {
	*tallystore.Bindings
	remake tallystore.Remake // the tally store's re-derivation, as this run names it
}

// loadBindings reads dir's bindings, or none when the file is missing or
// belongs to another tape file; named gives them this run's remake.
func loadBindings(dir string) (*bindings, error) {
	b, err := tallystore.LoadBindings(dir)
	if err != nil {
		return nil, err
	}
	return &bindings{Bindings: b}, nil
}

// docCRC is the fingerprint of a document's text.
func docCRC(text []byte) uint32 { return crc32.ChecksumIEEE(text) }

// declared is one store line of feed's input.
type declared struct {
	id   string
	pos  int64
	gen  protocol.Gen
	from string
	spec string // how feed named the store (absolute), "" when it did not say
}

// path is the store's live file, as its spec= names it ("" when feed did
// not say, or said what does not parse).
func (s declared) path() string {
	sp, err := store.ParseSpec(s.spec)
	if s.spec == "" || err != nil {
		return ""
	}
	return sp.Path
}

// named records what this run's feed said of itself, as remake r names
// it (consumer.remake): its cursor (the hello's cursor=; "" is recorded
// too: a run without one) and how it named each store (spec=), so that
// the bindings, and every command this run advises, name them.
func (b *bindings) named(r tallystore.Remake, decl []declared) {
	b.Cursor, b.remake = r.Cursor, r
	for _, s := range decl {
		b.Named(s.id, s.spec)
	}
}

// checkSize refuses a tape shorter (once its torn tail is cut) than when
// a run last ended, unless every store is replayed from 0: which entries
// the records cut from it held, and so whether feed's cursor is before
// them, the rest of the tape cannot say.
func (b *bindings) checkSize(dir string, size int64, torn int, decl []declared) error {
	if size >= b.Size {
		return nil
	}
	for _, s := range decl {
		if s.pos > 0 {
			return &tallystore.RemakeError{What: fmt.Sprintf("the tape of %s is %d bytes once its torn tail (%d bytes) is cut, shorter than the %d it was when its last run ended: records were cut from it (by hand, or a restore of an older copy), and store %s resumes at %d, past entries they may have held, which would not be replayed but lost. Nothing was written. Replay every store from 0 into it, feed --reset with the same stores (what the tape still holds is recognised, not counted again), or re-derive: ",
				dir, size, torn, b.Size, s.id, s.pos), Fix: b.remake}
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
	if size >= b.Size {
		return size, nil
	}
	for _, s := range b.Stores {
		if !slices.ContainsFunc(decl, func(d declared) bool { return d.id == s.ID && d.pos == 0 }) {
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
	if !s.gen.Known || s.gen.SigLen == 0 || slices.ContainsFunc(b.Stores, func(o tallystore.Binding) bool { return o.ID == s.id }) {
		return ""
	}
	for _, o := range b.Stores {
		if o.Gen.SigLen == s.gen.SigLen && o.Gen.Sig == s.gen.Sig {
			return o.ID
		}
	}
	return ""
}

// twinNote is the warning for store id, new to the tape of dir, whose file
// begins as store other's generation does; counted says whether the tape
// holds a sealed bucket already (else nothing of other is counted yet, and
// a second count is still to come, not done).
//
// Its re-derivation names neither cursor nor stores: this run's are the
// second count's, and the file is to be named once, as store other was,
// with the cursor that fed it.
func twinNote(dir, id, other string, counted bool) string {
	remake := tallystore.Remake{Dir: dir}
	if !counted {
		return fmt.Sprintf("warning: store %s is new to the tape of %s, but its file begins with the same bytes as store %s's, which this tally store is fed too (no bucket of it is sealed yet): if it is the same file under a new id (another cursor), each of its entries would be counted twice. If so, stop, and re-derive the tally store (%s), naming the file once, as %s=PATH with the cursor that fed it; if they are two logs that begin alike, nothing is wrong",
			id, dir, other, remake, other)
	}
	return fmt.Sprintf("warning: store %s is new to the tape of %s, but its file begins with the same bytes as store %s's, which the tape already counts: if it is the same file under a new id (another cursor), its entries are counted a second time (as !late). If so, stop, and re-derive the tally store to drop the second count (%s), naming the file as %s=PATH with the cursor that fed it from then on; if they are two logs that begin alike, nothing is wrong",
		id, dir, other, remake, other)
}

// checkDoc refuses a document other than the one the tape was begun with,
// once the tape holds anything.
func (b *bindings) checkDoc(dir string, text []byte, tapeSize int64) error {
	crc := docCRC(text)
	if b.HasDoc && b.Doc != crc && tapeSize > 0 {
		return &tallystore.RemakeError{What: fmt.Sprintf("%s is not the document the tape of %s was begun with (CRC-32 %08x, now %08x): it was edited since, and counting on with it would put two documents' buckets on one tape. Nothing was written. Put the document back as it was, or, to count with the edited one, re-derive: ",
			tallystore.At(dir).Document(), dir, b.Doc, crc), Fix: b.remake}
	}
	b.Doc, b.HasDoc = crc, true
	return nil
}

// checkStore refuses a store line whose content or position does not fit
// what the tape accounts for: frontier is the furthest position of the
// store any record of the tape covers.
func (b *bindings) checkStore(dir string, s declared, frontier int64, torn int) error {
	reach := max(frontier, b.Reach(s.id))
	if s.pos > reach && s.from != protocol.FromEnd && s.from != protocol.FromStart {
		why := "DIR was provisioned or replaced since the cursor was written, or the cursor belongs to another tally store"
		if torn > 0 {
			why = fmt.Sprintf("the tape's tail was cut (%d bytes of a torn record group: truncated, edited, or a crash), or the cursor belongs to another tally store", torn)
		}
		return &tallystore.RemakeError{What: fmt.Sprintf("store %s resumes at position %d (feed's cursor), but the tape of %s accounts for it only up to %d: the entries between would never be counted (%s). Nothing was written. If the cursor is this store's, re-derive: ",
			s.id, s.pos, dir, reach, strings.ReplaceAll(why, "DIR", dir)), Fix: b.remake,
			Then: fmt.Sprintf("; if it belongs to another tally store, give this one a cursor of its own: feed --cursor NEWFILE with the same stores, -- tally --run %s", dir)}
	}
	if !s.gen.Known || s.gen.SigLen == 0 {
		return nil
	}
	old := b.Find(s.id, s.gen.Base)
	if old != nil && s.pos < reach && old.Gen.SigLen == s.gen.SigLen && old.Gen.Sig != s.gen.Sig {
		return &tallystore.RemakeError{What: fmt.Sprintf("store %s: the content feed is about to deliver from position %d is not what the tape of %s counted at those positions (the first %d bytes of its generation at %d differ: CRC-32 %08x on the tape, %08x now): the file was truncated in place (copytruncate), replaced or rotated while feed was down, and its new lines would be lost among positions the tape already holds. Nothing was written. To count the new content beside what the tape holds, name the file under a new store id (%s.2=PATH) and run feed without --reset; to count the tape again from what the files hold now, re-derive: ",
			s.id, s.pos, dir, old.Gen.SigLen, old.Gen.Base, old.Gen.Sig, s.gen.Sig, s.id), Fix: b.remake}
	}
	switch {
	case old == nil:
		b.Stores = append(b.Stores, tallystore.Binding{ID: s.id, Offset: s.pos, Gen: s.gen, From: tallystore.FromEnd(s.from), Spec: s.spec})
	case old.Gen.SigLen < s.gen.SigLen:
		old.Gen = s.gen // a longer signature of the same generation (it had fewer bytes)
	}
	if old != nil && s.pos < old.Offset {
		// Replayed from before where it was first fed (a --reset after --from end).
		old.Offset, old.From = s.pos, tallystore.FromEnd(s.from)
	}
	return nil
}
