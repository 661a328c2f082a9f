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

// Nothing a hook leaves behind outlives it, when it exits and when it
// times out. Once gen is a child subreaper (after its first Bash
// command), what is left in the hook's group is re-parented to gen when
// the hook dies, and Run reaps it, so no zombie of it stays until gen
// exits. What the hook started in a session of its own, out of reach of
// the group's kill, is found by the marker in its environment.
func TestRunEndsLeftovers(t *testing.T) {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		t.Skipf("cannot become a child subreaper: %v", err)
	}
	// The setting is the whole test process's: later tests run without it.
	t.Cleanup(func() { unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0) })
	pidFile := filepath.Join(t.TempDir(), "pid")
	// The hook writes an id: its group's, or its escaped process's.
	group := func(id int, p reap.Proc) bool { return p.PGID == id }
	escaped := func(id int, p reap.Proc) bool { return p.PID == id }
	for _, tc := range []struct {
		name string
		body string
		left func(id int, p reap.Proc) bool
	}{
		{"group", "echo $$ > " + pidFile + "\nsleep 300 &\nsleep 300 &", group},
		{"escaped", "setsid sleep 300 > /dev/null 2>&1 &\necho $! > " + pidFile, escaped},
	} {
		for _, timeout := range []float64{0, 0.5} {
			t.Run(tc.name+"/timeout "+strconv.FormatFloat(timeout, 'f', -1, 64), func(t *testing.T) {
				os.Remove(pidFile)
				body := tc.body + "\necho '{}'"
				if timeout > 0 {
					body = tc.body + "\nsleep 300"
				}
				r, _ := newRunner(t, PreToolUse, hookSpec{matcher: "Bash", body: body, timeout: timeout})
				run(t, r, PreToolUse, toolInput())
				b, err := os.ReadFile(pidFile)
				if err != nil {
					t.Fatal(err)
				}
				id, err := strconv.Atoi(strings.TrimSpace(string(b)))
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range reap.Procs() {
					if tc.left(id, p) {
						t.Errorf("process %d is left (zombie: %v)", p.PID, p.Zombie)
						unix.Kill(p.PID, unix.SIGKILL)
					}
				}
			})
		}
	}
}
