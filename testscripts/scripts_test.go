// Package testscripts runs the end-to-end scenarios in this folder: each
// .txtar file is a testscript whose commands feed, tally, tgread, tgcheck
// and synth are the real command lines, run as separate processes.
package testscripts

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/timbertally/timbertally/lib/check"
	"github.com/timbertally/timbertally/lib/feed"
	"github.com/timbertally/timbertally/lib/read"
	"github.com/timbertally/timbertally/lib/synth"
	"github.com/timbertally/timbertally/lib/tally"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"feed":    func() { os.Exit(feed.Main()) },
		"tally":   func() { os.Exit(tally.Main()) },
		"tgread":  func() { os.Exit(read.Main()) },
		"tgcheck": func() { os.Exit(check.Main()) },
		"synth":   func() { os.Exit(synth.Main()) },
	})
}

func TestScenarios(t *testing.T) {
	testscript.Run(t, testscript.Params{Dir: ".", RequireExplicitExec: true})
}
