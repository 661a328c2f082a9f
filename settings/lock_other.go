//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package settings

import (
	"fmt"
	"runtime"
)

// lockDir refuses: without a lock, concurrent writers could lose rules.
func lockDir(dir string) (unlock func(), err error) {
	return nil, fmt.Errorf("locking %s: not supported on %s", dir, runtime.GOOS)
}

// lockDirs refuses, as lockDir does.
func lockDirs(dirs ...string) (unlock func(), err error) {
	return lockDir(dirs[0])
}
