package command

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// completionFlag is the word the scripts in deploy/completion append to
// the words before the cursor and the word under it (empty when nothing is
// typed yet), as urfave/cli's own scripts do.
const completionFlag = "--generate-bash-completion"

// choicesKey holds, in an app's Metadata, the values of its flags that
// take one of a fixed set.
const choicesKey = "command.choices"

// Choices records the values that app's flag (named without dashes) takes,
// so that completion offers them after it, and returns app.
func Choices(app *cli.App, flag string, values ...string) *cli.App {
	if app.Metadata == nil {
		app.Metadata = map[string]any{}
	}
	c, _ := app.Metadata[choicesKey].(map[string][]string)
	if c == nil {
		c = map[string][]string{}
		app.Metadata[choicesKey] = c
	}
	c[flag] = values
	return app
}

// completion makes app answer completionFlag itself (and its action add
// the fix to a permission error, PermissionFix). urfave/cli v2 turns
// completion off once the words hold a "--", and then runs the command
// with the flag as an operand: "tgread --<TAB>" read a tape named
// --generate-bash-completion, and "feed s -- tally --<TAB>" started a
// feed. So the action checks for the flag before it runs.
func completion(app *cli.App) {
	app.EnableBashCompletion = true
	app.BashComplete = func(c *cli.Context) { complete(app, completionWords(), c.App.Writer) }
	action := app.Action
	app.Action = func(c *cli.Context) error {
		if n := c.NArg(); n > 0 && c.Args().Get(n-1) == completionFlag {
			complete(app, completionWords(), c.App.Writer)
			return nil
		}
		return PermissionFix(app.Name, action(c))
	}
}

// completionWords are the words of the command line being completed: the
// process's arguments (urfave/cli's completion reads them too) without the
// program's name and the completion flag.
func completionWords() []string {
	if len(os.Args) < 2 {
		return nil
	}
	return os.Args[1 : len(os.Args)-1]
}

// complete writes to w what completes the last of words, the word under
// the cursor: after a flag that takes a value, its choices (none: the
// shell offers file names); else the flags the word begins, when it
// begins with "-". After a "--" it offers nothing: the words are operands,
// or feed's consumer, whose own completion is not ours to run.
func complete(app *cli.App, words []string, w io.Writer) {
	if len(words) == 0 {
		return
	}
	cur, before := words[len(words)-1], words[:len(words)-1]
	if slices.Contains(before, "--") {
		return
	}
	if name, partial, inline := strings.Cut(cur, "="); inline && strings.HasPrefix(cur, "--") {
		writeChoices(w, app, flagNamed(app, name), name+"=", partial)
		return
	}
	if prev := previousFlag(app, before); prev != nil && takesValue(prev) {
		writeChoices(w, app, prev, "", cur)
		return
	}
	if !strings.HasPrefix(cur, "-") {
		return
	}
	for _, f := range app.VisibleFlags() {
		for _, n := range f.Names() {
			word := "--" + n
			if len(n) == 1 {
				word = "-" + n
			}
			if strings.HasPrefix(word, cur) {
				fmt.Fprintln(w, word)
			}
		}
	}
}

// previousFlag is app's flag named by the word before the cursor, or nil.
// bash splits "--format=ts" at the "=", so a lone "=" means the word
// before it.
func previousFlag(app *cli.App, before []string) cli.Flag {
	if len(before) > 1 && before[len(before)-1] == "=" {
		before = before[:len(before)-1]
	}
	if len(before) == 0 {
		return nil
	}
	return flagNamed(app, before[len(before)-1])
}

// flagNamed is app's flag that word ("-f", "--format") names, or nil.
func flagNamed(app *cli.App, word string) cli.Flag {
	if !strings.HasPrefix(word, "-") || strings.Contains(word, "=") {
		return nil
	}
	name := strings.TrimPrefix(strings.TrimPrefix(word, "-"), "-")
	for _, f := range app.Flags {
		if slices.Contains(f.Names(), name) {
			return f
		}
	}
	return nil
}

// takesValue reports whether f takes a value: every flag but a bool.
func takesValue(f cli.Flag) bool {
	_, isBool := f.(*cli.BoolFlag)
	return !isBool
}

// writeChoices writes prefix+value for each choice of flag f (nil: none)
// that begins with partial.
func writeChoices(w io.Writer, app *cli.App, f cli.Flag, prefix, partial string) {
	if f == nil {
		return
	}
	c, _ := app.Metadata[choicesKey].(map[string][]string)
	for _, v := range c[f.Names()[0]] {
		if strings.HasPrefix(v, partial) {
			fmt.Fprintln(w, prefix+v)
		}
	}
}
