//go:build unix

package tool

import (
	"os/exec"
	"syscall"
)

// detach starts cmd in a session of its own: Setsid rather than Setpgid,
// since it also puts the child in its own process group (pgid == pid) and
// detaches it from any controlling terminal.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}

// killGroup kills process group pgid.
func killGroup(pgid int) { syscall.Kill(-pgid, syscall.SIGKILL) }
