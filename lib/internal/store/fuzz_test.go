package store

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/timbertally/timbertally/lib/protocol"
)

// FuzzNext: over any file, any longest line and any chunk size, the chunks
// are contiguous from 0 to the end of the last '\n', entries are the lines
// of at most maxLine bytes verbatim, and every longer line is one Skip.
func FuzzNext(f *testing.F) {
	f.Add([]byte("a\nbb\n\nccc\npartial"), uint8(2), uint8(1))
	f.Add([]byte("\r\x00\xff\n"), uint8(10), uint8(3))
	f.Add([]byte("no newline at all"), uint8(4), uint8(2))
	f.Fuzz(func(t *testing.T, content []byte, maxLine, maxEntries uint8) {
		if maxLine == 0 || maxEntries == 0 {
			return
		}
		p := filepath.Join(t.TempDir(), "s.log")
		if err := os.WriteFile(p, content, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := Open(p, 0, int(maxLine))
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		var pos int64
		for {
			c, ok, err := r.Next(int(maxEntries), 64)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				break
			}
			if c.Offset != pos || c.End <= c.Offset {
				t.Fatalf("chunk [%d,%d) after position %d", c.Offset, c.End, pos)
			}
			bytesOf := content[c.Offset:c.End]
			lines := bytes.SplitAfter(bytesOf, []byte("\n"))
			lines = lines[:len(lines)-1] // SplitAfter's empty tail
			if c.Skip != "" {
				if len(lines) != 1 || len(lines[0]) <= int(maxLine)+1 {
					t.Fatalf("skip [%d,%d) of %q is not one line over %d bytes", c.Offset, c.End, bytesOf, maxLine)
				}
			} else {
				if !bytes.Equal(c.Data, bytesOf) || len(lines) != c.Entries || c.Entries > int(maxEntries) {
					t.Fatalf("chunk [%d,%d) holds %d entries %q, want the file's %q", c.Offset, c.End, c.Entries, c.Data, bytesOf)
				}
				for _, l := range lines {
					if len(l) > int(maxLine)+1 {
						t.Fatalf("entry %q is over %d bytes", l, maxLine)
					}
				}
			}
			pos = c.End
		}
		if want := int64(bytes.LastIndexByte(content, '\n') + 1); pos != want {
			t.Fatalf("read up to %d, want the end of the last line, %d", pos, want)
		}
	})
}

// FuzzParseSpec: whatever the argument, ParseSpec either refuses it or
// gives a valid id and non-empty, distinct files whose list, rejoined, is
// the argument.
func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{"a.log", "web=a.1,a", "web=a.3.gz,a.2.gz,a.1,/var/log/a", "/x=y/a,b", "w=,", "w=a,a", "=a", "a b=c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, arg string) {
		s, err := ParseSpec(arg)
		if err != nil {
			return
		}
		if !protocol.ValidID(s.ID) {
			t.Fatalf("ParseSpec(%q) gave id %q", arg, s.ID)
		}
		files := s.Files()
		for i, p := range files {
			if p == "" || slices.Contains(files[:i], p) {
				t.Fatalf("ParseSpec(%q) gave files %q", arg, files)
			}
		}
		if len(s.History) > 0 && arg != s.ID+"="+strings.Join(files, ",") {
			t.Fatalf("ParseSpec(%q) = %+v, which is not the argument", arg, s)
		}
		if len(s.History) == 0 && arg != s.Path && arg != s.ID+"="+s.Path {
			t.Fatalf("ParseSpec(%q) = %+v, which is not the argument", arg, s)
		}
		// Advice names a store by String: it must name the same store.
		if again, err := ParseSpec(s.String()); err != nil || !slices.Equal(again.Files(), files) || again.ID != s.ID {
			t.Fatalf("ParseSpec(%q).String() = %q, which parses as %+v (%v)", arg, s.String(), again, err)
		}
	})
}

// FuzzGlobID: for any well-formed glob and any name it matches, the id is a
// valid one.
func FuzzGlobID(f *testing.F) {
	f.Add("*.log", "a.log")
	f.Add("x[]]*\\*?", "x]yy*z")
	f.Add("web[^0-9]-*", "webA-\xff")
	f.Fuzz(func(t *testing.T, pattern, name string) {
		if strings.Contains(pattern, "/") || strings.Contains(name, "/") {
			return
		}
		if ok, err := filepath.Match(pattern, name); err != nil || !ok {
			return
		}
		if id := GlobID("/d/"+pattern, "/d/"+name); !protocol.ValidID(id) {
			t.Fatalf("GlobID(%q, %q) = %q, not an id", pattern, name, id)
		}
	})
}

// FuzzCutIsTheLineByLineCut: cut, which takes whole blocks of lines with a
// count each, hands out exactly the chunk the search line by line does, over
// any buffer, longest line, entry count and byte bound.
func FuzzCutIsTheLineByLineCut(f *testing.F) {
	f.Add([]byte("a\nbb\n\nccc\npartial"), uint16(2), uint16(3), uint16(64))
	f.Add(bytes.Repeat([]byte("0123456789\n"), 2000), uint16(10), uint16(1500), uint16(9000))
	f.Add(bytes.Repeat([]byte("x\n"), 5000), uint16(4096), uint16(3000), uint16(65535))
	f.Fuzz(func(t *testing.T, buf []byte, maxLine, maxEntries, maxBytes uint16) {
		if maxLine == 0 || maxEntries == 0 || maxBytes == 0 {
			return
		}
		r := &Reader{buf: buf, end: len(buf), maxLine: int(maxLine)}
		ref := &Reader{buf: buf, end: len(buf), maxLine: int(maxLine)}
		for {
			got, ok := r.cut(int(maxEntries), int(maxBytes))
			want, wantOK := ref.cutLineByLine(int(maxEntries), int(maxBytes))
			if ok != wantOK || got.Offset != want.Offset || got.End != want.End || got.Entries != want.Entries || got.Skip != want.Skip || !bytes.Equal(got.Data, want.Data) {
				t.Fatalf("cut = %+v, %v; line by line %+v, %v", got, ok, want, wantOK)
			}
			if !ok {
				return
			}
		}
	})
}

// cutLineByLine is cut as it was before blocks: one search per line.
func (r *Reader) cutLineByLine(maxEntries, maxBytes int) (Chunk, bool) {
	i, n := r.start, 0
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
