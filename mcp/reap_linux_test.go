package mcp

import (
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/gen-run/gen/internal/proctest"
	"github.com/gen-run/gen/internal/reap"
)

// Once gen is a child subreaper (after its first Bash command), what a
// stdio server started is re-parented to gen when Close kills the
// server's group; Close reaps it, so no zombie of it stays until gen
// exits.
func TestCloseReapsLeftovers(t *testing.T) {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		t.Skipf("cannot become a child subreaper: %v", err)
	}
	// The setting is the whole test process's: later tests run without it.
	t.Cleanup(func() { unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0) })
	m, _ := start(t, Options{StopGrace: reapGrace}, stdioServer("local", "ok"))
	pids := spawned(t, m, "mcp__local__spawn") // the server's, then its child's
	if err := guard(t, "Close", m.Close); err != nil {
		t.Errorf("Close: %v", err)
	}
	for _, p := range reap.Procs() {
		if p.PGID == pids[0] {
			t.Errorf("process %d of the server's group is left (zombie: %v)", p.PID, p.Zombie)
		}
	}
}

// A process a stdio server started in a session of its own (out of reach
// of the group's kill) is killed when the server stops, found by the
// marker in its environment.
func TestCloseKillsEscaped(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "escaped.pid")
	s := stdioServer("local", "escaped")
	s.Env[heldPIDEnv] = pidFile
	m, st := start(t, Options{StopGrace: reapGrace}, s)
	if st["local"].State != StateConnected {
		t.Fatalf("start: %v %v", st["local"].State, st["local"].Err)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(string(b))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	if err := guard(t, "Close", m.Close); err != nil {
		t.Errorf("Close: %v", err)
	}
	if proctest.Alive(pid) {
		t.Errorf("the server's escaped process %d still runs after Close", pid)
	}
}
