// Package command holds what every command line of the toolkit shares:
// their exit statuses (0 success, 1 a failed check or a runtime error, 2
// bad usage, docs/design.md §7) and how a usage error is told from the rest, and,
// through Conventions, --version, shell completion and the fix for a
// permission error.
//
// Invariants:
//   - Completing a command line (--generate-bash-completion last) never
//     runs the command, whatever the words before it.
//   - A usage error stays one (exit 2) whatever is added to its message.
package command

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"
)

// usageError is a mistake in the command line: exit status 2. Its text is
// the whole message, prefixed with the binary's name.
type usageError struct{ error }

// Usage marks err as a usage error.
func Usage(err error) error { return usageError{err} }

// Usagef formats a usage error.
func Usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// IsUsage reports whether err is, or wraps, a usage error.
func IsUsage(err error) bool {
	var u usageError
	return errors.As(err, &u)
}

// Status prints err, if any, to stderr and returns the exit status it
// means: 0 for none, 2 for a usage error, 1 for any other.
func Status(stderr io.Writer, err error) int {
	switch {
	case err == nil:
		return 0
	case IsUsage(err):
		fmt.Fprintln(stderr, err)
		return 2
	}
	fmt.Fprintln(stderr, err)
	return 1
}

// Conventions makes app report the mistakes its flag parser finds as usage
// errors, "NAME: problem; see NAME --help", and hand every error back from
// Run instead of exiting the process, so that Main picks the status. The
// binaries have no subcommands, so no help command; --version prints
// buildVersion; --generate-bash-completion lists what completes the last word
// for the scripts in deploy/completion (docs/completion.md), and never
// runs the command. Call it on an app whose Action is set.
func Conventions(app *cli.App) *cli.App {
	app.HideHelpCommand = true
	app.Version = buildVersion()
	// urfave/cli's own --version has the alias -v, which reads as
	// "verbose"; no binary has a short form for it.
	cli.VersionFlag = &cli.BoolFlag{Name: "version", Usage: "print the version, VCS revision and build time, and exit", DisableDefaultText: true}
	completion(app)
	app.OnUsageError = func(_ *cli.Context, err error, _ bool) error {
		return Usagef("%s: %v; see %s --help", app.Name, err, app.Name)
	}
	app.ExitErrHandler = func(*cli.Context, error) {}
	return app
}

// Interspersed returns args with the options that follow an operand moved
// before the operands, in order, up to a "--" (after which everything is
// left as it is: feed's consumer and its own options). urfave/cli v2, like
// Go's flag package, stops at the first operand, so "tgread web --format
// tsv" read "--format" and "tsv" as two more tapes; operators write options
// after operands, and GNU tools take them. An option's value is the next
// word unless the option is a bool or the word holds "="; a word that names
// no option of app, a lone "-" (stdin), and a last option that lacks its
// value stay where they are.
func Interspersed(app *cli.App, args []string) []string {
	if len(args) == 0 || args[len(args)-1] == completionFlag {
		return args // the words being completed are as typed
	}
	valued := map[string]bool{"help": false, "h": false, "version": false}
	for _, f := range app.Flags {
		for _, n := range f.Names() {
			valued[n] = takesValue(f)
		}
	}
	opts, operands := []string{args[0]}, []string(nil)
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(append(opts, operands...), args[i:]...)
		}
		name, _, inline := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
		takes, known := valued[name]
		switch {
		case !strings.HasPrefix(a, "-") || a == "-" || !known:
			operands = append(operands, a)
		case takes && !inline && i+1 == len(args):
			operands = append(operands, a) // its value is missing: moved, it would take an operand
		case takes && !inline:
			opts = append(opts, a, args[i+1])
			i++
		default:
			opts = append(opts, a)
		}
	}
	return append(opts, operands...)
}
