// Command tally: see the package doc of lib/tally and README.md.
package main

import (
	"os"

	"github.com/timbertally/timbertally/lib/tally"
)

func main() { os.Exit(tally.Main()) }
