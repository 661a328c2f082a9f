//go:build !linux

package tool

import "github.com/gen-run/gen/sandbox"

// startCommand starts cmd.
func startCommand(cmd *sandbox.Cmd) error { return cmd.Start() }

// endCommand has no process tree to search here: the process group and
// the environment marker are all Bash can reach.
func endCommand(int) {}
