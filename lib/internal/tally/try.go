package tally

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/timbertally/timbertally/lib/internal/bucket"
	"github.com/timbertally/timbertally/lib/internal/doc"
	"github.com/timbertally/timbertally/lib/internal/extract"
	"github.com/timbertally/timbertally/lib/internal/tape"
	"github.com/timbertally/timbertally/lib/protocol"
)

// try is tally --try: the extractor and the buckets over raw lines, in
// memory, printing the tape that --run would write for the same input
// delivered complete. Each file is a store, delivered whole in turn; no
// file means stdin (store id "stdin").
func try(d *doc.Doc, files []string, stdin io.Reader, stdout io.Writer, note func(string, ...any)) error {
	r, err := newRoller(d, nil)
	if err != nil {
		return err
	}
	out := bufio.NewWriterSize(stdout, 1<<20)
	if len(files) == 0 {
		files = []string{"-"}
	}
	for _, f := range files {
		if err := r.File(r.AddStore(tryID(f), 0), tryPath(f)); err != nil {
			return err
		}
	}
	for st, f := range files {
		in, err := openTry(f, stdin)
		if err != nil {
			return err
		}
		defer in.Close()
		rest, err := tryStore(r, st, in, out)
		if err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		if rest > 0 {
			note("%s ends with %d bytes and no newline: not yet an entry, left out", f, rest)
		}
		r.End(st)
		for _, n := range r.FormatNotes() {
			note("%s", n)
		}
	}
	r.Complete()
	out.Write(r.Take())
	return out.Flush()
}

// openTry opens a --try file, or stdin for "-" (left open on Close).
func openTry(f string, stdin io.Reader) (io.ReadCloser, error) {
	if f == "-" {
		return io.NopCloser(stdin), nil
	}
	fh, err := os.Open(f)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("there is no file %s; name files of log lines, or none (or -) for stdin: tally --try --doc NAME|PATH [FILE...]", f)
	}
	if err != nil {
		return nil, err // a permission error gets its fix from command.Conventions
	}
	return fh, nil
}

// tryPath is a --try store's path, absolute ("" for stdin): a kubelet
// layout's fields are read from it.
func tryPath(f string) string {
	if f == "-" {
		return ""
	}
	abs, err := filepath.Abs(f)
	if err != nil {
		return f
	}
	return abs
}

// tryID names a --try store: the file's base name when it is a valid id.
func tryID(f string) string {
	if base := filepath.Base(f); f != "-" && protocol.ValidID(base) {
		return base
	}
	return "stdin"
}

// tryReadSize is tryStore's read size: small enough that the bytes a read
// copies are still in the core's 1 MiB L2 cache when they are extracted
// (larger reads were slower), large enough that the syscalls cost nothing
// (figures: bench/README.md, "The figures behind the code's comments").
const tryReadSize = 256 << 10

// tryStore feeds every whole line of in to store st, in reads of
// tryReadSize (grown for a longer line), and returns the length of a final
// line without '\n'.
func tryStore(r *bucket.Roller, st int, in io.Reader, out *bufio.Writer) (int, error) {
	buf := make([]byte, tryReadSize)
	var pos int64
	have := 0
	for {
		n, err := in.Read(buf[have:])
		have += n
		_, data := r.Lines(st, pos, buf[:have])
		pos += int64(have - len(data))
		if _, werr := out.Write(r.Take()); werr != nil {
			return 0, werr
		}
		have = copy(buf, data)
		if have == len(buf) { // one line longer than the buffer: grow it
			buf = append(buf, make([]byte, len(buf))...)
		}
		if err == io.EOF {
			return have, nil
		}
		if err != nil {
			return 0, err
		}
	}
}

// tryFields is tally --try --fields: per line of each file (or stdin),
// each field's name and value as the extractor cut it, its number when it
// is one, and the entry's time; or the !drop reason. Values are escaped as
// tape label values are (\", \\, \n, \xHH for a byte that is not UTF-8),
// so what is shown is what a by= label would hold.
func tryFields(d *doc.Doc, files []string, stdin io.Reader, stdout io.Writer) error {
	x, err := extract.New(d)
	if err != nil {
		return err
	}
	out := bufio.NewWriter(stdout)
	if len(files) == 0 {
		files = []string{"-"}
	}
	x.CutRequests()
	names := d.Fields()
	width := 0
	for _, n := range names {
		width = max(width, len(n))
	}
	var e extract.Entry
	var u *extract.Unwrapper
	if d.Envelope != doc.NoEnvelope {
		u = extract.UnwrapperFor(d)
	}
	for k, f := range files {
		if err := x.Origin(k, tryID(f), tryPath(f)); err != nil {
			return err
		}
		x.Store(k)
		in, err := openTry(f, stdin)
		if err != nil {
			return err
		}
		defer in.Close()
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 64<<10), 64<<20)
		sc.Split(scanLF)
		var j extract.Joiner
		for n := 1; sc.Scan(); n++ {
			line := sc.Bytes()
			if u != nil {
				var ok bool
				if line, ok = tryUnwrap(out, f, n, u, &j, x, line); !ok {
					continue
				}
			}
			reason := x.Extract(line, &e)
			if reason == extract.ReasonHeader || reason == extract.ReasonLayout {
				fmt.Fprintf(out, "%s:%d header (no entry)\n", f, n)
				continue
			}
			if reason != "" {
				fmt.Fprintf(out, "%s:%d !drop reason=%s\n", f, n, reason)
				continue
			}
			fmt.Fprintf(out, "%s:%d time %s\n", f, n, tape.AppendTime(nil, e.Time))
			for i, name := range names {
				v := tape.AppendEscaped(nil, e.Fields[i])
				if num, ok := e.Number(i); ok {
					fmt.Fprintf(out, "  %-*s \"%s\" = %s\n", width, name, v, tape.AppendValue(nil, num))
				} else {
					fmt.Fprintf(out, "  %-*s \"%s\"\n", width, name, v)
				}
			}
			tryKeyPaths(out, x.KeyPaths(line))
		}
		if err := sc.Err(); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
	}
	return out.Flush()
}

// tryKeyPaths lists a JSON or logfmt entry's every key path and its value
// under its fields, so that a format line can name the one it means.
func tryKeyPaths(out io.Writer, kv []extract.KeyValue) {
	if len(kv) == 0 {
		return
	}
	fmt.Fprintf(out, "  key paths of the line (NAME=PATH on the format line reads one):\n")
	width := 0
	for _, p := range kv {
		width = max(width, len(p.Path))
	}
	for _, p := range kv {
		fmt.Fprintf(out, "    %-*s \"%s\"\n", width, p.Path, tape.AppendEscaped(nil, []byte(p.Value)))
	}
}

// tryUnwrap unwraps line n of f for --fields, as tally does (held parts,
// a cut split line and a line no runtime wrote are said), and returns the
// entry to extract, if the line completes one.
func tryUnwrap(out io.Writer, f string, n int, u *extract.Unwrapper, j *extract.Joiner, x *extract.Extractor, line []byte) ([]byte, bool) {
	r := j.Line(u, int64(n), line)
	if r.Cut {
		fmt.Fprintf(out, "%s:%d-%d !drop reason=%s\n", f, r.CutAt, r.CutEnd-1, extract.ReasonSplit)
	}
	switch {
	case r.Held:
		fmt.Fprintf(out, "%s:%d part (the line goes on in the next part)\n", f, n)
		return nil, false
	case r.Reason != "" && r.At < int64(n):
		fmt.Fprintf(out, "%s:%d-%d !drop reason=%s\n", f, r.At, n, r.Reason)
		return nil, false
	case r.Reason != "":
		fmt.Fprintf(out, "%s:%d !drop reason=%s\n", f, n, r.Reason)
		return nil, false
	}
	x.Envelope(r.Part.Stream, r.Part.Time)
	return r.Part.Log, true
}

// scanLF is bufio.ScanLines without its dropping of a '\r' before the
// '\n': the extractor drops one itself, as it does for the tape, and a
// second one is part of the line's fields there too.
func scanLF(data []byte, atEOF bool) (int, []byte, error) {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		return i + 1, data[:i], nil
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}
