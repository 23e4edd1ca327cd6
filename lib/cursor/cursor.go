package cursor

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/timbertally/timbertally/lib/protocol"
)

// Cursor maps a store id to its durable resume position.
type Cursor map[string]int64

// Load reads the cursor file at path. A missing file is an empty cursor.
func Load(path string) (Cursor, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Cursor{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cursor: cannot read %s: %w; fix or remove it (feed --reset re-derives every store)", path, err)
	}
	return parse(path, data)
}

func parse(path string, data []byte) (Cursor, error) {
	c := Cursor{}
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
		if err != nil {
			return nil, fmt.Errorf("cursor: %s line %d: %w; fix or remove the file", path, n+1, err)
		}
		c[h.ID] = h.Offset
	}
	return c, nil
}

// Format returns the file's text: one store line per id, sorted by id.
func (c Cursor) Format() []byte {
	ids := make([]string, 0, len(c))
	for id := range c {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var b []byte
	for _, id := range ids {
		b = protocol.AppendStore(b, id, c[id])
	}
	return b
}

// Save writes c to path atomically.
func (c Cursor) Save(path string) error {
	if err := writeAtomic(path, c.Format()); err != nil {
		return fmt.Errorf("cursor: cannot save %s: %w", path, err)
	}
	return nil
}

func writeAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	// A temp file left by a crash may have another mode; start afresh so that
	// O_CREATE's 0644 (less the umask) applies.
	if err := os.Remove(tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return syncDir(filepath.Dir(path))
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
