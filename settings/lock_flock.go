//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package settings

import (
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// lockTimeout bounds how long a writer waits for the others: a stuck
// process holding the lock must not hang this one forever. Waiting is
// blocking, not polled, so under contention it is a queue, and the bound
// is only reached when a holder is stuck.
const lockTimeout = 30 * time.Second

// inProcess admits one writer of this process at a time to the flock, so
// the goroutines of one process queue on a channel (in order) instead of
// all contending for the kernel lock with the writers of other processes.
var inProcess = make(chan struct{}, 1)

// lockDir takes an exclusive flock on the directory dir itself, and
// returns the function that releases it. Locking the directory, not the
// settings file, matters: the atomic rename replaces the file's inode, so
// a lock on the file would not exclude a writer who opened the new one;
// and no lock file is left next to the settings. flock locks belong to the
// open file description, so two goroutines of one process would exclude
// each other too. A missing dir is an error wrapping fs.ErrNotExist.
func lockDir(dir string) (unlock func(), err error) {
	timer := time.NewTimer(lockTimeout)
	defer timer.Stop()
	select {
	case inProcess <- struct{}{}:
	case <-timer.C:
		return nil, fmt.Errorf("locking %s: another writer in this process held the lock for %v", dir, lockTimeout)
	}
	release := func() { <-inProcess }
	d, err := os.Open(dir)
	if err != nil {
		release()
		return nil, err
	}
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
			release()
			return nil, fmt.Errorf("locking %s: %w", dir, err)
		}
		return func() {
			unix.Flock(fd, unix.LOCK_UN)
			d.Close()
			release()
		}, nil
	case <-timer.C:
		// The blocked flock cannot be interrupted; whoever gets the lock
		// for it gives it back at once.
		go func() {
			if err := <-locked; err == nil {
				unix.Flock(fd, unix.LOCK_UN)
			}
			d.Close()
			release()
		}()
		return nil, fmt.Errorf("locking %s: still held by another process after %v", dir, lockTimeout)
	}
}
