package tool

import (
	"io/fs"
	"syscall"
	"time"
)

// changeID returns fi's change time, device and inode.
func changeID(fi fs.FileInfo) (ctime time.Time, dev, ino uint64) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return time.Time{}, 0, 0
	}
	return time.Unix(st.Ctim.Unix()), st.Dev, st.Ino
}
