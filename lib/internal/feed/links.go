package feed

import (
	"fmt"
	"io/fs"
	"os"
)

// A symbolic link a glob matches beside its target (current.log ->
// app-2026-12-05.log, an everyday layout) is another name of a file that
// is a store already: one store per file, by its identity (device and
// inode, os.SameFile), the link's name noted once. Two stores of one file
// would count its entries twice; refusing, as for two named stores, would
// stop a service a glob cannot be told to avoid. A link is the store only
// when no other match is its file: then its name is the file's only one.

// isLink says whether path is a symbolic link.
func isLink(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.Mode()&fs.ModeSymlink != 0
}

// linkedStores drops from the globbed stores (globbed[i] != "") each one
// whose path is a symbolic link to the file of another store (named, or
// matched under a name that is not a link, or a link found before it),
// and returns the notes that say so.
func linkedStores(stores []Store, globbed []string) ([]Store, []string, []string) {
	infos := make([]os.FileInfo, len(stores))
	for i, st := range stores {
		infos[i], _ = os.Stat(st.Path)
	}
	keep := make([]bool, len(stores))
	var notes []string
	for pass := range 2 { // the stores not globbed or not links first, then the links
		for i, st := range stores {
			if (globbed[i] != "" && isLink(st.Path)) != (pass == 1) {
				continue
			}
			keep[i] = true
			if pass == 0 || infos[i] == nil {
				continue
			}
			for j := range stores {
				if j != i && keep[j] && infos[j] != nil && os.SameFile(infos[i], infos[j]) {
					keep[i] = false
					notes = append(notes, linkNote(st.Path, globbed[i], stores[j]))
					break
				}
			}
		}
	}
	var out []Store
	var outGlob []string
	for i := range stores {
		if keep[i] {
			out, outGlob = append(out, stores[i]), append(outGlob, globbed[i])
		}
	}
	return out, outGlob, notes
}

// linkNote says a glob's match is a link to a store's file.
func linkNote(path, pattern string, to Store) string {
	return fmt.Sprintf("feed: %s matches --glob %s but is a symbolic link to the file of store %s (%s): it is read once, as that store", path, pattern, to.ID, to.Path)
}
