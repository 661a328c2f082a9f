package tool

import (
	"errors"
	"os"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gen-run/gen/internal/reap"
	"github.com/gen-run/gen/sandbox"
)

// Linux: gen makes itself a child subreaper (PR_SET_CHILD_SUBREAPER), so a
// process whose parent dies is re-parented to gen instead of to init, even
// when it started a session of its own and cleared its environment
// (`setsid env -i daemon &`, double forks). When a Bash call ends, every
// process of its session, every orphan it left and all their descendants
// are killed and the orphans reaped. The process tree is all this relies
// on, so it holds however the command was started (directly or through a
// helper process).
//
// Orphans are told from gen's own children by their session: every
// process a call starts is in the call's session (its id is the call's
// bash pid, which cannot be reused while the session has members) or in a
// session one of them started; gen's other children (MCP servers, ...)
// stay in gen's session. An orphan in the session of another running call
// is that call's; an orphan in a session of its own cannot be traced to a
// call, so it is swept when no other Bash call is running.
var reaper struct {
	once sync.Once
	on   bool // PR_SET_CHILD_SUBREAPER took effect

	// mu covers starting a call's process and the sweeps, so a sweep
	// never mistakes a call's process that was just started (in a new
	// session, a child of gen) for an orphan.
	mu      sync.Mutex
	running map[int]bool // bash pids of the calls in progress
}

// startCommand starts cmd as a Bash call's process and records it.
func startCommand(cmd *sandbox.Cmd) error {
	reaper.once.Do(func() {
		reaper.on = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == nil
		reaper.running = map[int]bool{}
	})
	reaper.mu.Lock()
	defer reaper.mu.Unlock()
	if err := cmd.Start(); err != nil {
		return err
	}
	reaper.running[cmd.Process.Pid] = true
	return nil
}

// endCommand kills what the call whose bash had pid sid left behind (see
// the comment on reaper) once its bash has been waited for.
func endCommand(sid int) {
	reaper.mu.Lock()
	defer reaper.mu.Unlock()
	delete(reaper.running, sid)
	sweep(sid, len(reaper.running) == 0)
}

// sweep kills the processes of session sid, the orphans re-parented to gen
// that belong to it (or, if all, to no running call), and all their
// descendants, and reaps the orphans. It repeats while it finds any, since
// a killed parent's children are re-parented to gen only as it dies.
// Callers hold reaper.mu.
func sweep(sid int, all bool) {
	self := os.Getpid()
	selfSid, _ := unix.Getsid(0)
	for round := range 50 {
		ps := reap.Procs()
		children := map[int][]int{}
		for _, p := range ps {
			children[p.PPID] = append(children[p.PPID], p.PID)
		}
		target := map[int]bool{}
		var mark func(pid int)
		mark = func(pid int) {
			if target[pid] || pid == self {
				return
			}
			target[pid] = true
			for _, c := range children[pid] {
				mark(c)
			}
		}
		for _, p := range ps {
			switch {
			case p.SID == sid:
				mark(p.PID)
			case reaper.on && p.PPID == self && p.SID != selfSid && !reaper.running[p.PID] && !reaper.running[p.SID] && all:
				mark(p.PID)
			}
		}
		if len(target) == 0 {
			return
		}
		for pid := range target {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		// Reap the killed orphans that are gen's children; the others
		// are reaped by their parents, or come back to gen next round.
		for _, p := range ps {
			if target[p.PID] && p.PPID == self {
				reapChild(p.PID)
			}
		}
		if round > 0 {
			time.Sleep(time.Millisecond)
		}
	}
}

// reapChild waits for child pid, which was sent SIGKILL, for up to a second.
func reapChild(pid int) {
	for range 1000 {
		var ws unix.WaitStatus
		got, err := unix.Wait4(pid, &ws, unix.WNOHANG, nil)
		if got == pid || errors.Is(err, unix.ECHILD) || (err != nil && !errors.Is(err, unix.EINTR)) {
			return
		}
		time.Sleep(time.Millisecond)
	}
}
