// Command tgsynth: see docs/tgsynth.md and its man page, docs/man/tgsynth.1.
package main

import (
	"os"

	"github.com/timbertally/timbertally/lib/toolkit"
)

func main() { os.Exit(toolkit.Main("tgsynth")) }
