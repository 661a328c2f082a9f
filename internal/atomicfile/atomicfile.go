// Package atomicfile replaces files atomically: readers see the old
// content or the new, never a part, even after a crash, and the temporary
// files of writers that died mid-write are swept up by the next write to
// the same directory.
package atomicfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Write replaces name in dir with data: it writes a temporary file in dir,
// gives it mode, fsyncs it and renames it over name, then syncs dir. All
// names are single components relative to dir's handle, so once dir is
// the right directory nothing can redirect the write. check, if not nil,
// is called with the temporary file before anything is written, and an
// error from it stops the write. The temporary file is removed on any
// failure. Write returns the new file's information, taken after the
// rename (which changes its ctime on most file systems).
//
// A file at name that nobody may write (no write permission bit) is
// refused and left as it is: the rename would replace it whatever its
// mode, where writing it in place would fail, and someone made it
// read-only so that it would not change. The file that replaces an
// existing one gets its owner and group where this process may give them
// (keepOwner): a gen run with sudo must not leave the user a settings
// file of root's that the user's own gen cannot read.
//
// Before writing, Write removes the temporary files that writers which are
// no longer running left in dir (see Sweep).
func Write(dir *os.Root, name string, data []byte, mode fs.FileMode, check func(*os.File) error) (fs.FileInfo, error) {
	old, err := dir.Lstat(name)
	if err != nil || !old.Mode().IsRegular() {
		old = nil
	}
	if old != nil && old.Mode().Perm()&0o222 == 0 {
		return nil, fmt.Errorf("%s is read-only (mode %04o); nothing was written: %w", name, old.Mode().Perm(), fs.ErrPermission)
	}
	Sweep(dir)
	var (
		f   *os.File
		tmp string
	)
	for range 10 {
		tmp = tempName(name)
		f, err = dir.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	fail := func(err error) (fs.FileInfo, error) {
		f.Close()
		dir.Remove(tmp)
		return nil, err
	}
	if check != nil {
		if err := check(f); err != nil {
			return fail(err)
		}
	}
	if old != nil {
		keepOwner(f, old)
	}
	if _, err := f.Write(data); err != nil {
		return fail(err)
	}
	// Chmod on the open file, not by name: the name could be swapped.
	if err := f.Chmod(mode); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := dir.Rename(tmp, name); err != nil {
		return fail(err)
	}
	// The descriptor still names the file now called name.
	fi, err := f.Stat()
	f.Close()
	if err != nil {
		return nil, err
	}
	// Make the rename itself durable. Some file systems refuse to sync
	// directories; the data is safe then, and the write did happen.
	if d, err := dir.Open("."); err == nil {
		d.Sync()
		d.Close()
	}
	return fi, nil
}

// WriteFile is Write for a path: it opens the directory of path and
// replaces the file named by its last element there. A symbolic link at
// path is written through, not replaced (the rename would put a file of
// its own in the link's place, and the dotfiles or shared file it led to
// would never see the write): the file it leads to is replaced, and a
// link to nothing is an error. An existing file keeps its permission
// bits; mode is a new file's.
func WriteFile(path string, data []byte, mode fs.FileMode) error {
	// What is there, links followed, must be a file to replace: a pipe
	// or a terminal (--summary /dev/stdout) is not one, and renaming
	// over a device would replace the device.
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("writing %s: it is not a regular file (mode %s), which a write replaces", path, fi.Mode().Type())
	}
	target, err := filepath.EvalSymlinks(path)
	switch {
	case err == nil:
		if fi, err := os.Stat(target); err == nil {
			mode = fi.Mode().Perm()
		}
	case errors.Is(err, fs.ErrNotExist):
		if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("writing %s: it is a symbolic link to a file that does not exist", path)
		}
		target = path
	default:
		return fmt.Errorf("writing %s: %w", path, err)
	}
	dir, err := os.OpenRoot(filepath.Dir(target))
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer dir.Close()
	if _, err := Write(dir, filepath.Base(target), data, mode, nil); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// Temporary files are named ".NAME.gen-PID-RANDOM.tmp": hidden, next to
// the file they replace, and carrying the writer's process id so that a
// later writer can tell whether their writer is still running.
const (
	tempMark   = ".gen-"
	tempSuffix = ".tmp"
)

// StaleAge is the age after which a temporary file is removed even if its
// process id belongs to a running process: that process may be an unrelated
// one that reused the id, or a writer in another pid namespace; no write
// takes this long.
const StaleAge = 24 * time.Hour

func tempName(name string) string {
	var b [6]byte
	rand.Read(b[:])
	return fmt.Sprintf(".%s%s%d-%s%s", name, tempMark, os.Getpid(), hex.EncodeToString(b[:]), tempSuffix)
}

// tempPID returns the writer's process id encoded in a temporary file's
// name, and whether name is one of Write's temporary files at all.
func tempPID(name string) (int, bool) {
	rest, ok := strings.CutSuffix(name, tempSuffix)
	if !ok || !strings.HasPrefix(rest, ".") {
		return 0, false
	}
	i := strings.LastIndex(rest, tempMark)
	if i < 1 {
		return 0, false
	}
	pid, random, ok := strings.Cut(rest[i+len(tempMark):], "-")
	if !ok || len(random) != 12 {
		return 0, false
	}
	if _, err := hex.DecodeString(random); err != nil {
		return 0, false
	}
	n, err := strconv.Atoi(pid)
	if err != nil || n <= 0 {
		return 0, false
	}
	return n, true
}

// Sweep removes from dir the temporary files of writers that are no
// longer running (a writer killed between creating its temporary file and
// renaming it), and those older than StaleAge. The files of this process
// and of running processes are never touched: they may be writes in
// progress. Errors are ignored; a file left is only untidy.
func Sweep(dir *os.Root) {
	d, err := dir.Open(".")
	if err != nil {
		return
	}
	entries, err := d.ReadDir(-1)
	d.Close()
	if err != nil {
		return
	}
	self := os.Getpid()
	for _, e := range entries {
		pid, ok := tempPID(e.Name())
		if !ok || !e.Type().IsRegular() || pid == self {
			continue
		}
		if running(pid) {
			fi, err := e.Info()
			if err != nil || time.Since(fi.ModTime()) < StaleAge {
				continue
			}
		}
		dir.Remove(e.Name())
	}
}
