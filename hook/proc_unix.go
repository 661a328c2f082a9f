//go:build unix

package hook

import (
	"os"
	"os/exec"
	"syscall"
)

// ownGroup starts cmd in a process group of its own (pgid == pid).
func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// killGroup kills the process group p leads.
func killGroup(p *os.Process) { syscall.Kill(-p.Pid, syscall.SIGKILL) }
