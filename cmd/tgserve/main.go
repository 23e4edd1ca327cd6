// Command tgserve: see the package doc of lib/serve and docs/tgserve.md.
package main

import (
	"os"

	"github.com/timbertally/timbertally/lib/serve"
)

func main() { os.Exit(serve.Main()) }
