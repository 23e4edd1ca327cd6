package feed

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/timbertally/timbertally/lib/internal/cursor"
	"github.com/timbertally/timbertally/lib/internal/shell"
	"github.com/timbertally/timbertally/lib/internal/store"
	"github.com/timbertally/timbertally/lib/internal/tallystore"
)

// resumeErr says why store st cannot resume at its mark m, with the
// remedies as commands to run. A file that is the cursor's inode with
// other content was truncated in place and rewritten (copytruncate), or
// rotated with its inode reused, while feed was down: its new lines
// cannot go on at the cursor's position, and a --reset would put them at
// positions the consumer already holds. When the content the cursor was
// reading lies beside the path (the copy, or the rotated generation,
// compressed or not), the store named with it as its older generation
// goes on where it stopped and counts every entry of both; else the new
// lines start a store of their own, under a new id.
func (f *feeder) resumeErr(st Store, m cursor.Mark, err error) error {
	if len(st.History) == 0 && len(m.Gens) > 0 {
		if e := historyErr(st, m); e != nil {
			return e
		}
	}
	var rep *store.ReplacedError
	if !errors.As(err, &rep) {
		return f.storeErr(st, err)
	}
	cp := store.FindCopy(st.Path, m.Gen, m.Offset, m.Seam)
	switch {
	case cp != "":
		return f.withHistory(st, m, rep, cp)
	case !rep.SameInode():
		return f.storeErr(st, err)
	}
	return fmt.Errorf("feed: store %s: %s; %s. That counts the tally store again from what %s holds now, without its old content. Its old content, which the consumer holds up to position %d, is not beside it under a rotated name (compressed or removed?). To keep the tally store's counts and count the new lines beside them instead, feed the file under a new store id, the same command otherwise, with %s.2=%s in place of %s (store %s keeps its counts; store %s.2 counts the new lines from 0)",
		st.ID, rep.What(), f.rederive(), st.Path, m.Offset, st.ID, st.Path, storeArg(st), st.ID, st.ID)
}

// storeErr is a store's error, a re-derivation (store.Rederivable) given
// as the commands of this run.
func (f *feeder) storeErr(st Store, err error) error {
	if r, ok := errors.AsType[store.Rederivable](err); ok {
		return fmt.Errorf("feed: store %s: %s", st.ID, r.Rederive(f.rederive()))
	}
	return fmt.Errorf("feed: store %s: %w", st.ID, err)
}

// withHistory is resumeErr's message when the content the cursor was
// reading is the file cp beside the path: first the remedy that keeps
// every entry (cp named as the store's older generation), then the one
// under a new id, with what it leaves uncounted, then the re-derivation.
func (f *feeder) withHistory(st Store, m cursor.Mark, rep *store.ReplacedError, cp string) error {
	hist := st
	hist.History = append(slices.Clone(st.History), cp)
	dir := tallystore.RunDir(f.opt.Consumer)
	unread := ""
	if n, err := store.ContentSize(cp); err == nil && m.Gen.Base+n > m.Offset {
		unread = fmt.Sprintf("; its last %d bytes, after position %d, were never fed, and this remedy leaves them uncounted", m.Gen.Base+n-m.Offset, m.Offset)
	}
	old := Store{ID: st.ID, History: st.History, Path: cp}
	seam := ""
	if m.Seam.Len > 0 {
		seam = fmt.Sprintf(", and the same bytes before the cursor's position %d", m.Offset)
	}
	renamed := st
	renamed.ID, renamed.History = st.ID+".2", nil
	return fmt.Errorf("feed: store %s: %s. The content the cursor was reading is %s (the same first %d bytes%s). To count every entry of both and keep the tally store's counts, name it as the store's older generation, the same command otherwise: %s (check it with tgcheck --against %s %s). Or feed %s under a new store id: %s (store %s keeps its counts, %s.2 counts %s from 0; check both with tgcheck --against %s --against %s.2=%s %s)%s. Or %s",
		st.ID, rep.What(), cp, m.Gen.SigLen, seam,
		f.command(st, storeArg(hist), false), storeArg(hist), dir,
		st.Path, f.command(st, storeArg(renamed), false), st.ID, st.ID, st.Path, storeArg(old), st.ID, st.Path, dir, unread,
		f.rederive())
}

// rederive is the complete remedy for stores that must be counted again
// from their start, as the commands to run: this run's tally store, cursor,
// stores and consumer. Both steps, in order: a --reset alone replays the
// new content onto positions the tape already holds.
func (f *feeder) rederive() string {
	return "re-derive, both steps in this order (a --reset alone would replay the new content onto positions the tape already holds): " +
		f.remake(f.argv(Store{}, "", true)).String()
}

// remake is the re-derivation of this run's consumer's tally store whose
// second step is feed, this run's command with --reset.
func (f *feeder) remake(feed []string) tallystore.Remake {
	return tallystore.Remake{Dir: tallystore.RunDir(f.opt.Consumer), Feed: feed}
}

// command is this run's command line as a shell reads it (argv).
func (f *feeder) command(st Store, arg string, reset bool) string {
	return shell.Join(f.argv(st, arg, reset))
}

// argv is this run's command line (its cursor, stores, globs and
// consumer; --follow; --reset when reset), with store st named as arg.
func (f *feeder) argv(st Store, arg string, reset bool) []string {
	cmd := []string{"feed"}
	if reset {
		cmd = append(cmd, "--reset")
	}
	if f.opt.Follow {
		cmd = append(cmd, "--follow")
	}
	if f.opt.Cursor != "" {
		cmd = append(cmd, "--cursor", f.opt.Cursor)
	}
	named := false
	for _, s := range f.opt.Stores {
		if arg != "" && s.ID == st.ID {
			cmd, named = append(cmd, arg), true
		} else {
			cmd = append(cmd, storeArg(s))
		}
	}
	if arg != "" && !named {
		cmd = append(cmd, arg) // a glob's store: named, it is one store with the glob's
	}
	for _, g := range f.opt.Globs {
		cmd = append(cmd, "--glob", g)
	}
	return append(append(cmd, "--"), f.opt.Consumer...)
}

// historyErr says how to name a store fed with its history, whose cursor
// is inside an older generation, when it is named by its path alone: with
// the generations beside its path that the cursor recorded, found by
// their first bytes. nil when the cursor is in the file at the path.
func historyErr(st Store, m cursor.Mark) error {
	found, missing := store.FindHistory(st.Path, m.Gens)
	if len(found) == 0 && missing == 0 {
		return nil
	}
	if missing > 0 {
		return fmt.Errorf("feed: store %s: the cursor is at position %d, inside an older generation of the store, which was fed named with its history (%d generations before %s), but only %s is named, and %d of them are not beside it under a rotated name; name them all, oldest first, as %s=GEN1,…,%s, to resume there", st.ID, m.Offset, len(found)+missing, st.Path, st.Path, missing, st.ID, st.Path)
	}
	return fmt.Errorf("feed: store %s: the cursor is at position %d, inside an older generation of the store, which was fed named with its history, but only %s is named; name it with its history, the same command otherwise, as %s=%s,%s, to resume there", st.ID, m.Offset, st.Path, st.ID, strings.Join(found, ","), st.Path)
}

// storeArg is how a store is named on the command line.
func storeArg(st Store) string {
	if len(st.History) > 0 {
		return st.ID + "=" + strings.Join(append(slices.Clone(st.History), st.Path), ",")
	}
	if st.ID == filepath.Base(st.Path) {
		return st.Path
	}
	return st.ID + "=" + st.Path
}
