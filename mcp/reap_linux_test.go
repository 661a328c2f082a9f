package mcp

import (
	"testing"
	"time"

	"golang.org/x/sys/unix"

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
	m, _ := start(t, Options{StopGrace: 500 * time.Millisecond}, stdioServer("local", "ok"))
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
