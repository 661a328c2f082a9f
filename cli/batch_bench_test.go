package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkBatchVsProcesses compares 1,000 offline tasks run by one
// `gen agent batch` process with one `gen agent run` process per task,
// both with the built binary. The per-process side runs perProcess
// processes and extrapolates to 1,000 (its cost is linear: each process
// is the same work); it reports ns per 1,000 tasks for both and the ratio.
func BenchmarkBatchVsProcesses(b *testing.B) {
	const tasks, perProcess = 1000, 100
	bin := buildGen(b)
	dir := project(b)
	prompt := "Read: a.txt\nRun bash: git stash list"
	var lines []string
	for i := range tasks {
		lines = append(lines, task(fmt.Sprint(i), "test-perm", prompt))
	}
	in := filepath.Join(dir, "tasks.jsonl")
	os.WriteFile(in, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	env := append(os.Environ(), "HOME="+dir, "OPENAI_BASE_URL=", "OPENAI_API_KEY=")
	run := func(args ...string) {
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env = dir, env
		if err := cmd.Run(); err != nil {
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != ExitDenied {
				b.Fatalf("%v: %v", args, err)
			}
		}
	}
	var batchTime, procTime time.Duration
	for b.Loop() {
		start := time.Now()
		run("agent", "batch", in, "--output", os.DevNull)
		batchTime += time.Since(start)
		start = time.Now()
		for range perProcess {
			run("agent", "run", "--cwd", dir, "--type", "test-perm", "--prompt", prompt, "--output-format", "json")
		}
		procTime += time.Since(start) * tasks / perProcess
	}
	n := float64(b.N)
	b.ReportMetric(float64(batchTime.Nanoseconds())/n, "batch-ns/1000tasks")
	b.ReportMetric(float64(procTime.Nanoseconds())/n, "processes-ns/1000tasks")
	b.ReportMetric(float64(procTime)/float64(batchTime), "ratio")
}
