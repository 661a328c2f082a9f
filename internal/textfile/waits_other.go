//go:build !linux

package textfile

import "os"

// Waits reports whether reading f, a regular file, may wait for data: on
// Linux, a kernel pseudo-file such as /proc/kmsg. Elsewhere no regular
// file is known to.
func Waits(f *os.File) bool { return false }
