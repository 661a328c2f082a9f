package hook

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/gen-run/gen/internal/reap"
)

// Once gen is a child subreaper (after its first Bash command), what a
// hook leaves in its group is re-parented to gen when the hook dies; Run
// reaps it, so no zombie of it stays until gen exits.
func TestRunReapsLeftovers(t *testing.T) {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		t.Skipf("cannot become a child subreaper: %v", err)
	}
	pidFile := filepath.Join(t.TempDir(), "hook.pid")
	for _, tc := range []struct {
		name string
		spec hookSpec
	}{
		{"exits", hookSpec{matcher: "Bash", body: "echo $$ > " + pidFile + "; sleep 300 & sleep 300 & echo '{}'"}},
		{"times out", hookSpec{matcher: "Bash", body: "echo $$ > " + pidFile + "; sleep 300 & sleep 300", timeout: 0.5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(pidFile)
			r, _ := newRunner(t, PreToolUse, tc.spec)
			run(t, r, PreToolUse, toolInput())
			b, err := os.ReadFile(pidFile)
			if err != nil {
				t.Fatal(err)
			}
			pgid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range reap.Procs() {
				if p.PGID == pgid {
					t.Errorf("process %d of the hook's group is left (zombie: %v)", p.PID, p.Zombie)
				}
			}
		})
	}
}

// What a hook starts in a session of its own, out of reach of the
// group's kill, goes with the hook too, found by the marker in its
// environment: when the hook exits and when it times out.
func TestRunKillsEscaped(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "escaped.pid")
	for _, tc := range []struct {
		name string
		spec hookSpec
	}{
		{"exits", hookSpec{matcher: "Bash", body: "setsid sleep 300 > /dev/null 2>&1 & echo $! > " + pidFile + "; echo '{}'"}},
		{"times out", hookSpec{matcher: "Bash", body: "setsid sleep 300 > /dev/null 2>&1 & echo $! > " + pidFile + "; sleep 300", timeout: 0.5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(pidFile)
			r, _ := newRunner(t, PreToolUse, tc.spec)
			run(t, r, PreToolUse, toolInput())
			b, err := os.ReadFile(pidFile)
			if err != nil {
				t.Fatal(err)
			}
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { unix.Kill(pid, unix.SIGKILL) })
			for _, p := range reap.Procs() {
				if p.PID == pid && !p.Zombie {
					t.Errorf("the hook's escaped process %d still runs", pid)
				}
			}
		})
	}
}
