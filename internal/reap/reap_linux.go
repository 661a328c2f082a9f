package reap

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Group waits until process group pgid, which was sent SIGKILL after its
// leader was reaped, has no member left, reaping the members that were
// re-parented to gen; it gives up after about a second (a member stuck in
// the kernel). It does nothing unless gen is a child subreaper: otherwise
// such members go to init.
func Group(pgid int) {
	var on int32
	if unix.Prctl(unix.PR_GET_CHILD_SUBREAPER, uintptr(unsafe.Pointer(&on)), 0, 0, 0) != nil || on == 0 {
		return
	}
	self := os.Getpid()
	for range 1000 {
		left := false
		for _, p := range Procs() {
			if p.PGID != pgid {
				continue
			}
			left = true
			if p.PPID == self {
				unix.Wait4(p.PID, nil, unix.WNOHANG, nil)
			}
		}
		if !left {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// Proc is one process as /proc/PID/stat shows it.
type Proc struct {
	PID, PPID, PGID, SID int
	Zombie               bool
}

// Procs lists every process.
func Procs() []Proc {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []Proc
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp session ...; comm may hold spaces
		// and parentheses, so parse after its last ')'.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 4 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		pgid, _ := strconv.Atoi(f[2])
		sid, _ := strconv.Atoi(f[3])
		out = append(out, Proc{PID: pid, PPID: ppid, PGID: pgid, SID: sid, Zombie: f[0] == "Z"})
	}
	return out
}
