//go:build unix

package mcp

import (
	"os"
	"os/exec"
	"syscall"
)

// ownGroup starts cmd in a process group of its own (pgid == pid), still in
// gen's session (see startServer).
func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// signalGroup sends sig to the process group p leads.
func signalGroup(p *os.Process, sig syscall.Signal) { syscall.Kill(-p.Pid, sig) }
