// Command tgpush: see docs/tgpush.md and its man page, docs/man/tgpush.1.
package main

import (
	"os"

	"github.com/timbertally/timbertally/lib/toolkit"
)

func main() { os.Exit(toolkit.Main("tgpush")) }
