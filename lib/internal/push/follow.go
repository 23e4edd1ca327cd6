package push

import (
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"

	"github.com/timbertally/timbertally/lib/internal/tallystore"
	"github.com/timbertally/timbertally/lib/internal/tape"
)

// Group is one sealed bucket's records: its series, its !cap markers and
// its seal, and the !late and !drop markers written since the previous seal.
//
// The markers written after a tape's last seal and before an end record
// (input complete) are a group too, with no seal (Seal.Kind 0) and no
// series: nothing else would ever carry them.
type Group struct {
	Seal    tape.Record
	Series  []tape.Record
	Markers []tape.Record
	End     int64 // the tape offset just past the seal's (or end's) line
	// Part: some of the series of a group larger than the read bound
	// (follower.stream), the seal there only for their stamp; more parts
	// follow, and the last (Part false) has the rest of the series, the
	// markers and End. End is where the part's records begin.
	Part bool
}

// sealed reports whether the group is a bucket's, not the markers before
// an end record.
func (g *Group) sealed() bool { return g.Seal.Kind == tape.Seal }

// identity recognises a tape file again: its device and inode, and the
// CRC-32 of its first sigLen bytes (at most sigSpan).
type identity struct {
	Dev, Ino uint64
	Sig      uint32
	SigLen   int64
}

// sigSpan is how much of a tape's start its identity signs: enough to tell
// two tapes apart (their first groups differ), little to read.
const sigSpan = 256

// follower reads a tape file's whole groups from an offset on.
type follower struct {
	path   string
	f      *os.File
	id     identity
	off    int64 // the start of the first group not yet returned
	quirks func(off int64, word string)
	// stream: a group larger than a read's bound is returned in parts
	// (Group.Part) of about the bound's bytes each, so that memory holds
	// one part, not the group (the shape of a sample a series, whose
	// series are each sent alone). Otherwise it is read whole.
	stream bool
	// parser reads the lines of the stream's shape from slabs, not an
	// allocation or two a line: its batches keep nothing of a record past
	// the group (the other shapes keep series' labels in their totals, and
	// tgcheck --receiver what Sent gives it, which would keep whole slabs).
	parser tape.Parser
	big    *bigGroup // the group being returned in parts
	// recs holds the series records of every group a read returns, each
	// group's Series a window of it: one array reused read after read,
	// not a slice a group grown by doubling (together ~20% of tgpush's
	// allocation and the collector's work). A read's groups are dead when
	// the next read starts: every caller has built what it sends from them
	// (the shapes copy records and keep their strings, never the slice).
	recs []tape.Record
}

// maxKeptRecs bounds the records array kept from one read to the next:
// after a group read whole however large (the shapes that do not stream),
// its array is left to the collector.
const maxKeptRecs = 1 << 16

// bigGroup is a group larger than the read bound, found whole (its seal
// read) and being returned in parts.
type bigGroup struct {
	seal    tape.Record
	markers []tape.Record
	next    int64 // where the next part's records begin
	end     int64 // just past the seal's line
}

// openTape opens the tape at path and returns a follower at offset 0.
func openTape(path string) (*follower, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	fl := &follower{path: path, f: f}
	if fl.id, err = fileIdentity(f, sigSpan); err != nil {
		f.Close()
		return nil, err
	}
	return fl, nil
}

func (fl *follower) Close() error { return fl.f.Close() }

// fileIdentity returns f's device, inode and the signature of its first
// span bytes (fewer when the file is shorter).
func fileIdentity(f *os.File, span int64) (identity, error) {
	fi, err := f.Stat()
	if err != nil {
		return identity{}, err
	}
	dev, ino, ok := tape.Inode(fi)
	if !ok {
		return identity{}, errors.New("the tape's file system gives no inode")
	}
	id := identity{Dev: dev, Ino: ino}
	id.Sig, id.SigLen, err = signature(f, min(span, fi.Size()))
	return id, err
}

// signature is the CRC-32 of f's first n bytes.
func signature(f *os.File, n int64) (uint32, int64, error) {
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, 0); err != nil && err != io.EOF {
		return 0, 0, err
	}
	return crc32.ChecksumIEEE(buf), n, nil
}

// same reports whether the tape file is the one id was taken from: the
// same inode, and the same first bytes as far as id signed them.
func (fl *follower) same(id identity) (bool, error) {
	if fl.id.Dev != id.Dev || fl.id.Ino != id.Ino {
		return false, nil
	}
	sig, n, err := signature(fl.f, id.SigLen)
	return err == nil && n == id.SigLen && sig == id.Sig, err
}

// replaced reports whether the path no longer names the open file (tally
// --provision --replace renamed it aside and made a new one), or the file
// was truncated below the offset read.
func (fl *follower) replaced() (bool, error) {
	if moved, err := tape.Moved(fl.f, fl.path); err != nil || moved {
		return moved, err
	}
	size, err := fl.size()
	return size < fl.off, err
}

// size is the open tape's current length.
func (fl *follower) size() (int64, error) {
	fi, err := fl.f.Stat()
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// read returns the whole groups between the follower's offset and limit,
// and moves the offset past them. It stops after the group that brings the
// tape bytes returned to maxBytes or more (0: no bound): the bound is on
// bytes, not groups, because a group's size is its series' count, which a
// by= label can make thousands, and a read's memory is a small multiple of
// its bytes. It returns at least one whole group when limit holds one.
// Records after the last seal before limit (a group being written, a torn
// line) are left for a later read.
//
// With stream set, a group of more than maxBytes is returned in parts,
// alone: a read that meets one returns the groups before it; the next
// passes over it to its seal, keeping only its markers (a group not
// sealed yet is left for a later read, as any), and it and the reads after
// return its parts, the offset moving past it with the last.
func (fl *follower) read(limit, maxBytes int64) ([]Group, error) {
	if fl.big != nil {
		return fl.part(maxBytes)
	}
	if limit <= fl.off {
		return nil, nil
	}
	r := tape.NewReader(io.NewSectionReader(fl.f, fl.off, limit-fl.off))
	fl.reuseRecs(maxBytes)
	var groups []Group
	var g Group
	first := 0 // g's first record in fl.recs
	start, pos := fl.off, fl.off
	passing := false // over a group larger than maxBytes, to its seal
	for maxBytes == 0 || fl.off-start < maxBytes {
		at := pos
		// Each line is parsed in the records' next place; any but a
		// series line's record is taken out of it at once.
		rec := fl.place()
		line, err := fl.next(r, &pos, rec)
		if err != nil || rec.Kind != tape.Series || passing {
			fl.recs = fl.recs[:len(fl.recs)-1]
		}
		if err == io.EOF || errors.Is(err, tape.ErrTorn) {
			break
		}
		if err != nil {
			return groups, err
		}
		switch rec.Kind { // a record taken out is read before the next place() writes over it
		case tape.Later:
			fl.quirk(at, tape.LaterWord(line)) // a record kind added after this tgpush: it carries no sample
		case tape.Series:
			if passing {
				break
			}
			if fl.stream && maxBytes > 0 && pos-fl.off > maxBytes {
				if len(groups) > 0 {
					return groups, nil // the big group alone, next read
				}
				passing, fl.recs = true, fl.recs[:first]
			}
		case tape.Late, tape.Drop, tape.Cap:
			g.Markers = append(g.Markers, *rec)
		case tape.Seal:
			if passing {
				fl.big = &bigGroup{seal: *rec, markers: g.Markers, next: fl.off, end: pos}
				return fl.part(maxBytes)
			}
			g.Seal, g.End = *rec, pos
			if len(fl.recs) > first {
				g.Series = fl.recs[first:len(fl.recs):len(fl.recs)]
			}
			groups = append(groups, g)
			g, first = Group{}, len(fl.recs)
			fl.off = pos
		case tape.End:
			g.End = pos
			fl.recs = fl.recs[:first] // series without a seal are no bucket's numbers yet
			groups = append(groups, g)
			g, passing = Group{}, false
			fl.off = pos
		}
	}
	return groups, nil
}

// part returns the next part of the big group: its series from where the
// last part ended, about maxBytes of them; the last part has the markers
// and the seal's End, and moves the offset past the group.
func (fl *follower) part(maxBytes int64) ([]Group, error) {
	bg := fl.big
	r := tape.NewReader(io.NewSectionReader(fl.f, bg.next, bg.end-bg.next))
	fl.reuseRecs(maxBytes)
	g := Group{Seal: bg.seal, Part: true, End: bg.next}
	pos := bg.next
	for pos-bg.next < maxBytes {
		at := pos
		rec := fl.place()
		_, err := fl.next(r, &pos, rec)
		if err != nil || rec.Kind != tape.Series {
			fl.recs = fl.recs[:len(fl.recs)-1]
		}
		if err == io.EOF || errors.Is(err, tape.ErrTorn) { // read to its seal before: the tape changed under tgpush
			return nil, fmt.Errorf("tgpush: reading %s again at byte %d: %v", fl.path, at, err)
		}
		if err != nil {
			return nil, err
		}
		switch rec.Kind {
		case tape.Seal:
			g.Series = fl.recs
			g.Part, g.Markers, g.End = false, bg.markers, bg.end
			fl.off, fl.big = bg.end, nil
			return []Group{g}, nil
		}
	}
	g.Series = fl.recs
	bg.next = pos
	return []Group{g}, nil
}

// reuseRecs starts a read of maxBytes's records over in the array of the
// read before (whose groups are dead), unless that array is too large to
// keep; the first is made about a read's size at once (grown from nothing,
// it would have been allocated five times over).
func (fl *follower) reuseRecs(maxBytes int64) {
	if cap(fl.recs) > maxKeptRecs {
		fl.recs = nil
	}
	if fl.recs == nil {
		fl.recs = make([]tape.Record, 0, min(maxBytes/minSeriesLine, maxKeptRecs))
	}
	fl.recs = fl.recs[:0]
	fl.parser.RewindSeries() // the series records that held its strings are gone with them
}

// minSeriesLine is about the shortest series line a store's tape has
// (a bucket's time, a short metric name without labels, a small value).
const minSeriesLine = 40

// place returns the records' next place, appended to fl.recs: the next
// line is parsed there, so that a series record is not copied into it.
func (fl *follower) place() *tape.Record {
	if len(fl.recs) == cap(fl.recs) {
		fl.recs = append(fl.recs, tape.Record{})
	} else {
		fl.recs = fl.recs[:len(fl.recs)+1] // what is there is written over whole
	}
	return &fl.recs[len(fl.recs)-1]
}

// next reads r's next line, which starts at *pos, parses it into *rec
// and moves *pos past it. io.EOF and tape.ErrTorn (the tape's end, a torn
// last line) come as they are; a line that is no record is explained
// (damaged).
func (fl *follower) next(r *tape.Reader, pos *int64, rec *tape.Record) ([]byte, error) {
	line, err := r.ReadLine()
	if err == io.EOF || errors.Is(err, tape.ErrTorn) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("tgpush: reading %s: %v", fl.path, err)
	}
	at := *pos
	*pos += int64(len(line)) + 1
	if fl.stream {
		err = fl.parser.ParseInto(rec, line)
	} else {
		*rec, err = tape.ParseOrLater(line)
	}
	if err != nil {
		return line, fl.damaged(at, err)
	}
	return line, nil
}

// quirk reports a line of a kind this tgpush does not know.
func (fl *follower) quirk(off int64, word string) {
	if fl.quirks != nil {
		fl.quirks(off, word)
	}
}

// damaged explains a line that is no record, found reading forward: the
// groups before it are whole and the tape's, the one it is in is not
// pushed at all.
func (fl *follower) damaged(at int64, err error) error {
	return fl.damage(at, err, "the bucket it is in and every later one were not pushed, only the whole buckets before it")
}

// damage explains the line at byte at that is no record, what was not
// pushed because of it, and the fix.
func (fl *follower) damage(at int64, err error, pushed string) error {
	dir := filepath.Dir(fl.path)
	return fmt.Errorf("tgpush: %s, the line at byte %d: %v; it is not a record, so the tape was damaged or not written by tally: tgread and tgcheck refuse it too (tgcheck --scan %s names it); %s; re-make the tape from its logs, %s, and push the new one as tgpush then says", fl.path, at, err, dir, pushed, tallystore.RemakeOf(dir))
}
