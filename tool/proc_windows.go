package tool

import (
	"os"
	"os/exec"
)

// detach does nothing here: there are no sessions to start.
func detach(*exec.Cmd) {}

// killGroup kills the process pgid (Windows has no process groups to
// signal; its descendants are not reached).
func killGroup(pgid int) {
	if p, err := os.FindProcess(pgid); err == nil {
		p.Kill()
	}
}
