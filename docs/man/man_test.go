// Package man holds the roff man pages of the binaries, made from their
// urfave/cli command lines (the one source of their --help too) by
// urfave/cli's ToManWithSection, which renders with go-md2man. The test
// fails when a committed page is stale, missing or left over, or when a
// binary under cmd/ is not one of lib/toolkit's (toolkit.ManPage renders
// them). Regenerate them with
//
//	go test ./docs/man -update
package man

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/timbertally/timbertally/lib/toolkit"
)

var update = flag.Bool("update", false, "write the man pages instead of comparing them")

func TestEveryBinaryUnderCmdHasAManPage(t *testing.T) {
	dirs, err := os.ReadDir("../../cmd")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if d.IsDir() && !slices.Contains(toolkit.Names(), d.Name()) {
			t.Errorf("cmd/%s is no binary of lib/toolkit: add it to binaries in lib/toolkit/toolkit.go, then run go test ./docs/man -update", d.Name())
		}
	}
}

func TestTheCommittedManPagesAreTheOnesTheCommandLinesMake(t *testing.T) {
	for _, name := range toolkit.Names() {
		file := name + ".1"
		roff, err := toolkit.ManPage(name)
		if err != nil {
			t.Fatal(err)
		}
		want := []byte(roff)
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
		if !slices.Contains(toolkit.Names(), strings.TrimSuffix(p, ".1")) {
			t.Errorf("docs/man/%s is no binary's page: remove it", p)
		}
	}
}
