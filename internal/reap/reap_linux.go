package reap

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Group waits until process group pgid, which was sent SIGKILL after its
// leader was reaped, has no member left, reaping the members that were
// re-parented to gen (settle). It does nothing unless gen is a child
// subreaper: otherwise such members go to init.
func Group(pgid int) {
	var on int32
	if unix.Prctl(unix.PR_GET_CHILD_SUBREAPER, uintptr(unsafe.Pointer(&on)), 0, 0, 0) != nil || on == 0 {
		return
	}
	settle(func(p Proc) bool { return p.PGID == pgid })
}

// settle waits until no process matches, reaping those that are gen's
// children; a zombie another process is to reap is not waited for. It
// gives up after about a second (a process stuck in the kernel).
func settle(match func(Proc) bool) {
	self := os.Getpid()
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); {
		left := false
		for _, p := range Procs() {
			if !match(p) || p.Zombie && p.PPID != self {
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

// Marked kills every process whose environment holds marker (NAME=VALUE,
// see Marker): the descendants of a command that escaped its process
// group by starting a session of their own. One that also cleared its
// environment is not found. Those re-parented to gen are reaped (settle).
func Marked(marker string) {
	needle := []byte("\x00" + marker + "\x00")
	killed := map[int]bool{}
	for range 3 { // a dying parent may still fork: sweep until none is left
		entries, err := os.ReadDir("/proc")
		if err != nil {
			break
		}
		found := false
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil || pid == os.Getpid() {
				continue
			}
			env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
			if err != nil || !bytes.Contains(append([]byte{0}, env...), needle) {
				continue
			}
			syscall.Kill(pid, syscall.SIGKILL)
			killed[pid] = true
			found = true
		}
		if !found {
			break
		}
	}
	if len(killed) > 0 {
		settle(func(p Proc) bool { return killed[p.PID] })
	}
}
