//go:build unix

package mcp

import (
	"os"
	"os/exec"
	"syscall"
)

// ownSession starts cmd in a session of its own: the server is its own
// process group (pgid == pid) and has no controlling terminal, so a Ctrl+C
// meant for gen does not reach it and it cannot read the user's keystrokes.
func ownSession(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }

// signalGroup sends sig to the process group p leads.
func signalGroup(p *os.Process, sig syscall.Signal) { syscall.Kill(-p.Pid, sig) }
