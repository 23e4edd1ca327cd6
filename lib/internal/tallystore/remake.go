package tallystore

import (
	"cmp"
	"slices"
	"strings"

	"github.com/timbertally/timbertally/lib/internal/shell"
)

// Remake is the complete fix for a tally store whose tape must be counted
// again from its logs, as a value: two commands, in this order (a replay
// from 0 into the same tape would put the new content at positions the
// tape already holds), which Steps gives as argv and String spells as
// every message advises them. It is made where what it names is known:
// feed knows its own command line; tally the cursor and stores of the
// run it is under; any reader of a store its bindings (RemakeOf).
type Remake struct {
	Dir string // the tally store
	// Feed is the second step whole, when the caller knows it (feed,
	// its own command line with --reset); nil: written from Cursor and
	// Stores.
	Feed []string
	// Cursor is feed's cursor file; "": not known, said as FILE.
	Cursor string
	// Stores are the stores as the operator named them (ID=GEN1,…,PATH);
	// nil: not known, said as STORE....
	Stores []string
}

// RemakeError is an error whose fix is a Remake, carried as a value:
// what happened (What, which ends where the fix begins), the fix, and
// what the message says after it (Then). Error renders it as one
// sentence; a caller that knows more of the run (its cursor, its
// stores) may complete Fix first.
type RemakeError struct {
	What string
	Fix  Remake
	Then string
	Err  error // the cause, when there is one
}

func (e *RemakeError) Error() string { return e.What + e.Fix.String() + e.Then }

func (e *RemakeError) Unwrap() error { return e.Err }

// RemakeOf is the remake of the tally store dir, naming the cursor and
// stores its bindings recorded of the last run (Bindings.Cursor, Specs),
// placeholders for what they do not say.
//
// The bindings are read even when they are another tape file's (a tape
// rewritten by hand, whose checks they no longer hold): the cursor and
// stores they name are still those the store was last fed from.
func RemakeOf(dir string) Remake { return remakeFrom(dir, At(dir).Bindings()) }

// RemakeReplaced is RemakeOf for the tape --replace moved to moved: the
// cursor and stores its bindings (moved with it) recorded, for the new
// tape's first run.
func RemakeReplaced(dir, moved string) Remake {
	return remakeFrom(dir, At(dir).replacedBindings(moved))
}

// remakeFrom is the remake of the tally store dir naming what the
// bindings file at p recorded.
func remakeFrom(dir, p string) Remake {
	r := Remake{Dir: dir}
	if b, err := readBindings(p); err == nil {
		r.Cursor = b.Cursor
		r.Stores, _ = b.Specs()
	}
	return r
}

// Known reports whether the commands name the real cursor and stores
// (they run as printed), not placeholders.
func (r Remake) Known() bool { return r.Feed != nil || r.Cursor != "" && r.Stores != nil }

// Steps are the two commands as argv: the tally store provisioned anew
// with its own document (its old tape moved aside, never deleted), then
// the stores fed again from their start into it.
func (r Remake) Steps() [][]string {
	return [][]string{r.Provision(), r.Replay()}
}

// Provision is the first step: tally --provision --replace with the
// store's own document.
func (r Remake) Provision() []string {
	return []string{"tally", "--provision", "--replace", "--doc", At(r.Dir).Document(), r.Dir}
}

// Replay is the second step: feed --reset of the stores into the store.
func (r Remake) Replay() []string {
	if r.Feed != nil {
		return slices.Clone(r.Feed)
	}
	argv := []string{"feed", "--reset", "--cursor", cmp.Or(r.Cursor, "FILE")}
	if r.Stores == nil {
		argv = append(argv, "STORE...")
	}
	argv = append(argv, r.Stores...)
	return append(argv, "--", "tally", "--run", r.Dir)
}

// ResumeText spells the store's next run under feed, which repairs a
// torn tail: the replay without --reset (feed resumes from the cursor).
func (r Remake) ResumeText() string {
	if r.Feed != nil {
		return shell.Join(slices.DeleteFunc(slices.Clone(r.Feed), func(w string) bool { return w == "--reset" }))
	}
	return strings.Replace(r.ReplayText(), "feed --reset ", "feed ", 1)
}

// String spells the two steps as a message advises them.
func (r Remake) String() string {
	var b strings.Builder
	b.WriteString(shell.Join(r.Provision()))
	b.WriteString(" (the old tape is kept beside it), then ")
	b.WriteString(r.ReplayText())
	return b.String()
}

// ReplayText spells the second step, placeholders bare (FILE, STORE...)
// and said to be the cursor and stores as before.
func (r Remake) ReplayText() string {
	argv := r.Replay()
	q := make([]string, len(argv))
	for i, w := range argv {
		q[i] = shell.Quote(w)
		if r.Feed == nil && (w == "FILE" && r.Cursor == "" || w == "STORE..." && r.Stores == nil) {
			q[i] = w
		}
	}
	text := strings.Join(q, " ")
	switch {
	case r.Feed != nil:
	case r.Cursor == "" && r.Stores == nil:
		text += " (its cursor and stores as before)"
	case r.Cursor == "":
		text += " (its cursor as before)"
	case r.Stores == nil:
		text += " (its stores as before)"
	}
	return text
}

// RunDir names the tally store a consumer command runs (tally --run DIR,
// the last two words), else says TALLYSTORE. It is the one reading of
// tally's command line outside tally: feed's advice names the store its
// consumer counts into (docs/decisions.md argues why feed looks).
func RunDir(consumer []string) string {
	if n := len(consumer); n >= 2 && consumer[n-2] == "--run" {
		return consumer[n-1]
	}
	return "TALLYSTORE"
}
