// Command gen runs LLM agents whose every tool call passes one permission
// gate. See the README for usage.
package main

import (
	"os"

	"github.com/gen-run/gen/cli"
	"github.com/gen-run/gen/sandbox"
)

func main() {
	// The sandbox helper runs before anything else: it confines itself
	// and execs the command.
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperArg {
		os.Exit(sandbox.HelperMain(os.Args[2:]))
	}
	os.Exit(cli.Main())
}
