// Package sandboxtest makes a test binary serve as gen's sandbox helper,
// as the gen binary does (cmd/gen): the Bash tool re-executes its own
// executable with sandbox.HelperArg, and a test binary that did not
// dispatch it would run its tests again instead. Every test binary whose
// tests run Bash calls Main (or Dispatch first thing in its own TestMain).
package sandboxtest

import (
	"os"
	"testing"

	"github.com/gen-run/gen/sandbox"
)

// Dispatch runs the sandbox helper and exits when the process was started
// as one; otherwise it returns.
func Dispatch() {
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperArg {
		os.Exit(sandbox.HelperMain(os.Args[2:]))
	}
}

// Main is a TestMain: Dispatch, then the tests.
func Main(m *testing.M) {
	Dispatch()
	os.Exit(m.Run())
}
