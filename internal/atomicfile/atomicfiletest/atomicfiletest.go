// Package atomicfiletest helps the tests of packages that write through
// atomicfile.
package atomicfiletest

import (
	"fmt"
	"os/exec"
	"testing"
)

// DeadTempName returns the name of atomicfile's temporary file for name
// as a writer that has exited would have left it (the name format is
// atomicfile's: .NAME.gen-PID-RANDOM.tmp). It runs a process and waits for
// it, to have the id of one that is gone.
func DeadTempName(t testing.TB, name string) string {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("cannot run a process: %v", err)
	}
	return fmt.Sprintf(".%s.gen-%d-0123456789ab.tmp", name, cmd.Process.Pid)
}
