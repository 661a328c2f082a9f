// Package textfile reads the small configuration files gen trusts to
// exist (settings, agent definitions) without letting a hostile one hurt:
// a link to /dev/zero, a FIFO or a huge file is an error, never a hang or
// an exhausted memory.
package textfile

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// Max is the largest configuration file gen reads.
const Max = 1 << 20

// ReadFS reads name from fsys. It must be a regular file (after following
// links) of at most max bytes, both before it is opened and once open. A
// missing file's error satisfies errors.Is(err, fs.ErrNotExist). An fsys
// whose Open blocks on a FIFO (os.DirFS) can still hang on one swapped in
// between: gen's own trees are a DirFS or an os.Root (ReadRoot).
func ReadFS(fsys fs.FS, name string, max int64) ([]byte, error) {
	fi, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, err
	}
	if err := check(fi, max); err != nil {
		return nil, err
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	return readChecked(f, max)
}

// ReadRoot reads name from the tree r under ReadFS's rules, opening it
// without blocking as Read does.
func ReadRoot(r *os.Root, name string, max int64) ([]byte, error) {
	fi, err := r.Stat(name)
	if err != nil {
		return nil, err
	}
	if err := check(fi, max); err != nil {
		return nil, err
	}
	return rootOpen(r, name, max)
}

// rootOpen opens name in r without blocking, checks the file it opened
// and reads it (ReadRoot), as readOpen does for Read.
func rootOpen(r *os.Root, name string, max int64) ([]byte, error) {
	f, err := r.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	return readChecked(f, max)
}

// Read reads the file at path under the same rules as ReadFS. The file
// is checked before it is opened, so that a device is not opened at all,
// and again once open: a regular file swapped for a FIFO between the two
// would block a plain open until a writer came, so it is opened
// non-blocking (which changes nothing for a regular file) and the file
// opened is the one checked.
func Read(path string, max int64) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := check(fi, max); err != nil {
		return nil, err
	}
	return readOpen(path, max)
}

// readOpen opens path without blocking, checks the file it opened and
// reads it (Read).
func readOpen(path string, max int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	return readChecked(f, max)
}

// Open opens the regular file at path for reading, of any size, as Read
// opens one: without blocking, so that a FIFO (or a device) put in its
// place is refused instead of waited on. For a file read as a stream
// (a transcript), where Read's size bound does not apply.
func Open(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	switch {
	case err != nil:
	case !fi.Mode().IsRegular():
		err = fmt.Errorf("%s: not a regular file but %s", path, kind(fi.Mode()))
	case Waits(f):
		err = fmt.Errorf("%s: %w", path, errWaits)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// ReadDir is os.ReadDir (the entries sorted by name) but opens dir
// without blocking: a named pipe put where a directory was, by a command
// between a listing and the next, is an error, not a wait for a writer
// that never comes.
func ReadDir(dir string) ([]os.DirEntry, error) {
	f, err := os.OpenFile(dir, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	slices.SortFunc(entries, func(a, b os.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, err
}

// readChecked checks the file f that was opened, reads it and closes it.
func readChecked(f fs.File, max int64) ([]byte, error) {
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := check(fi, max); err != nil {
		return nil, err
	}
	if of, ok := f.(*os.File); ok && Waits(of) {
		return nil, errWaits
	}
	return readMax(f, max)
}

// errWaits is the error for a regular file that Waits (a type of its own:
// the package allocates nothing at init).
var errWaits error = waitsError{}

type waitsError struct{}

func (waitsError) Error() string {
	return "not a regular file but a kernel file whose reads may wait for data"
}

// DirFS is os.DirFS(dir) but for its Open, which opens without blocking
// (Read), so that a file swapped for a FIFO after ReadFS checked it is
// refused once open instead of waited on. Like os.DirFS it follows links
// out of dir.
type DirFS string

// Open opens name, a slash-separated path below the directory.
func (d DirFS) Open(name string) (fs.File, error) {
	p, err := d.join("open", name)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, rename(err, name)
	}
	return f, nil
}

// Stat returns the FileInfo of name, links followed.
func (d DirFS) Stat(name string) (fs.FileInfo, error) {
	p, err := d.join("stat", name)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(p)
	if err != nil {
		return nil, rename(err, name)
	}
	return fi, nil
}

func (d DirFS) join(op, name string) (string, error) {
	if !fs.ValidPath(name) {
		return "", &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	return filepath.Join(string(d), filepath.FromSlash(name)), nil
}

// rename makes a path error name the path below the directory, as
// os.DirFS's do.
// RootFS is an fs.FS of the directory dir (slash-separated, relative)
// of the tree r, read as DirFS reads: opened without blocking. Through
// r, no name (a symbolic link included, whenever it is swapped in) leads
// out of the tree: such a name is an error. It is safe for concurrent
// use, and as long as r is open.
type RootFS struct {
	R   *os.Root
	Dir string
}

func (d RootFS) Open(name string) (fs.File, error) {
	p, err := d.join("open", name)
	if err != nil {
		return nil, err
	}
	f, err := d.R.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, d.outside(rename(err, name), p)
	}
	return f, nil
}

func (d RootFS) Stat(name string) (fs.FileInfo, error) {
	p, err := d.join("stat", name)
	if err != nil {
		return nil, err
	}
	fi, err := d.R.Stat(p)
	if err != nil {
		return nil, d.outside(rename(err, name), p)
	}
	return fi, nil
}

// outside is err, the error of p in the tree, or, when p is a link that
// leads out of the tree (which the tree refuses with "path escapes from
// parent"), an error saying where it leads.
func (d RootFS) outside(err error, p string) error {
	tree := d.R.Name()
	real, lerr := filepath.EvalSymlinks(filepath.Join(tree, p))
	if lerr != nil {
		return err
	}
	if rel, rerr := filepath.Rel(tree, real); rerr == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
		return err
	}
	return fmt.Errorf("%s is a link to %s, outside %s", filepath.Join(tree, p), real, tree)
}

func (d RootFS) join(op, name string) (string, error) {
	if !fs.ValidPath(name) {
		return "", &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	return filepath.FromSlash(path.Join(d.Dir, name)), nil
}

func rename(err error, name string) error {
	if pe, ok := err.(*fs.PathError); ok {
		pe.Path = name
	}
	return err
}

func check(fi fs.FileInfo, max int64) error {
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("not a regular file but %s", kind(fi.Mode()))
	}
	if fi.Size() > max {
		return fmt.Errorf("%d bytes, over the %d-byte limit", fi.Size(), max)
	}
	return nil
}

// readMax reads at most max bytes; more is an error (the file grew).
func readMax(r io.Reader, max int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("over the %d-byte limit", max)
	}
	return data, nil
}

func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}
