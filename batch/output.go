package batch

import (
	"errors"
	"fmt"
	"os"
)

// ErrBusy is returned by OpenOutput when another gen agent batch has the
// result file open.
var ErrBusy = errors.New("another gen agent batch is writing it")

// OpenOutput opens the result file path for appending, holding a lock on
// it for as long as the file stays open, so that two batches never write
// one result file: both would run every task, and a --resume that
// rewrites the file (Resume) would make the other's later lines go to the
// file it replaced. The lock is taken without waiting; a file another
// batch holds is ErrBusy. Without resume an existing non-empty file is
// refused rather than added to: it holds results that cost model time.
// With resume it returns the ids already done (Resume). On platforms
// without flock there is no lock.
func OpenOutput(path string, resume bool) (*os.File, map[string]bool, error) {
	f, err := openLocked(path)
	if err != nil {
		return nil, nil, err
	}
	done := map[string]bool{}
	if !resume {
		if fi, err := f.Stat(); err == nil && fi.Size() > 0 {
			f.Close()
			return nil, nil, fmt.Errorf("--output %s already holds results: pass --resume to continue it, or remove it", path)
		}
		return f, done, nil
	}
	if done, err = Resume(path); err != nil {
		f.Close()
		return nil, nil, err
	}
	if !names(path, f) {
		// Resume replaced the file: lock the new one. Another batch
		// may have taken it in between; it then holds a whole file.
		g, err := openLocked(path)
		f.Close()
		if err != nil {
			return nil, nil, err
		}
		f = g
	}
	return f, done, nil
}

// openLocked opens path for appending and locks it, and makes sure the
// locked file is still the one path names: a batch's Resume may have
// replaced it between the open and the lock. What is not a regular file
// (/dev/null, a pipe) is not locked: any number may write there.
func openLocked(path string) (*os.File, error) {
	for range 10 {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return nil, fmt.Errorf("--output: %w", err)
		}
		if fi, err := f.Stat(); err == nil && !fi.Mode().IsRegular() {
			return f, nil
		}
		if err := tryLock(f); err != nil {
			f.Close()
			return nil, fmt.Errorf("--output %s: %w", path, err)
		}
		if names(path, f) {
			return f, nil
		}
		f.Close()
	}
	return nil, fmt.Errorf("--output %s: %w (it keeps being replaced)", path, ErrBusy)
}

// names reports whether path names the open file f.
func names(path string, f *os.File) bool {
	a, err1 := os.Stat(path)
	b, err2 := f.Stat()
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}
