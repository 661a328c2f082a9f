package tests

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSignalWhileReadingStdin starts gen with a stdin pipe that stays
// open, so it waits for the prompt, and sends SIGTERM: gen must exit (with
// a message, not by dying of the signal) instead of swallowing it.
func TestSignalWhileReadingStdin(t *testing.T) {
	tmp := t.TempDir()
	bin := buildGen(t, tmp)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd := exec.Command(bin)
			cmd.Dir = tmp
			cmd.Env = []string{"HOME=" + tmp, "PATH=" + os.Getenv("PATH")}
			stdin, err := cmd.StdinPipe() // held open until the test ends
			if err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			waited := make(chan error, 1)
			go func() { waited <- cmd.Wait() }()
			// Send the signal while gen waits for the prompt.
			waitReadingStdin(t, cmd.Process.Pid)
			cmd.Process.Signal(sig)
			select {
			case err := <-waited:
				var ee *exec.ExitError
				if !errors.As(err, &ee) || ee.ExitCode() != 1 {
					t.Fatalf("gen ended with %v, want exit status 1; stderr:\n%s", err, &stderr)
				}
				if !strings.Contains(stderr.String(), "interrupted while reading the prompt") {
					t.Errorf("stderr does not say why:\n%s", &stderr)
				}
			case <-time.After(60 * time.Second): // hang guard
				cmd.Process.Kill()
				t.Fatalf("gen ignored %v while reading stdin", sig)
			}
		})
	}
}

// waitReadingStdin polls /proc until a thread of process pid is blocked
// in read(0, ...): gen is waiting for the prompt, its signal handling long
// set up.
func waitReadingStdin(t *testing.T, pid int) {
	t.Helper()
	tasks := filepath.Join("/proc", strconv.Itoa(pid), "task")
	for range 6000 { // hang guard: 60 s
		dirs, err := os.ReadDir(tasks)
		if err != nil {
			t.Skipf("no /proc: %v", err)
		}
		for _, d := range dirs {
			b, err := os.ReadFile(filepath.Join(tasks, d.Name(), "syscall"))
			if err != nil {
				t.Skipf("cannot read a thread's system call: %v", err)
			}
			if strings.HasPrefix(string(b), "0 0x0 ") { // read, fd 0
				return
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("process %d never read its stdin", pid)
}
