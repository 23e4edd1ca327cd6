// Command feed: see docs/feed.md and its man page, docs/man/feed.1.
package main

import (
	"os"

	"github.com/timbertally/timbertally/lib/toolkit"
)

func main() { os.Exit(toolkit.Main("feed")) }
