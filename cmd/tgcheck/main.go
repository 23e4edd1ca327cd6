// Command tgcheck: see the package doc of lib/check and README.md.
package main

import (
	"os"

	"github.com/timbertally/timbertally/lib/check"
)

func main() { os.Exit(check.Main()) }
