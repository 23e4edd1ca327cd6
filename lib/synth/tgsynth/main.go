// Command tgsynth writes deterministic Apache combined lines for the
// benchmark script and demos: go run ./lib/synth/tgsynth -n 500000 > access.log
package main

import (
	"os"

	"github.com/timbertally/timbertally/lib/synth"
)

func main() { os.Exit(synth.Main()) }
