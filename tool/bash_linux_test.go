package tool

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A double fork in a session of its own with a cleared environment
// escapes both the process group and the environment marker; as gen is a
// child subreaper, the orphan comes back to it and is killed and reaped
// when the call ends, whether the call finished or timed out.
func TestBashEscapedDaemonWithClearedEnv(t *testing.T) {
	for _, tool := range []string{"setsid", "env"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	daemon := `setsid env -i /bin/sh -c 'sleep 300 & echo $! > pid.tmp; mv pid.tmp pid' & ` +
		`while [ ! -e pid ]; do sleep 0.01; done`
	for _, tt := range []struct {
		name, command string
		timeout       float64
	}{
		{"call ends", daemon + "; echo started", 60000},
		{"call times out", daemon + "; echo started; sleep 300", 1000},
	} {
		t.Run(tt.name, func(t *testing.T) {
			env, dir := testEnv(t)
			out, err := call(t, env, "Bash", map[string]any{"command": tt.command, "timeout": tt.timeout})
			if err != nil || !strings.Contains(out, "started") {
				t.Fatalf("Bash: %q, %v", out, err)
			}
			waitReaped(t, filepath.Join(dir, "pid"))
		})
	}
}

// waitReaped fails t unless the process whose pid is in pidFile is gone,
// not even a zombie, within hangGuard.
func waitReaped(t *testing.T, pidFile string) {
	t.Helper()
	pid := strings.TrimSpace(readFile(t, pidFile))
	if pid == "" {
		t.Fatalf("%s is empty", pidFile)
	}
	deadline := time.Now().Add(hangGuard)
	for {
		stat, err := os.ReadFile("/proc/" + pid + "/stat")
		if err != nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %s outlived the call: %s", pid, stat)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
