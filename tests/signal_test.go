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
			// Send the signal once gen catches it, so that it reaches the
			// handler rather than the default action.
			waitCaught(t, cmd.Process.Pid, sig)
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

// waitCaught polls /proc until process pid has a handler for sig.
func waitCaught(t *testing.T, pid int, sig syscall.Signal) {
	t.Helper()
	status := filepath.Join("/proc", strconv.Itoa(pid), "status")
	for range 6000 { // hang guard: 60 s
		b, err := os.ReadFile(status)
		if err != nil {
			t.Skipf("no /proc: %v", err)
		}
		for line := range strings.Lines(string(b)) {
			if v, ok := strings.CutPrefix(line, "SigCgt:"); ok {
				mask, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
				if err == nil && mask&(1<<(uint(sig)-1)) != 0 {
					return
				}
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("process %d never caught %v", pid, sig)
}
