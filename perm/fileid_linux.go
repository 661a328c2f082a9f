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

// searchable reports what git's access(p, X_OK) reports (is_git_directory
// asks it of objects and refs): a directory this process may search, or
// a file it may run.
func searchable(p string) bool { return syscall.Access(p, 1) == nil }

// openListing opens the directory dir for a Resolver's listing (listDir),
// and reports false unless it is on a file system whose directory listing
// names every entry lstat finds: a disk or memory file system, not /proc
// (which lists no thread), autofs or FUSE.
func openListing(dir string) (*os.File, bool) {
	f, err := os.OpenFile(dir, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, false
	}
	var st syscall.Statfs_t
	if err := syscall.Fstatfs(int(f.Fd()), &st); err != nil || !listedFS(uint32(st.Type)) {
		f.Close()
		return nil, false
	}
	return f, true
}

// listedFS reports the file systems openListing accepts, by statfs magic.
func listedFS(magic uint32) bool {
	switch magic {
	case 0xEF53, // ext2, ext3, ext4
		0x58465342, // xfs
		0x9123683E, // btrfs
		0x01021994, // tmpfs
		0x794C7630: // overlayfs
		return true
	}
	return false
}
