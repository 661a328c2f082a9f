//go:build !unix

package atomicfile

import (
	"io/fs"
	"os"
)

// keepOwner does nothing here: there are no owners to give.
func keepOwner(*os.File, fs.FileInfo) {}
