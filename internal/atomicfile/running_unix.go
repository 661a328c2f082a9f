//go:build unix

package atomicfile

import (
	"errors"

	"golang.org/x/sys/unix"
)

// running reports whether a process with id pid exists (a zombie counts:
// it may not have been reaped yet, so its files are left alone).
func running(pid int) bool {
	err := unix.Kill(pid, 0)
	return err == nil || errors.Is(err, unix.EPERM)
}
