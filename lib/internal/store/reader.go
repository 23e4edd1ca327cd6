package store

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"slices"
	"syscall"
	"time"
)

// readSize is the size of one read: 1 MiB amortises the syscall over
// thousands of typical (~200-byte) entries.
const readSize = 1 << 20

// The Skip reasons.
const (
	// SkipTooLong is a line over maxLine.
	SkipTooLong = "too-long"
	// SkipUnterminated is the last line of a generation, left without its
	// '\n' when the file was rotated: it can never be completed.
	SkipUnterminated = "unterminated"
)

// Reader reads entries of an append-only store from a position, in large
// reads, across rotations.
//
// buf[start:end] holds the bytes read but not yet handed out; pos is the
// position of buf[start] and pos+(end-start) the position of the next read.
// The buffer holds readSize+maxLine+1 bytes, so that after moving a partial
// line (at most maxLine bytes, else it is being skipped) to the front there is
// always room for one full read. gens lists the generations met, oldest first;
// the last is the file f, whose byte k is at position gens[last].Base+k (or
// olds[0], decompressed, while older generations are read; or none yet, f
// nil, while the file at path is waited for).
type Reader struct {
	f         *os.File
	path      string
	gens      []Gen
	maxLine   int
	buf       []byte
	start     int
	end       int
	pos       int64
	skipFrom  int64                  // >= 0 while streaming past a line over maxLine: where it began
	held      Chunk                  // an unterminated line cut by a rotation, handed out next
	sigBuf    [SigSpan]byte          // holds' read of the first bytes
	seamBuf   [SigSpan]byte          // SeamAt's read
	wait      bool                   // f is nil until the file at path exists: read it from its start then
	history   bool                   // the store was named with its older generations: Recorded lists them
	olds      []*older               // older generations not yet read to their end, the one being read first (f is nil)
	drop      int64                  // the bytes before this position are read and dropped
	dropIn    bool                   // drop lies inside olds[0]: the generation a cursor holds
	dropNL    bool                   // the last byte dropped must be a '\n' (AtLineStart)
	pathEvery time.Duration          // Options.PathEvery
	claimed   func(path string) bool // Options.Claimed
	pathAt    time.Time              // when unchanged last looked at the path
	ids       []GenID                // history: the generations before the first one read
	drainer                          // a renamed generation read on until quiet (drain.go)
}

// Chunk is what Next hands out: whole entries, or one skipped line.
type Chunk struct {
	Offset, End int64  // [Offset, End) on the store's position axis
	Entries     int    // > 0: Data holds exactly this many entries, each with its '\n'
	Data        []byte // the entries' bytes; valid until the next call of Next
	Skip        string // non-empty: one line delivered as no entry, with this reason; Entries == 0
}

// Open opens the store file at path for reading from pos, taking it as the
// store's first generation: Resume with no generation known.
func Open(path string, pos int64, maxLine int) (*Reader, error) {
	return Resume(path, pos, Gen{}, maxLine)
}

// Resume opens the store at path for reading from pos, which lies in
// generation g (a zero g: the file at path, from position 0): ResumeSpec of
// a store named by its path alone.
func Resume(path string, pos int64, g Gen, maxLine int) (*Reader, error) {
	return ResumeSpec(Spec{Path: path}, Where{Pos: pos, Gen: g}, Options{MaxLine: maxLine})
}

// Options are how a Reader reads.
type Options struct {
	MaxLine int  // the longest entry; a longer line is a Skip
	Wait    bool // a store file that does not exist yet is waited for, not an error
	// PathEvery, when not 0, is how often at most a Reader at the end of
	// its file looks at the path for a rotation (0: at every read).
	PathEvery time.Duration
	// Claimed, when not nil, says whether the file at the store's path is
	// a generation of another store (a glob that matches a rotated name
	// too): a rotation does not make it this store's next generation,
	// which would count its entries a second time. The store stays on
	// the file it was reading.
	Claimed func(path string) bool
	// Drain, when not 0, is how long a generation renamed away must have
	// been quiet (no write: its mtime and what was read of it) before the
	// file at the path is taken as the next one: its writer may still hold
	// it (nginx until its USR1, Apache's old children until their
	// requests end), and the next generation starts where it ends. 0:
	// at once, once read to its end.
	Drain time.Duration
}

// Where is where reading a store resumes, as its cursor recorded it.
type Where struct {
	Pos  int64
	Gen  Gen     // the generation holding Pos; zero: the store's first file, from Pos
	Gens []GenID // Recorded, for a store named with its history; nil: none
	Seam Seam    // the bytes before Pos (the cursor's); zero: not bound
}

// ResumeSpec opens store s for reading from w.Pos.
//
// Named with its history, the store's older generations are read first,
// oldest first, each from its start, then Path, on one axis: each file
// begins where the one before ended. A cursor's w.Gens must match them
// (see align) and reading resumes inside the generation holding w.Pos;
// before w.Pos its bytes are read and dropped.
//
// The file at Path is resumed as Resume always did: when it is no longer
// w.Gen, w.Gen's file is looked for under another name in the same
// directory (a rotation while feed was down) and read first; otherwise the
// store was replaced and is refused with a *ReplacedError. A file shorter
// than w.Pos is refused with a *ShorterError: it was truncated or replaced.
// With o.Wait, a file at Path that does not exist yet (and that no cursor
// knows) is read from its start once it does.
func ResumeSpec(s Spec, w Where, o Options) (*Reader, error) {
	if o.MaxLine < 1 {
		return nil, fmt.Errorf("store: the longest line must be at least 1 byte, not %d", o.MaxLine)
	}
	if w.Pos < w.Gen.Base {
		return nil, fmt.Errorf("store: position %d of %s lies before its generation, which starts at %d; fix or remove the cursor", w.Pos, s.Path, w.Gen.Base)
	}
	if len(s.History) == 0 {
		return resumePath(s.Path, w.Pos, w.Gen, o)
	}
	if _, err := os.Stat(s.Path); err != nil && !(o.Wait && errors.Is(err, fs.ErrNotExist)) {
		return nil, fmt.Errorf("store: %w", pathErr(s.Path, err))
	}
	if f, err := os.Open(s.Path); err == nil {
		err = compressed(f, s.Path)
		f.Close()
		if err != nil {
			return nil, err
		}
	}
	olds := make([]*older, len(s.History))
	for i, p := range s.History {
		var err error
		if olds[i], err = openOlder(p); err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
	}
	first, base, err := resumeAt(s, olds, w)
	if err != nil {
		return nil, err
	}
	// The generations before the first one read stay in the record, so
	// that the next run's list is matched against them too.
	var at []int
	if w.Gens != nil {
		at, _ = align(s.ID, olds, w.Gens) // resumeAt checked it
	}
	var prefix []GenID
	for i, o := range olds[:first] {
		if at != nil && at[i] >= 0 {
			prefix = append(prefix, w.Gens[at[i]])
		} else {
			prefix = append(prefix, o.id(-1))
		}
	}
	var r *Reader
	if first == len(olds) {
		if r, err = resumePath(s.Path, w.Pos, w.Gen, o); err != nil {
			return nil, err
		}
	} else {
		r = newReader(s.Path, w.Pos, o)
		r.olds, r.pos, r.drop, r.dropIn = olds[first:], base, w.Pos, w.Gen.Known()
		if err := r.beginOlder(base); err != nil {
			return nil, err
		}
	}
	r.history, r.ids = true, prefix
	return r, nil
}

// resumeAt returns where reading a store named with its history begins:
// the index in olds of the generation holding w.Pos (len(olds): the file at
// Path) and the position of its first byte.
func resumeAt(s Spec, olds []*older, w Where) (int, int64, error) {
	if w.Gens == nil {
		if w.Gen.Known() {
			// A cursor of the store named by its path alone.
			if i := holding(s, olds, w); i < len(olds) {
				return i, w.Gen.Base, nil
			}
			return len(olds), 0, nil
		}
		return 0, 0, nil
	}
	at, err := align(s.ID, olds, w.Gens)
	if err != nil {
		return 0, 0, err
	}
	k := slices.IndexFunc(w.Gens, func(id GenID) bool {
		return w.Gen.Known() && id == w.Gen.id()
	})
	if k < 0 {
		// Waiting for Path past the history: its generations are read again.
		return 0, max(w.Gens[max(at[0], 0)].Base, 0), nil
	}
	if t := slices.Index(at, k); t >= 0 {
		return t, w.Gen.Base, nil
	}
	switch last := slices.Max(at); {
	case at[0] > k:
		return 0, 0, &ListError{ID: s.ID, Why: fmt.Sprintf("the cursor is inside %s, which the list no longer names (it begins with %s, a later one)", w.Gens[k].what(), olds[0].path)}
	case last >= 0 && k > last+1:
		return 0, 0, &ListError{ID: s.ID, Why: fmt.Sprintf("a middle generation is missing: the cursor recorded %s between %s and the one it is inside", w.Gens[last+1].what(), olds[len(olds)-1].path)}
	}
	return len(olds), 0, nil
}

// pathErr says what a failed stat of a store's file means.
func pathErr(path string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s does not exist; name a log file as PATH or ID=PATH, or run feed with --follow to wait for it (%w)", path, err)
	}
	return err
}

// compressed refuses a gzip file as a store's live file: read as lines,
// its bytes would be entries of no format (every one a !drop). A live
// file is never compressed (logrotate compresses a generation once it is
// rotated away, with delaycompress one rotation later still); only an
// older generation, read once from its start, is decompressed.
func compressed(f *os.File, path string) error {
	magic := make([]byte, len(gzipMagic))
	if n, _ := f.ReadAt(magic, 0); n < len(magic) || !bytes.Equal(magic, gzipMagic) {
		return nil
	}
	return fmt.Errorf("store: %s is gzip-compressed, and a store's file at its path is read as it grows, never decompressed; name it as an older generation, before the live file: ID=%s,PATH (ID=GEN1,…,PATH, oldest first)", path, path)
}

// newReader returns a Reader of the file at path from pos, with no file open yet.
func newReader(path string, pos int64, o Options) *Reader {
	return &Reader{path: path, maxLine: o.MaxLine, pos: pos, skipFrom: -1, wait: o.Wait, pathEvery: o.PathEvery, claimed: o.Claimed,
		buf: make([]byte, readSize+o.MaxLine+1), drainer: drainer{drain: o.Drain}}
}

// resumePath opens the file at path for reading from pos, which lies in
// generation g (a zero g: the file at path, from position 0).
func resumePath(path string, pos int64, g Gen, o Options) (*Reader, error) {
	if !g.Known() && o.Wait {
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			if pos != g.Base {
				return nil, &ShorterError{Path: path, Size: g.Base, Pos: pos}
			}
			r := newReader(path, pos, o)
			r.gens = []Gen{{Base: pos, Cause: "waiting"}}
			return r, nil
		}
	}
	f, err := locate(path, g)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("store: %w", err)
	}
	if err := compressed(f, path); err != nil {
		f.Close()
		return nil, err
	}
	if !g.Known() {
		g.Cause = "open"
		g.Dev, g.Ino = identity(fi)
		// Sign the first bytes there are now, so that a cursor written
		// before anything is read already tells this content from any
		// other the same file (inode) may hold later: a signature of 0
		// bytes matches whatever a copytruncate rewrites it with.
		if g.SigLen = int(min(fi.Size(), SigSpan)); g.SigLen > 0 {
			if g.Sig, err = sign(f, g.SigLen); err != nil {
				f.Close()
				return nil, fmt.Errorf("store: %w", err)
			}
		}
	}
	if fi.Size() < pos-g.Base {
		f.Close()
		return nil, &ShorterError{Path: path, Size: g.Base + fi.Size(), Pos: pos}
	}
	r := newReader(path, pos, o)
	r.f, r.gens = f, []Gen{g}
	return r, nil
}

// Pos returns the position after the last chunk returned.
func (r *Reader) Pos() int64 {
	if r.skipFrom >= 0 {
		return r.skipFrom
	}
	return max(r.pos, r.drop) // resuming inside an older generation: from where it resumes
}

// gen returns the generation being read.
func (r *Reader) gen() *Gen { return &r.gens[len(r.gens)-1] }

// Gens returns the generations met since Open, oldest first; the last is
// the one being read. It grows by one at each rotation.
func (r *Reader) Gens() []Gen { return r.gens }

// GenAt returns the generation that holds position pos (pos >= the Open
// position): what a cursor at pos records.
func (r *Reader) GenAt(pos int64) Gen {
	for i := len(r.gens) - 1; i > 0; i-- {
		if r.gens[i].Base <= pos {
			return r.gens[i]
		}
	}
	return r.gens[0]
}

// Behind returns how many bytes of the file being read are not yet handed out.
//
// While older generations are read it counts their files' sizes, which for
// gzip are compressed bytes: a figure for a progress line, not a position.
func (r *Reader) Behind() (int64, error) {
	if len(r.olds) > 0 {
		n := int64(r.end - r.start)
		for _, o := range r.olds {
			n += o.size
		}
		if fi, err := os.Stat(r.path); err == nil {
			n += fi.Size()
		}
		return n, nil
	}
	if r.f == nil {
		return 0, nil
	}
	fi, err := r.f.Stat()
	if err != nil {
		return 0, fmt.Errorf("store: %w", err)
	}
	return max(r.gen().Base+fi.Size()-r.Pos(), 0), nil
}

// sourceFrom is how far into its generation a chunk must begin for Source
// to vouch for it. Between Source's check and the splice that follows it,
// a copytruncate refilled past the chunk's start would put other bytes
// there; refilling 1 MiB takes far longer than those microseconds.
const sourceFrom = 1 << 20

// Source returns the open file holding chunk c's entries and their offset
// in it, when that file still holds them: c was read from the generation
// being read, at least sourceFrom into it, and the file still has that
// generation's first bytes and is at least as long as c. Its
// bytes there are then c.Data, and can go to a pipe without a copy
// (splice). ok is false when only c.Data is sure to hold them: the store
// was rotated since c was read, or truncated in place and regrown.
//
// What it vouches for holds until the file changes: ask again right before
// each splice. It costs a stat and a read of SigSpan bytes: cheap beside a
// chunk of hundreds of entries.
func (r *Reader) Source(c Chunk) (f *os.File, off int64, ok bool) {
	g := r.gen()
	if r.f == nil || c.Entries == 0 || c.Offset-g.Base < sourceFrom || !r.holds(c.End) {
		return nil, 0, false
	}
	return r.f, c.Offset - g.Base, true
}

// holds says whether the file being read still holds its generation's
// bytes up to position end: it is that long, and its first bytes are still
// the generation's. (Its identity cannot have changed: r.f is the file the
// generation was taken from.) It runs before every splice and twice a
// read, so it allocates nothing: a stat into the stack, not r.f.Stat(), and
// the signature read into the Reader's buffer.
func (r *Reader) holds(end int64) bool {
	g := r.gen()
	var st syscall.Stat_t
	if syscall.Fstat(int(r.f.Fd()), &st) != nil || st.Size < end-g.Base {
		return false
	}
	sig, err := signInto(r.f, g.SigLen, &r.sigBuf)
	return err == nil && sig == g.Sig
}

// Close closes the store file.
func (r *Reader) Close() error {
	r.dropPrev()
	for _, o := range r.olds {
		o.close()
	}
	if r.f == nil {
		return nil
	}
	return r.f.Close()
}

// Waiting says whether the file at the store's path is waited for: it did
// not exist when last looked for (Options.Wait).
func (r *Reader) Waiting() bool { return r.f == nil && len(r.olds) == 0 }

// Recorded returns what a cursor records of a store named with its
// history, for ResumeSpec to match the next run's list against: every
// generation of the axis known, oldest first (those not yet reached with
// Base -1). nil for a store named by its path alone.
func (r *Reader) Recorded() []GenID {
	if !r.history {
		return nil
	}
	out := slices.Clone(r.ids)
	for _, g := range r.gens {
		if g.Known() {
			out = append(out, g.id())
		}
	}
	for _, o := range r.olds[min(1, len(r.olds)):] {
		out = append(out, o.id(-1))
	}
	return out
}

// Next returns the next chunk: at most maxEntries entries and about maxBytes
// bytes (always at least one whole entry), or a skip; ok is false when no
// complete line is available now (at the end, or only a partial line without
// '\n').
func (r *Reader) Next(maxEntries, maxBytes int) (c Chunk, ok bool, err error) {
	if maxEntries < 1 {
		return Chunk{}, false, fmt.Errorf("store: a chunk holds at least 1 entry, not %d", maxEntries)
	}
	for {
		if r.held.Skip != "" {
			c, r.held = r.held, Chunk{}
			return c, true, nil
		}
		if r.skipFrom >= 0 {
			c, ok = r.skipPast()
		} else {
			c, ok = r.cut(maxEntries, maxBytes)
		}
		if ok {
			return c, true, nil
		}
		if r.skipFrom < 0 && r.end-r.start > r.maxLine {
			r.startSkip()
		}
		got, err := r.fill()
		if !got || err != nil {
			return Chunk{}, false, err
		}
	}
}

// cut hands out the whole entries at the front of the buffer, or a Skip when
// the first complete line there is over maxLine. Whole blocks of lines are
// taken first with a count each; the rest line by line.
func (r *Reader) cut(maxEntries, maxBytes int) (Chunk, bool) {
	i, n := r.blocks(maxEntries, maxBytes)
	for n < maxEntries {
		j := bytes.IndexByte(r.buf[i:r.end], '\n')
		if j < 0 || j > r.maxLine || (n > 0 && i+j+1-r.start > maxBytes) {
			if j > r.maxLine && n == 0 {
				return r.take(r.start+j+1, 0), true
			}
			break
		}
		i += j + 1
		n++
	}
	if n == 0 {
		return Chunk{}, false
	}
	return r.take(i, n), true
}

// blockSize is how many bytes blocks counts the lines of at once.
const blockSize = 4 << 10

// blocks takes whole blocks of lines from the front of the buffer, each
// block's lines with one count (bytes.Count, several bytes a cycle) instead
// of a search per line, the largest part of feed's own CPU after the read
// (bench/README.md). It returns where the lines taken end and how many they
// are. A block is at most maxLine+1 bytes and ends within maxBytes of the
// chunk's start, so every line ending in it is one the line-by-line loop
// would take too; it stops before a block holding more lines than are
// wanted, a block without a '\n' (a longer line) and the buffer's end,
// which that loop then finishes.
func (r *Reader) blocks(maxEntries, maxBytes int) (int, int) {
	i, n := r.start, 0
	size := min(blockSize, r.maxLine+1)
	for n < maxEntries {
		b := r.buf[i:min(r.end, i+size, r.start+maxBytes)]
		k := bytes.Count(b, newline)
		if k == 0 || n+k > maxEntries {
			break
		}
		i += bytes.LastIndexByte(b, '\n') + 1
		n += k
	}
	return i, n
}

var newline = []byte{'\n'}

// take hands out buf[start:i] holding n entries (n == 0: one line over maxLine).
func (r *Reader) take(i, n int) Chunk {
	c := Chunk{Offset: r.pos, End: r.pos + int64(i-r.start), Entries: n}
	if n > 0 {
		c.Data = r.buf[r.start:i]
	} else {
		c.Skip = SkipTooLong
	}
	r.pos, r.start = c.End, i
	return c
}

// startSkip begins streaming past the partial line at the front of the
// buffer, which is already over maxLine: its bytes are dropped, not kept.
func (r *Reader) startSkip() {
	r.skipFrom = r.pos
	r.pos += int64(r.end - r.start)
	r.start, r.end = 0, 0
}

// skipPast looks for the '\n' ending the line being skipped, dropping the
// bytes before it, and hands out the whole line as one Skip once found.
func (r *Reader) skipPast() (Chunk, bool) {
	j := bytes.IndexByte(r.buf[r.start:r.end], '\n')
	if j < 0 {
		r.pos += int64(r.end - r.start)
		r.start, r.end = 0, 0
		return Chunk{}, false
	}
	r.pos += int64(j + 1)
	r.start += j + 1
	c := Chunk{Offset: r.skipFrom, End: r.pos, Skip: SkipTooLong}
	r.skipFrom = -1
	return c, true
}

// fill reads once into the free end of the buffer. got is false at the end
// of the file, unless the store was rotated there (then the next read is from
// the new generation).
func (r *Reader) fill() (got bool, err error) {
	if r.start == r.end {
		r.start, r.end = 0, 0
	} else if len(r.buf)-r.end < readSize {
		r.end = copy(r.buf, r.buf[r.start:r.end])
		r.start = 0
	}
	next := r.pos + int64(r.end-r.start)
	switch {
	case len(r.olds) > 0:
		return r.fillOlder(next)
	case r.f == nil:
		return r.appear(next)
	}
	r.lookLate()
	if r.unchanged(next) {
		return false, nil
	}
	// The file may have been truncated and refilled past next since the
	// last read (a copytruncate while a backlog is read, not only at the
	// end): it is checked before every read, and again after it, since a
	// cut during the read leaves its bytes a mix of two generations. A
	// check is an fstat and a pread of SigSpan bytes: two a MiB of a
	// backlog, two a read at the live edge (a poll, or a few lines).
	if rotated, err := r.truncated(next, next); rotated || err != nil {
		return rotated, err
	}
	n, err := r.f.ReadAt(r.buf[r.end:min(len(r.buf), r.end+readSize)], next-r.gen().Base)
	afterRead()
	if n > 0 {
		if rotated, err := r.truncated(next, next+int64(n)); rotated || err != nil {
			return rotated, err // the bytes read are dropped
		}
		r.signRead(next, r.buf[r.end:r.end+n])
		r.end += n
		if r.draining {
			r.grewAt = time.Now()
		}
		return true, nil
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return false, fmt.Errorf("store: %w", err)
	}
	return r.rotate(next)
}

// unchanged says, in two syscalls, that there is nothing to read at
// position next: the file is exactly as long as what was read, and the
// path still names it (no rotation). At the live edge nearly every poll
// finds that, and the checks and the read below cost five syscalls (an
// fstat, a pread of the first bytes, the read, an fstat and a stat of the
// path): 20 000 a second for a glob of 1 000 files polled 4 times a
// second. A file cut and refilled to exactly its old length between two
// polls is found at its next growth, by the checks below, as before.
//
// With Options.PathEvery the path is looked at that often at most: a
// rotation is then taken up to that long after the old file stopped
// growing, for half the syscalls.
func (r *Reader) unchanged(next int64) bool {
	var st, at syscall.Stat_t
	if syscall.Fstat(int(r.f.Fd()), &st) != nil || st.Size != next-r.gen().Base {
		return false
	}
	if r.pathEvery > 0 {
		now := time.Now()
		if now.Sub(r.pathAt) < r.pathEvery {
			return true
		}
		r.pathAt = now
	}
	if syscall.Stat(r.path, &at) != nil {
		return true // renamed and not yet recreated: rotate waits too
	}
	return at.Dev == st.Dev && at.Ino == st.Ino
}

// afterRead is a test's hook between fill's read and its check.
var afterRead = func() {}

// signRead extends the generation's signature over its first SigSpan
// bytes with b, the bytes just read at position at: from the read itself,
// not a second read of the file, which a cut in between would make short
// or other bytes (a signature of the new content, and the cut unseen).
// The signature covers [Base, Base+SigLen), and reads follow one another,
// so at <= Base+SigLen while SigLen < SigSpan.
func (r *Reader) signRead(at int64, b []byte) {
	g := r.gen()
	from := g.Base + int64(g.SigLen) - at // where in b the unsigned bytes begin
	if g.SigLen >= SigSpan || from < 0 || from >= int64(len(b)) {
		return
	}
	to := min(int64(len(b)), from+int64(SigSpan-g.SigLen))
	g.Sig = crc32.Update(g.Sig, crc32.IEEETable, b[from:to])
	g.SigLen += int(to - from)
}

// rotate starts a new generation at position end, where the file being read
// ended, when the store was renamed away with a new file at the path
// (create). A rename is taken only once the old file is read to its end,
// which it just was. (A truncation in place is fill's check: one made
// since, before this read found the end, is seen at the next read.)
func (r *Reader) rotate(end int64) (bool, error) {
	fi, err := r.f.Stat()
	if err != nil {
		return false, fmt.Errorf("store: %w", err)
	}
	f, err := r.nextFile(fi)
	if f == nil || err != nil {
		return false, err
	}
	nfi, err := f.Stat()
	if err != nil {
		f.Close()
		r.successor = nil
		return false, fmt.Errorf("store: %w", err)
	}
	if r.drainOn(fi) {
		r.successor = f // its writer may still hold the old file
		return false, nil
	}
	r.successor = nil
	// Renamed twice while the old file was read (feed behind, or two
	// rotations within a poll), a generation in between is beside the
	// path under a rotated name, and is skipped: named, so that it is not
	// skipped without a word. It is not read: what marks it (its name and
	// that it was written after the old file) marks another store named
	// after this one, or an old generation touched since, as well.
	skipped := newerGeneration(r.path, fi, nfi)
	if skipped != "" && beginsAs(skipped, r.gen().id()) {
		skipped = "" // the file just read, compressed since under its rotated name (logrotate's compress)
	}
	r.keepPrev(r.f, *r.gen(), end)
	r.begin(f, nfi, end, "renamed")
	r.gen().Skipped = skipped
	return true, nil
}

// nextFile returns the file that follows the one being read, whose info
// is fi: the one found at the path when a drain began (wherever a later
// rotation has renamed it since: a rotation during the drain must not
// skip it), else the file at the path now when it is another file; nil
// when there is none.
func (r *Reader) nextFile(fi os.FileInfo) (*os.File, error) {
	if r.successor != nil {
		return r.successor, nil
	}
	pfi, err := os.Stat(r.path)
	if err != nil || os.SameFile(fi, pfi) {
		return nil, nil // not rotated, or renamed and not yet recreated
	}
	if r.claimed != nil && r.claimed(r.path) {
		return nil, nil // another store's generation: not this store's
	}
	f, err := os.Open(r.path)
	if err != nil {
		return nil, nil // recreated and gone again: look at the next poll
	}
	return f, nil
}

// truncated starts a new generation of the same file at position end when
// the file was truncated in place: it no longer holds the bytes up to
// position held, or its first bytes changed (emptied and regrown).
func (r *Reader) truncated(end, held int64) (bool, error) {
	if r.holds(held) {
		return false, nil
	}
	fi, err := r.f.Stat()
	if err != nil {
		return false, fmt.Errorf("store: %w", err)
	}
	r.begin(r.f, fi, end, "truncated")
	return true, nil
}

// begin makes f, whose info is fi, the generation starting at position end.
func (r *Reader) begin(f *os.File, fi os.FileInfo, end int64, cause string) {
	r.endGen(end)
	dev, ino := identity(fi)
	r.f = f
	if n := len(r.gens); n > 0 && !r.gens[n-1].Known() {
		r.gens = r.gens[:n-1] // the file waited for: it begins where waiting did
	}
	r.gens = append(r.gens, Gen{Base: end, Dev: dev, Ino: ino, Cause: cause})
}

// endGen ends the generation being read at position end. A partial line
// left in the buffer can never be completed: it is handed out as one
// unterminated Skip, so every byte of the axis is still accounted for.
func (r *Reader) endGen(end int64) {
	if from := r.Pos(); from < end {
		r.held = Chunk{Offset: from, End: end, Skip: SkipUnterminated}
	}
	r.start, r.end, r.pos, r.skipFrom = 0, 0, end, -1
}

// ShorterError says a store file is shorter than the position to read from:
// it was truncated or replaced, and reading on would lose or repeat entries.
type ShorterError struct {
	Path      string
	Size, Pos int64
}

func (e *ShorterError) Error() string { return e.Rederive(rederive) }

// Rederive is the message with fix, the re-derivation's commands.
func (e *ShorterError) Rederive(fix string) string {
	return fmt.Sprintf("store: %s is shorter than the position to read from (%d < %d bytes): it was truncated or replaced; %s", e.Path, e.Size, e.Pos, fix)
}

// tailStep is how far EndOfLastLine reads back at a time.
const tailStep = 64 << 10

// EndOfLastLine returns the position after the file's last '\n' (0 when it
// has none): where to start reading so that only entries appended later are
// delivered, never the tail of a line already being written.
func EndOfLastLine(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("store: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("store: %w", err)
	}
	buf := make([]byte, tailStep)
	for end := fi.Size(); end > 0; {
		from := max(end-tailStep, 0)
		n, err := f.ReadAt(buf[:end-from], from)
		if err != nil && !errors.Is(err, io.EOF) {
			return 0, fmt.Errorf("store: %w", err)
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			return from + int64(i) + 1, nil
		}
		end = from
	}
	return 0, nil
}

// Stat returns the info of the file being read (an error while older
// generations are read, or while the file is waited for).
func (r *Reader) Stat() (os.FileInfo, error) {
	if r.f == nil || len(r.olds) > 0 {
		return nil, errors.New("store: no file of the path is open")
	}
	return r.f.Stat()
}
