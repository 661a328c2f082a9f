package perm

import (
	"os"
	"syscall"
)

// fileID identifies one version of a file: a write changes its size or
// its modification time, and any change (a rename over it, chmod) its
// change time.
type fileID struct {
	dev, ino     uint64
	size         int64
	mtime, ctime int64 // nanoseconds
}

// idOf returns the identity of the file fi describes.
func idOf(fi os.FileInfo) (fileID, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, false
	}
	return fileID{dev: st.Dev, ino: st.Ino, size: st.Size, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano()}, true
}

// openRead opens p for reading without waiting: opening a FIFO nobody
// writes to would otherwise block.
func openRead(p string) (*os.File, error) {
	return os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
