// Package tally is the tally command: the consumer that buckets the entries
// feed hands it by their own time and appends each sealed bucket once,
// whole, to the tape of a tally store (docs/design.md §5 and §7).
//
//	tally --provision --doc NAME|PATH [--replace] DIR
//	tally --run DIR
//	tally --try --doc NAME|PATH [FILE...]
//	tally --docs
//
// Invariants of --run:
//   - taken is reported as soon as a batch's last byte is read, before its
//     last piece is bucketed, so feed and tally overlap; it never waits for
//     a disk. With a window (feed offered one; tally asks for all of it on
//     every report) taken may be held back until half the window is taken,
//     but never across a read that may block: feed may be waiting for it.
//   - A batch that is not exactly its entries= whole lines stops tally with
//     nothing of it on the tape: the tape is appended after each batch.
//   - offset is reported only once the tape records it relies on are
//     fsynced; fsyncs are batched by a syncer goroutine.
//   - Complete input (end for every store, then EOF) seals everything and
//     appends the end record; interrupted input seals nothing.
//   - On start the tape's recent tail tells what it already accounts for,
//     so a replay from feed's cursor neither re-counts nor loses an entry.
//   - Before anything is written (not even the repair of a torn tail) the
//     store lines are checked against the tape and DIR/bindings: another
//     document, other content at positions the tape holds, a resume
//     position beyond what it accounts for, or a tape shorter than at its
//     last run's end (unless every store replays from 0) is refused, and
//     the refused run changes no file (docs/bindings.md).
//   - The wall clock enters in one place: an entry stamped more than the
//     document's future bound ahead of it is a !drop reason=future.
package tally

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/timbertally/timbertally/lib/internal/tallystore"

	"github.com/timbertally/timbertally/lib/internal/command"
	"github.com/timbertally/timbertally/lib/internal/doc"
	"github.com/urfave/cli/v2"
)

// Main runs the tally command line on os.Args and returns its exit status.
func Main() int {
	app := App()
	err := app.Run(command.Interspersed(app, os.Args))
	switch {
	case err == nil:
		return 0
	case command.IsUsage(err):
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	note("%v", err)
	return 1
}

// note writes a message for humans to stderr.
func note(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "tally: "+format+"\n", args...)
}

// App is tally's command line (Main runs it; docs/man makes its man page).
func App() *cli.App {
	app := command.Conventions(&cli.App{
		Name:  "tally",
		Usage: "bucket log entries by their own time into a tally store's tape",
		UsageText: `tally --provision --doc NAME|PATH [--replace] DIR
   tally --run DIR                  (as feed's consumer: feed STORE... -- tally --run DIR)
   tally --try --doc NAME|PATH [--fields] [FILE...]
   tally --docs [NAME]              (NAME: print that document, a template to copy)`,
		Description: `Exit status: 0 success (for --run: the input ended, complete or interrupted, and
the tape is durable); 1 a runtime error (a damaged tape or document, a store
locked by another --run, I/O); 2 bad usage.

Examples:
   tally --provision --doc apache-combined /var/lib/tally/web
   feed --cursor /var/lib/tally/web.cursor access.log -- tally --run /var/lib/tally/web
   tally --try --doc apache-combined access.log | head
   tally --try --fields --doc nginx-timed access.log | head -40   # what the format cuts, line by line
   tally --docs nginx-timed > web.tally   # a built-in to edit, then --provision --doc web.tally`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "provision", Usage: "make a tally store in DIR from a document"},
			&cli.BoolFlag{Name: "run", Usage: "consume feed's protocol on stdin into the tally store DIR"},
			&cli.BoolFlag{Name: "try", Usage: "bucket raw lines of FILEs (or stdin) in memory and print the tape"},
			&cli.BoolFlag{Name: "docs", Usage: "list the built-in documents; with a NAME, print that one (a template to copy)"},
			&cli.BoolFlag{Name: "fields", Usage: "with --try: print each line's fields as the document's format cuts them, or its !drop reason; for json and logfmt, every key path of the line too"},
			&cli.StringFlag{Name: "doc", Usage: "a built-in document `NAME` or a document PATH"},
			&cli.BoolFlag{Name: "replace", Usage: "with --provision: start a new tape, keeping the old one as tape.replaced.TIME"},
		},
		Action: func(c *cli.Context) error { return action(c, note) },
	})
	return command.Choices(app, "doc", builtinNames()...)
}

func action(c *cli.Context, note func(string, ...any)) error {
	modes := 0
	for _, m := range []string{"provision", "run", "try", "docs"} {
		if c.Bool(m) {
			modes++
		}
	}
	if modes != 1 {
		return command.Usagef("tally: give exactly one of --provision, --run, --try, --docs; see tally --help")
	}
	if c.Bool("fields") && !c.Bool("try") {
		return command.Usagef("tally: --fields goes with --try, e.g. tally --try --fields --doc apache-combined access.log; see tally --help")
	}
	args := c.Args().Slice()
	for _, a := range args {
		if strings.HasPrefix(a, "-") && a != "-" {
			return command.Usagef("tally: there is no option %s (a file of that name is ./%s); see tally --help", a, a)
		}
	}
	switch {
	case c.Bool("docs"):
		return docs(args)
	case c.Bool("try"):
		d, err := needDoc(c)
		if err != nil {
			return err
		}
		if c.Bool("fields") {
			return tryFields(d, args, os.Stdin, os.Stdout)
		}
		return try(d, args, os.Stdin, os.Stdout, note)
	}
	if len(args) != 1 {
		return command.Usagef("tally: name one tally store DIR; see tally --help")
	}
	if c.Bool("run") {
		return run(args[0], os.Stdin, os.Stdout, note)
	}
	d, err := needDoc(c)
	if err != nil {
		return err
	}
	moved, err := tallystore.Provision(args[0], d, c.Bool("replace"), time.Now())
	if moved != "" {
		note("moved the old tape aside to %s; re-derive the new one with feed --reset, the cursor and stores as before: %s", moved, tallystore.RemakeReplaced(args[0], moved).ReplayText())
	}
	return err
}

func needDoc(c *cli.Context) (*doc.Doc, error) {
	if c.String("doc") == "" {
		return nil, command.Usagef("tally: --doc NAME|PATH is required (tally --docs lists the built-in ones); see tally --help")
	}
	d, err := doc.Load(c.String("doc"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, command.Usagef("tally: %v", err)
	}
	return d, err
}

// docs is tally --docs [NAME]: the list, or one document's text as it is
// shipped, to copy and edit.
func docs(args []string) error {
	switch len(args) {
	case 0:
		return listDocs()
	case 1:
		text, ok := doc.BuiltinText(args[0])
		if !ok {
			return command.Usagef("tally: --docs: there is no built-in document %q; the built-in ones are %s (tally --docs lists them with what each measures)", args[0], strings.Join(builtinNames(), ", "))
		}
		_, err := os.Stdout.Write(text)
		return err
	}
	return command.Usagef("tally: --docs takes at most one NAME, not %d; see tally --help", len(args))
}

// builtinNames are the built-in documents' names, sorted.
func builtinNames() []string {
	var names []string
	for _, b := range doc.Builtins() {
		names = append(names, b.Name)
	}
	return names
}

func listDocs() error {
	w := tabwriter.NewWriter(os.Stdout, 0, 8, 2, ' ', 0)
	for _, b := range doc.Builtins() {
		fmt.Fprintf(w, "%s\t%s\n", b.Name, b.Summary)
		if b.Server != "" {
			fmt.Fprintf(w, "\t  server: %s\n", b.Server)
		}
	}
	return w.Flush()
}
