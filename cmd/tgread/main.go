// Command tgread: see the package doc of lib/read and README.md.
package main

import (
	"os"

	"github.com/timbertally/timbertally/lib/read"
)

func main() { os.Exit(read.Main()) }
