// Package command holds what the four command lines share: their exit
// statuses (0 success, 1 a failed check or a runtime error, 2 bad usage,
// SPEC §7) and how a usage error is told from the rest.
package command

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"
)

// UsageError is a mistake in the command line: exit status 2. Its text is
// the whole message, prefixed with the binary's name.
type UsageError struct{ error }

// Usage marks err as a usage error.
func Usage(err error) error { return UsageError{err} }

// Usagef formats a usage error.
func Usagef(format string, args ...any) error { return UsageError{fmt.Errorf(format, args...)} }

// IsUsage reports whether err is, or wraps, a usage error.
func IsUsage(err error) bool {
	var u UsageError
	return errors.As(err, &u)
}

// Conventions makes app report the mistakes its flag parser finds as usage
// errors, "NAME: problem; see NAME --help", and hand every error back from
// Run instead of exiting the process, so that Main picks the status. The
// binaries have no subcommands, so no help command; --generate-bash-completion
// lists their flags for the scripts in deploy/completion (docs/completion.md).
func Conventions(app *cli.App) *cli.App {
	app.HideHelpCommand = true
	app.EnableBashCompletion = true
	app.OnUsageError = func(_ *cli.Context, err error, _ bool) error {
		return Usagef("%s: %v; see %s --help", app.Name, err, app.Name)
	}
	app.ExitErrHandler = func(*cli.Context, error) {}
	return app
}
