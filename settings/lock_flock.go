//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package settings

import (
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gen-run/gen/internal/lazy"
)

// inProcess admits one writer of this process at a time to the flock, so
// the goroutines of one process queue on a channel (in order) instead of
// all contending for the kernel lock with the writers of other processes.
var inProcess = lazy.Value[chan struct{}]{New: func() chan struct{} {
	return make(chan struct{}, 1)
}}

// lockDir takes an exclusive flock on the directory dir itself, and
// returns the function that releases it. Locking the directory, not the
// settings file, matters: the atomic rename replaces the file's inode, so
// a lock on the file would not exclude a writer who opened the new one;
// and no lock file is left next to the settings. flock locks belong to the
// open file description, so two goroutines of one process would exclude
// each other too. A missing dir is an error wrapping fs.ErrNotExist.
func lockDir(dir string) (unlock func(), err error) {
	return lockDirs(dir)
}

// lockDirs locks each of dirs as lockDir does, in the order given, as one
// writer of this process: a writer that needs two directories (a project
// settings file and the user settings that record its trust) takes them
// in one step. Every writer that takes more than one takes them in the
// same order (project, then user), so two writers cannot each hold what
// the other waits for. A directory given twice (by another name) is
// locked once.
func lockDirs(dirs ...string) (unlock func(), err error) {
	timer := time.NewTimer(lockTimeout)
	defer timer.Stop()
	select {
	case inProcess.Get() <- struct{}{}:
	case <-timer.C:
		return nil, fmt.Errorf("locking %s: another writer in this process held the lock for %v", dirs[0], lockTimeout)
	}
	var held []*os.File
	release := func() {
		for i := len(held) - 1; i >= 0; i-- {
			unix.Flock(int(held[i].Fd()), unix.LOCK_UN)
			held[i].Close()
		}
		<-inProcess.Get()
	}
	for _, dir := range dirs {
		// O_DIRECTORY: a named pipe where the directory should be is
		// refused at once, not waited on for a writer with the lock held.
		d, err := os.OpenFile(dir, os.O_RDONLY|unix.O_DIRECTORY, 0)
		if err != nil {
			release()
			return nil, err
		}
		if isHeld(d, held) {
			d.Close()
			continue
		}
		if err := flock(d, dir, timer); err != nil {
			release()
			return nil, err
		}
		held = append(held, d)
	}
	return release, nil
}

// isHeld reports whether d is the same directory as one of held.
func isHeld(d *os.File, held []*os.File) bool {
	fi, err := d.Stat()
	if err != nil {
		return false
	}
	for _, h := range held {
		if hi, err := h.Stat(); err == nil && os.SameFile(fi, hi) {
			return true
		}
	}
	return false
}

// flock takes an exclusive flock on the open directory d (named dir in
// errors), waiting until timer fires. On error d is closed.
func flock(d *os.File, dir string, timer *time.Timer) error {
	fd := int(d.Fd())
	locked := make(chan error, 1)
	go func() {
		for {
			err := unix.Flock(fd, unix.LOCK_EX)
			if !errors.Is(err, unix.EINTR) {
				locked <- err
				return
			}
		}
	}()
	select {
	case err := <-locked:
		if err != nil {
			d.Close()
			return fmt.Errorf("locking %s: %w", dir, err)
		}
		return nil
	case <-timer.C:
		// The blocked flock cannot be interrupted; whoever gets the lock
		// for it gives it back at once.
		go func() {
			if err := <-locked; err == nil {
				unix.Flock(fd, unix.LOCK_UN)
			}
			d.Close()
		}()
		return fmt.Errorf("locking %s: still held by another process after %v", dir, lockTimeout)
	}
}
