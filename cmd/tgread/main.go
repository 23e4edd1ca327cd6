// Command tgread: see docs/tgread.md and its man page, docs/man/tgread.1.
package main

import (
	"os"

	"github.com/timbertally/timbertally/lib/toolkit"
)

func main() { os.Exit(toolkit.Main("tgread")) }
