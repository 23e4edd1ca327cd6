// Package testscripts runs the end-to-end scenarios in this folder: each
// .txtar file is a testscript whose commands feed, tally, tgread, tgcheck,
// tgpush and tgsynth are the real command lines (lib/toolkit's), run as
// separate processes.
//
// Besides testscript's own commands, a scenario has the scenario commands
// of lib/toolkit/scenario (waitfor), so that it polls for a condition
// instead of sleeping. The Go tests here import only lib/protocol and
// lib/toolkit, as a consumer author's would: they run the binaries and
// check what they wrote with their own code.
package testscripts

import (
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/timbertally/timbertally/lib/toolkit"
	"github.com/timbertally/timbertally/lib/toolkit/scenario"
)

func TestMain(m *testing.M) {
	testscript.Main(m, toolkit.Commands())
}

func TestScenarios(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 ".",
		RequireExplicitExec: true,
		Cmds:                scenario.Commands(),
	})
}
