// Command feed: see the package doc of lib/feed and README.md.
package main

import (
	"os"

	"github.com/timbertally/timbertally/lib/feed"
)

func main() { os.Exit(feed.Main()) }
