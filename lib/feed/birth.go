package feed

import (
	"os"
	"strings"
	"time"

	"github.com/timbertally/timbertally/lib/store"
)

// A glob's file is read from its birth. A file born and rotated before
// feed first read it (within one scan, or while feed was down) has its
// first generation beside it under a rotated name, which no store read:
// taking the file at the path from position 0 would leave it uncounted,
// without a word. So a glob store new to the cursor starts with its
// rotated siblings written since feed last looked at the directories (the
// cursor's last save at start, the last scan mid-run) as its history,
// oldest first, as if named ID=GEN1,…,PATH; the cursor records them, and
// a later run names them again from that record, so that a restart and a
// re-derivation (--reset) place every byte where this run did.

// lastLooked returns when feed last looked at the stores: the cursor's
// last save, zero when there is no cursor (a first run: nothing is known
// to be newer than feed's last look, and an existing log's rotated
// generations are history it was not asked for).
func lastLooked(cursor string) time.Time {
	if cursor == "" {
		return time.Time{}
	}
	fi, err := os.Stat(cursor)
	if err != nil {
		return time.Time{}
	}
	return fi.ModTime()
}

// born returns glob store st with its history: the generations the cursor
// recorded it with, found beside its path by their first bytes, or, for a
// store the cursor does not know, its rotated siblings last written at or
// after since that no store has read, with one note.
func (f *feeder) born(st Store, since time.Time) Store {
	if m, ok := f.cp.cur[st.ID]; ok {
		if len(m.Gens) > 0 {
			if found, missing := store.FindHistory(st.Path, m.Gens); missing == 0 && len(found) > 0 {
				st.History = found
			}
		}
		return st
	}
	if since.IsZero() {
		return st
	}
	var sibs []string
	for _, p := range store.RotatedSiblings(st.Path, since) {
		if f.claimedBy(st.ID, p) == "" {
			sibs = append(sibs, p)
		}
	}
	if len(sibs) > 0 {
		st.History = sibs
		f.note("feed: store %s: %s was rotated before feed first read it: %s, written since feed last looked, is read first, as its first generation (the store is %s; the cursor records it)",
			st.ID, st.Path, strings.Join(sibs, ", "), storeArg(st))
	}
	return st
}
