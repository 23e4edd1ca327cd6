// Package toolkit gives timbertally's binaries as functions, for the
// one-line mains under cmd/ and for programs that run the toolkit
// in-process: feed, tally, tgread, tgcheck, tgpush, tgserve and tgsynth.
//
// It is, with [github.com/timbertally/timbertally/lib/protocol], the
// public API of the module: everything else under lib/ is the toolkit's
// own and may change between releases. A consumer author's scenarios drive
// the real binaries through [Commands] and the scenario commands of
// [github.com/timbertally/timbertally/lib/toolkit/scenario]:
//
//	func TestMain(m *testing.M) { testscript.Main(m, toolkit.Commands()) }
//
//	func TestScenarios(t *testing.T) {
//		testscript.Run(t, testscript.Params{Dir: "testdata", Cmds: scenario.Commands()})
//	}
//
// Invariants:
//   - [Names] lists every binary under cmd/, and nothing else; [Main],
//     [Commands] and [ManPage] know exactly those names.
//   - A binary run by [Main] reads os.Args (os.Args[0] is not looked at),
//     its standard streams and its environment, as the installed binary
//     does, and returns the exit status the installed binary exits with.
//   - Nothing here links a testing package: the binaries import it.
package toolkit

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/timbertally/timbertally/lib/internal/check"
	"github.com/timbertally/timbertally/lib/internal/feed"
	"github.com/timbertally/timbertally/lib/internal/push"
	"github.com/timbertally/timbertally/lib/internal/read"
	"github.com/timbertally/timbertally/lib/internal/serve"
	"github.com/timbertally/timbertally/lib/internal/synth"
	"github.com/timbertally/timbertally/lib/internal/tally"
	"github.com/urfave/cli/v2"
)

// binary is one of the toolkit's binaries: its command line's run and its
// command line itself, for its man page.
type binary struct {
	main func() int
	app  func() *cli.App
}

// binaries are the toolkit's binaries by name, one line each.
var binaries = map[string]binary{
	"feed":    {feed.Main, feed.App},
	"tally":   {tally.Main, tally.App},
	"tgread":  {read.Main, read.App},
	"tgcheck": {check.Main, check.App},
	"tgpush":  {push.Main, push.App},
	"tgserve": {serve.Main, serve.App},
	"tgsynth": {synth.Main, synth.App},
}

// Names is the names of the toolkit's binaries, sorted.
func Names() []string {
	names := make([]string, 0, len(binaries))
	for n := range binaries {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Main runs the binary name on os.Args and returns its exit status. An
// unknown name is a usage error: exit status 2, with a message naming the
// binaries there are.
func Main(name string) int {
	b, ok := binaries[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "toolkit: no binary %q: the binaries are %s\n", name, strings.Join(Names(), ", "))
		return 2
	}
	return b.main()
}

// Commands gives each binary by name as a function that runs it on
// os.Args and exits with its status: the map testscript.Main takes, so
// that a scenario's "exec feed ..." runs the toolkit in the test binary
// itself (no build, no PATH set up by hand).
func Commands() map[string]func() {
	cmds := make(map[string]func(), len(binaries))
	for name, b := range binaries {
		cmds[name] = func() { os.Exit(b.main()) }
	}
	return cmds
}

// ManPage is the roff man page of the binary name, in section 1, made from
// its command line (the one source of its --help too). The version, which
// differs from build to build, is left out, and the lines its description
// indents by three spaces (examples, a usage) are kept as typed.
func ManPage(name string) (string, error) {
	b, ok := binaries[name]
	if !ok {
		return "", fmt.Errorf("toolkit: no binary %q: the binaries are %s", name, strings.Join(Names(), ", "))
	}
	app := b.app()
	app.Version = ""
	app.Description = examplesAsCode(app.Description)
	return app.ToManWithSection(1)
}

// examplesAsCode turns the lines of a description that --help shows
// indented by three spaces (examples, a usage) into a markdown code block,
// which md2man keeps as typed instead of filling them into the paragraph.
func examplesAsCode(desc string) string {
	var b strings.Builder
	inCode := false
	for line := range strings.Lines(desc) {
		code := strings.HasPrefix(line, "   ")
		if code && !inCode {
			b.WriteString("\n")
		}
		if code {
			b.WriteString(" ")
		}
		b.WriteString(line)
		inCode = code
	}
	return b.String()
}
