//go:build unix

package cli

import "golang.org/x/sys/unix"

// outputGone reports whether gen's stdout or stderr is a pipe or socket
// whose reader went away.
func outputGone() bool { return readerGone(1, 2) }

// readerGone reports whether any of fds is a pipe or socket with no
// reader left: poll reports an error or a hang-up on it.
func readerGone(fds ...int) bool {
	ps := make([]unix.PollFd, len(fds))
	for i, fd := range fds {
		ps[i] = unix.PollFd{Fd: int32(fd)}
	}
	for {
		n, err := unix.Poll(ps, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n == 0 {
			return false
		}
		break
	}
	for _, p := range ps {
		if p.Revents&(unix.POLLERR|unix.POLLHUP) != 0 {
			return true
		}
	}
	return false
}
