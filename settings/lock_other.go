//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package settings

import (
	"fmt"
	"runtime"
)

// lock refuses: without a lock, concurrent writers could lose rules.
func lock(path string) (unlock func(), err error) {
	return nil, fmt.Errorf("locking %s: not supported on %s", path, runtime.GOOS)
}
