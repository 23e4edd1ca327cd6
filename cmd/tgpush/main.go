// Command tgpush: see the package doc of lib/push and docs/tgpush.md.
package main

import (
	"os"

	"github.com/timbertally/timbertally/lib/push"
)

func main() { os.Exit(push.Main()) }
