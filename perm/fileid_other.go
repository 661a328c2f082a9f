//go:build !linux

package perm

import "os"

// fileID identifies one version of a file. Outside Linux it is not
// known, and configuration files are read on every call.
type fileID struct{ size, mtime, ctime int64 }

func idOf(os.FileInfo) (fileID, bool) { return fileID{}, false }

// openRead opens p for reading, refusing what is not a regular file or
// directory before opening it: opening a FIFO nobody writes to blocks.
func openRead(p string) (*os.File, error) {
	if fi, err := os.Stat(p); err != nil {
		return nil, err
	} else if !fi.Mode().IsRegular() && !fi.IsDir() {
		return nil, errUnbounded
	}
	return os.Open(p)
}

// searchable approximates git's access(p, X_OK) by p being a directory:
// where the two differ, the directory holding p is partly a repository to
// the gate, which judges it both ways (discover).
func searchable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// openListing reports false: elsewhere than on Linux a Resolver looks
// every name up on its own.
func openListing(string) (*os.File, bool) { return nil, false }
