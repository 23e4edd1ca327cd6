// Package man holds the roff man pages of the binaries, made from their
// urfave/cli command lines (the one source of their --help too) by
// urfave/cli's ToManWithSection, which renders with go-md2man. The test
// fails when a committed page is stale, missing or left over, or when a
// binary under cmd/ has no entry below. Regenerate them with
//
//	go test ./docs/man -update
package man

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/timbertally/timbertally/lib/check"
	"github.com/timbertally/timbertally/lib/feed"
	"github.com/timbertally/timbertally/lib/push"
	"github.com/timbertally/timbertally/lib/read"
	"github.com/timbertally/timbertally/lib/serve"
	"github.com/timbertally/timbertally/lib/synth"
	"github.com/timbertally/timbertally/lib/tally"
	"github.com/urfave/cli/v2"
)

// binaries are the command lines of the binaries under cmd/, by name: one
// line a binary.
var binaries = map[string]func() *cli.App{
	"feed":    feed.App,
	"tally":   tally.App,
	"tgread":  read.App,
	"tgcheck": check.App,
	"tgsynth": synth.App,
	"tgpush":  push.App,
	"tgserve": serve.App,
}

var update = flag.Bool("update", false, "write the man pages instead of comparing them")

// page renders the man page of a binary, in section 1. The version (which
// differs from build to build) is left out.
func page(t *testing.T, app *cli.App) []byte {
	t.Helper()
	app.Version = ""
	app.Description = examplesAsCode(app.Description)
	roff, err := app.ToManWithSection(1)
	if err != nil {
		t.Fatal(err)
	}
	return []byte(roff)
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

func TestEveryBinaryUnderCmdHasAManPage(t *testing.T) {
	dirs, err := os.ReadDir("../../cmd")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if _, ok := binaries[d.Name()]; d.IsDir() && !ok {
			t.Errorf("cmd/%s has no man page: add its App to binaries in docs/man/man_test.go, then run go test ./docs/man -update", d.Name())
		}
	}
}

func TestTheCommittedManPagesAreTheOnesTheCommandLinesMake(t *testing.T) {
	for name, app := range binaries {
		file := name + ".1"
		want := page(t, app())
		if *update {
			if err := os.WriteFile(file, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(file)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("docs/man/%s is stale or missing (the command line changed): run go test ./docs/man -update and commit it", file)
		}
	}
	pages, _ := filepath.Glob("*.1")
	for _, p := range pages {
		if _, ok := binaries[strings.TrimSuffix(p, ".1")]; !ok {
			t.Errorf("docs/man/%s is no binary's page: remove it", p)
		}
	}
}
