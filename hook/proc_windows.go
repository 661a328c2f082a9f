package hook

import (
	"os"
	"os/exec"
)

// ownGroup does nothing here: Windows has no process groups to start.
func ownGroup(*exec.Cmd) {}

// killGroup kills p itself (Windows cannot signal a process group; what
// the hook started is not reached).
func killGroup(p *os.Process) { p.Kill() }
