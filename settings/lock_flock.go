//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package settings

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// lockTimeout bounds how long a writer waits for another one: a stuck
// process holding the lock must not hang this one forever.
const lockTimeout = 10 * time.Second

// lock takes an exclusive flock on path, creating the file if needed, and
// returns the function that releases it. flock locks belong to the open
// file description, so two goroutines of one process exclude each other as
// two processes do.
func lock(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(lockTimeout)
	delay := time.Millisecond
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() {
				syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
				f.Close()
			}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("locking %s: still held by another process after %v", path, lockTimeout)
		}
		time.Sleep(delay)
		delay = min(2*delay, 50*time.Millisecond)
	}
}
