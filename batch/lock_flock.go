//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package batch

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// tryLock takes an exclusive flock on f without waiting; it is released
// when f is closed (or the process dies, however it dies). A lock another
// open file holds is ErrBusy.
func tryLock(f *os.File) error {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.EWOULDBLOCK):
			return ErrBusy
		}
		return err
	}
}
