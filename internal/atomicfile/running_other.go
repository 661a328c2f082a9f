//go:build !unix

package atomicfile

// running cannot tell here, so every writer counts as running and only
// files older than StaleAge are swept.
func running(pid int) bool { return true }
