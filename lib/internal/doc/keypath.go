package doc

import (
	"errors"
	"strings"
)

// SplitKeyPath cuts a JSON key path into its keys at each '.': a key that
// itself holds a '.' (a host name, "hg.nginx.org") writes it as `\.`, and
// a '\' as `\\`, as jq's and Vector's paths let a key hold one. Any other
// '\' is an error, and so is an empty key.
func SplitKeyPath(path string) ([]string, error) {
	if !strings.Contains(path, `\`) {
		keys := strings.Split(path, ".")
		for _, k := range keys {
			if k == "" {
				return nil, errors.New("a key path has no empty key (two dots, or a dot at an end)")
			}
		}
		return keys, nil
	}
	var keys []string
	var key strings.Builder
	for i := 0; i < len(path); i++ {
		switch c := path[i]; {
		case c == '\\' && i+1 < len(path) && (path[i+1] == '.' || path[i+1] == '\\'):
			key.WriteByte(path[i+1])
			i++
		case c == '\\':
			return nil, errors.New(`in a key path, a '\' is written \\ and a '.' inside a key \.`)
		case c == '.':
			keys = append(keys, key.String())
			key.Reset()
		default:
			key.WriteByte(c)
		}
	}
	keys = append(keys, key.String())
	for _, k := range keys {
		if k == "" {
			return nil, errors.New("a key path has no empty key (two dots, or a dot at an end)")
		}
	}
	return keys, nil
}

// JoinKeyPath writes keys as a key path SplitKeyPath reads back.
func JoinKeyPath(keys []string) string {
	esc := make([]string, len(keys))
	for i, k := range keys {
		esc[i] = strings.ReplaceAll(strings.ReplaceAll(k, `\`, `\\`), ".", `\.`)
	}
	return strings.Join(esc, ".")
}
