//go:build linux

package sandbox

import "golang.org/x/sys/unix"

// nativeMetadata is the native ABI's metadata calls by x/sys's names, to
// check the hand-kept numbers of socketArches against (TestNativeSysnums).
var nativeMetadata = []uint32{
	unix.SYS_TRUNCATE, unix.SYS_CHMOD, unix.SYS_FCHMOD, unix.SYS_CHOWN, unix.SYS_FCHOWN, unix.SYS_LCHOWN,
	unix.SYS_UTIME, unix.SYS_SETXATTR, unix.SYS_LSETXATTR, unix.SYS_FSETXATTR, unix.SYS_REMOVEXATTR,
	unix.SYS_LREMOVEXATTR, unix.SYS_FREMOVEXATTR, unix.SYS_UTIMES, unix.SYS_FCHOWNAT, unix.SYS_FUTIMESAT,
	unix.SYS_FCHMODAT, unix.SYS_UTIMENSAT, unix.SYS_FCHMODAT2, unix.SYS_SETXATTRAT, unix.SYS_REMOVEXATTRAT,
}

var nativeSocket, nativeIoUringSetup uint32 = unix.SYS_SOCKET, unix.SYS_IO_URING_SETUP
