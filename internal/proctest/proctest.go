//go:build unix

// Package proctest helps tests check what became of the processes a
// command, a hook or a server started.
package proctest

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Alive reports whether pid is a live process. A zombie (dead, its exit
// not yet collected) counts as gone.
func Alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		// No /proc here, or the process ended since: ask again.
		return syscall.Kill(pid, 0) == nil
	}
	// The state follows the parenthesised command name.
	s := string(stat)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z'
	}
	return true
}
