// Command gen runs LLM agents whose every tool call passes one permission
// gate. See the README for usage.
package main

import (
	"os"

	"github.com/gen-run/gen/cli"
)

func main() { os.Exit(cli.Main()) }
