package mcp

import (
	"os"
	"os/exec"
	"syscall"
)

// ownGroup does nothing here: Windows has no process groups to start.
func ownGroup(*exec.Cmd) {}

// signalGroup ends p: Windows cannot signal a process group, and a
// process cannot be asked to terminate, so every signal kills the server
// itself (what it started is not reached).
func signalGroup(p *os.Process, _ syscall.Signal) { p.Kill() }
