// Command tgserve: see docs/tgserve.md and README.md.
package main

import (
	"os"

	"github.com/timbertally/timbertally/lib/toolkit"
)

func main() { os.Exit(toolkit.Main("tgserve")) }
