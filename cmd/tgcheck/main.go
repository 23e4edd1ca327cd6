// Command tgcheck: see docs/tgcheck.md and its man page, docs/man/tgcheck.1.
package main

import (
	"os"

	"github.com/timbertally/timbertally/lib/toolkit"
)

func main() { os.Exit(toolkit.Main("tgcheck")) }
