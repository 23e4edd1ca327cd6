// Command tally: see docs/tally.md and its man page, docs/man/tally.1.
package main

import (
	"os"

	"github.com/timbertally/timbertally/lib/toolkit"
)

func main() { os.Exit(toolkit.Main("tally")) }
