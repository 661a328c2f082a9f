package textfile

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// Waits reports whether reading f, a regular file, may wait for data: a
// kernel pseudo-file (of proc, sysfs, tracefs and the like: kernelFS) the
// poller can wait on, such as /proc/kmsg, which waits for the next kernel
// message forever and takes each message it returns from the kernel log,
// or /proc/self/mounts and sysfs attributes. Such a file is no file gen
// reads, for itself or a model: opened without blocking, a FIFO is
// refused as it opens, but a read of this one still waits. A file of a
// disk or memory file system takes no read deadline; one of a FUSE file
// system (sshfs, virtiofs) may, and is read. A file whose file system
// cannot be told is taken to wait.
func Waits(f *os.File) bool {
	if f.SetReadDeadline(time.Time{}) != nil {
		return false // the poller cannot wait on it
	}
	c, err := f.SyscallConn()
	if err != nil {
		return true
	}
	var st unix.Statfs_t
	var ferr error
	// Control, not Fd: Fd would put f in blocking mode.
	if err := c.Control(func(fd uintptr) { ferr = unix.Fstatfs(int(fd), &st) }); err != nil || ferr != nil {
		return true
	}
	return kernelFS(uint32(st.Type))
}

// kernelFS reports whether magic, a file system's magic number, is that
// of a file system of kernel pseudo-files.
func kernelFS(magic uint32) bool {
	switch magic {
	case unix.PROC_SUPER_MAGIC, unix.SYSFS_MAGIC, unix.DEBUGFS_MAGIC, unix.TRACEFS_MAGIC,
		unix.CGROUP_SUPER_MAGIC, unix.CGROUP2_SUPER_MAGIC, unix.SECURITYFS_MAGIC,
		unix.BPF_FS_MAGIC, unix.PSTOREFS_MAGIC, unix.EFIVARFS_MAGIC:
		return true
	}
	return false
}
