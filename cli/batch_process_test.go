package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// buildGen builds the gen binary into a temporary directory.
func buildGen(tb testing.TB) string {
	tb.Helper()
	bin := filepath.Join(tb.TempDir(), "gen")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/gen-run/gen/cmd/gen")
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// waitFor polls cond until it holds; the bound is a hang guard, not a
// time budget.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// processGone reports whether pid no longer runs (a zombie counts as gone).
func processGone(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	_, after, _ := strings.Cut(string(stat), ") ")
	return strings.HasPrefix(after, "Z")
}

const sleeperAgent = `---
name: sleeper
description: test agent that runs any command
mode: acceptEdits
allow_tools: Bash
---
Run what you are told.
`

// A batch stopped in the middle, by SIGTERM or by SIGKILL (a crash, here
// with a torn last line added), leaves only whole result lines; --resume
// then runs exactly the tasks without a result and appends theirs.
func TestBatchKillThenResume(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the gen binary")
	}
	bin := buildGen(t)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := project(t)
			os.WriteFile(filepath.Join(dir, ".gen/agents/sleeper.md"), []byte(sleeperAgent), 0o644)
			// blk blocks until the file release exists; it writes the pid
			// of its sleep first.
			lines := []string{task("q0", "test-perm", "Read: a.txt"),
				task("blk", "sleeper", "Run bash: echo $$ > blk.pid && test -e release || exec sleep 600")}
			for i := 1; i <= 6; i++ {
				lines = append(lines, task(fmt.Sprintf("q%d", i), "test-perm", "Read: a.txt"))
			}
			in := writeTasks(t, dir, lines...)
			out := filepath.Join(dir, "out.jsonl")
			tmp := t.TempDir()
			batchCmd := func(args ...string) *exec.Cmd {
				cmd := exec.Command(bin, append([]string{"agent", "batch", in, "--output", out, "--concurrency", "2"}, args...)...)
				cmd.Dir = dir
				// A gen killed with SIGKILL leaves its per-run TMPDIR behind:
				// in the test's own directory, not the machine's.
				cmd.Env = append(os.Environ(), "HOME="+dir, "OPENAI_BASE_URL=", "OPENAI_API_KEY=", "TMPDIR="+tmp)
				cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
				return cmd
			}
			var stderr bytes.Buffer
			cmd := batchCmd()
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			defer cmd.Process.Kill()
			pidFile := filepath.Join(dir, "blk.pid")
			// The redirect creates blk.pid before echo writes to it:
			// wait for the whole line.
			sleepPid := 0
			waitFor(t, "the quick tasks' results and the blocking task's pid", func() bool {
				data, _ := os.ReadFile(out)
				b, _ := os.ReadFile(pidFile)
				if !bytes.HasSuffix(b, []byte("\n")) {
					return false
				}
				sleepPid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
				return bytes.Count(data, []byte("\n")) == 7 && sleepPid > 0
			})
			cmd.Process.Signal(sig)
			var err error
			select {
			case err = <-exited:
			case <-time.After(60 * time.Second):
				t.Fatal("gen did not exit after the signal")
			}
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				t.Fatalf("exit: %v", err)
			}
			data, _ := os.ReadFile(out)
			res := parseResults(t, data) // whole lines only, one per id
			switch sig {
			case syscall.SIGTERM:
				// The running task was cancelled, its line written, and
				// its command killed.
				if ee.ExitCode() != ExitFailed || len(res) != 8 || !res["blk"].Interrupted {
					t.Fatalf("exit %d, results %v\n%s", ee.ExitCode(), res, stderr.String())
				}
				waitFor(t, "the blocking task's command to be gone", func() bool { return processGone(sleepPid) })
			case syscall.SIGKILL:
				if len(res) != 7 || res["blk"].ID != "" {
					t.Fatalf("results %v", res)
				}
				// Nobody was left to kill the command: the test does.
				syscall.Kill(sleepPid, syscall.SIGKILL)
				// A crash in the middle of a write could leave a torn line.
				f, _ := os.OpenFile(out, os.O_APPEND|os.O_WRONLY, 0)
				f.WriteString(`{"id":"blk","type":"sle`)
				f.Close()
			}
			os.WriteFile(filepath.Join(dir, "release"), nil, 0o644)
			stderr.Reset()
			resume := batchCmd("--resume")
			resume.Stderr = &stderr
			if err := resume.Run(); err != nil {
				t.Fatalf("resume: %v\n%s", err, stderr.String())
			}
			data, _ = os.ReadFile(out)
			res = parseResults(t, data)
			if len(res) != 8 || res["blk"].ExitCode != 0 || res["blk"].Interrupted {
				t.Errorf("after resume: %v", res)
			}
			if !strings.Contains(stderr.String(), "gen batch: 1 tasks: 1 ok") || !strings.Contains(stderr.String(), "7 skipped as done") {
				t.Errorf("resume ran other tasks:\n%s", stderr.String())
			}
		})
	}
}
