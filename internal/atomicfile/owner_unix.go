//go:build unix

package atomicfile

import (
	"io/fs"
	"os"
	"syscall"
)

// keepOwner gives f the owner and group of the file old describes. Only
// root may give a file away, and others only to a group they are in; what
// is refused is left as it is (the writer's own), as writing in place
// would have been refused before anything was written.
func keepOwner(f *os.File, old fs.FileInfo) {
	if st, ok := old.Sys().(*syscall.Stat_t); ok {
		f.Chown(int(st.Uid), int(st.Gid))
	}
}
