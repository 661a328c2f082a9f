//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package batch

import "os"

// tryLock does nothing where there is no flock: two batches given one
// result file are not kept apart there.
func tryLock(*os.File) error { return nil }
