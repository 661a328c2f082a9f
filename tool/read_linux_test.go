package tool

import (
	"strings"
	"testing"
)

// TestReadRefusesPollableFiles: a "regular" file whose reads can wait for
// data (the kernel's pseudo-files that support poll: /proc/kmsg,
// /proc/self/mounts, sysfs attributes) is not a file Read, Grep or Edit
// reads. Read of /proc/kmsg (root, or CAP_SYSLOG) drained the kernel log
// and then waited for the next message, forever and past Ctrl+C: a
// headless run allowed to read outside the workspace never ended.
// /proc/self/mounts stands for them here, since it does not wait.
func TestReadRefusesPollableFiles(t *testing.T) {
	env, _ := testEnv(t)
	const p = "/proc/self/mounts"
	out, err := call(t, env, "Read", map[string]any{"file_path": p})
	if err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("Read %s: err %v, output %.200q", p, err, out)
	}
	out, err = call(t, env, "Grep", map[string]any{"pattern": ".", "path": p})
	if err != nil || !strings.Contains(out, "no matches") {
		t.Errorf("Grep %s: err %v, output %.200q", p, err, out)
	}
}
