// Command tgsynth: see the package doc of lib/synth and docs/tgsynth.md.
package main

import (
	"os"

	"github.com/timbertally/timbertally/lib/synth"
)

func main() { os.Exit(synth.Main()) }
