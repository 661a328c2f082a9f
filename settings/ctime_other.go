//go:build !linux

package settings

import "io/fs"

// changeTime is 0 where gen does not read the inode change time: stamps
// compare the modification time, size, mode and identity.
func changeTime(fs.FileInfo) int64 { return 0 }
