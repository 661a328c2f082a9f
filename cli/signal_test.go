package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// watchSignals cancels at the first signal and ends the process at a
// second one, or when the grace time is up, with 128 plus the signal's
// number.
func TestWatchSignals(t *testing.T) {
	for _, tc := range []struct {
		name   string
		sigs   []os.Signal
		grace  time.Duration
		code   int
		stderr string
	}{
		{"second signal", []os.Signal{os.Interrupt, os.Interrupt}, time.Hour, 130, "gen: interrupt again: stopping now\n"},
		{"grace over", []os.Signal{syscall.SIGTERM}, time.Nanosecond, 143, "gen: still running 1ns after terminated: stopping now\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sigs := make(chan os.Signal, len(tc.sigs))
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			exited := make(chan int, 1)
			var stderr bytes.Buffer
			go watchSignals(sigs, cancel, tc.grace, &stderr, func(code int) { exited <- code })
			sigs <- tc.sigs[0]
			<-ctx.Done() // the first signal cancels
			for _, s := range tc.sigs[1:] {
				sigs <- s
			}
			if code := <-exited; code != tc.code {
				t.Errorf("exit code %d, want %d", code, tc.code)
			}
			if stderr.String() != tc.stderr {
				t.Errorf("stderr %q, want %q", stderr.String(), tc.stderr)
			}
		})
	}
}

// Before the first signal, nothing ends the process.
func TestWatchSignalsWaits(t *testing.T) {
	sigs := make(chan os.Signal)
	canceled := make(chan struct{})
	go watchSignals(sigs, func() { close(canceled) }, time.Nanosecond, os.Stderr, func(int) { t.Error("exit without a signal") })
	select {
	case <-canceled:
		t.Fatal("cancelled without a signal")
	case <-time.After(50 * time.Millisecond):
	}
}

// gen permissions check --batch - whose input stays open ends at SIGTERM
// with the answers so far and a failure exit; it does not wait for input
// that never comes.
func TestCheckBatchSIGTERM(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the gen binary")
	}
	bin := buildGen(t)
	dir := t.TempDir()
	cmd := exec.Command(bin, "permissions", "check", "--batch", "-")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	if _, err := in.Write([]byte(`{"call": "Bash(ls)"}` + "\n")); err != nil {
		t.Fatal(err)
	}
	out := bufio.NewReader(outPipe)
	if a, err := out.ReadString('\n'); err != nil || !strings.Contains(a, `"decision":"allow"`) {
		t.Fatalf("answer %q, %v; stderr %s", a, err, stderr.String())
	}
	cmd.Process.Signal(syscall.SIGTERM)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err = <-exited:
	case <-time.After(60 * time.Second): // a hang guard, not a budget
		t.Fatal("gen still waits for input after SIGTERM")
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != ExitFailed {
		t.Fatalf("exit %v, want code %d; stderr %s", err, ExitFailed, stderr.String())
	}
	if !strings.Contains(stderr.String(), "gen: -: interrupted") {
		t.Errorf("stderr %q, want the interruption named", stderr.String())
	}
}

// A reader of gen's output that goes away (`gen -p ... | head`) stops
// the run as SIGTERM does: the commands it started are killed, not left
// running after gen, and gen exits rather than dying of SIGPIPE.
func TestBrokenStdoutStopsTheRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the gen binary")
	}
	bin := buildGen(t)
	dir := project(t)
	os.WriteFile(filepath.Join(dir, ".gen/agents/sleeper.md"), []byte(sleeperAgent), 0o644)
	// Two subagents in parallel: one blocks, the other writes events
	// once the file "go" exists, after the test closed gen's stdout.
	prompt := "Delegate sleeper: Run bash: echo $$ > blk.pid && exec sleep 600\n" +
		"Delegate sleeper: Run bash: until test -e go; do sleep 0.05; done; echo on"
	cmd := exec.Command(bin, "-p", "--trust", "--permission-mode", "acceptEdits", "--output-format", "stream-json", "--allowedTools", "Agent", "--", prompt)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir, "OPENAI_BASE_URL=", "OPENAI_API_KEY=")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = w
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer cmd.Process.Kill()
	sleepPid := 0
	waitFor(t, "the blocking command's pid", func() bool {
		b, _ := os.ReadFile(filepath.Join(dir, "blk.pid"))
		sleepPid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return bytes.HasSuffix(b, []byte("\n")) && sleepPid > 0
	})
	defer syscall.Kill(sleepPid, syscall.SIGKILL)
	r.Close()
	os.WriteFile(filepath.Join(dir, "go"), nil, 0o644)
	select {
	case err = <-exited:
	case <-time.After(60 * time.Second): // a hang guard, not a budget
		t.Fatal("gen still runs after its stdout closed")
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != ExitFailed {
		t.Errorf("exit %v, want code %d; stderr %s", err, ExitFailed, stderr.String())
	}
	waitFor(t, "the blocking command to be gone", func() bool { return processGone(sleepPid) })
}

// Only a SIGPIPE of gen's own output stops the run: one from a hook that
// did not read its input is only a failed write.
func TestWatchPipes(t *testing.T) {
	pipes, sigs := make(chan os.Signal, 1), make(chan os.Signal, 1)
	gone := make(chan bool)
	go watchPipes(pipes, sigs, func() bool { return <-gone })
	pipes <- syscall.SIGPIPE
	gone <- false
	pipes <- syscall.SIGPIPE
	gone <- true
	if sig := <-sigs; sig != syscall.SIGPIPE {
		t.Errorf("got %v, want SIGPIPE", sig)
	}
	select {
	case sig := <-sigs:
		t.Errorf("a second signal %v", sig)
	default:
	}
}

// readerGone tells a pipe whose reader closed from one still read.
func TestReaderGone(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if readerGone(int(w.Fd())) {
		t.Error("gone while the reader is open")
	}
	r.Close()
	if !readerGone(int(w.Fd())) {
		t.Error("not gone after the reader closed")
	}
}

// gen agent batch - whose stdin stays open ends when its context is
// cancelled (SIGINT, SIGTERM) with a failure exit: it does not wait for
// tasks that never come, nor for the grace time after the signal.
func TestBatchStdinInterrupted(t *testing.T) {
	project(t)
	in, w := io.Pipe()
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	var stderr bytes.Buffer
	code := make(chan int, 1)
	go func() {
		code <- Run(ctx, []string{"agent", "batch", "-"}, Streams{In: in, Out: io.Discard, Err: &stderr})
	}()
	cancel()
	select {
	case c := <-code:
		if c != ExitFailed || !strings.Contains(stderr.String(), "interrupted while reading tasks from stdin") {
			t.Errorf("exit %d, stderr %q", c, stderr.String())
		}
	case <-time.After(60 * time.Second): // a hang guard, not a budget
		t.Fatal("gen agent batch still waits for tasks after its context ended")
	}
}

// SIGHUP (a closed terminal, a dropped ssh connection) stops the run as
// SIGTERM does. It used to end gen at once, by the signal's default
// action, and the command the run had started, in a session of its own
// that no hangup reaches, went on running without it.
func TestSIGHUPStopsTheRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the gen binary")
	}
	bin := buildGen(t)
	dir := project(t)
	cmd := exec.Command(bin, "-p", "--permission-mode", "acceptEdits", "--allowedTools", "Bash", "--", "Run bash: echo $$ > blk.pid && exec sleep 600")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir, "OPENAI_BASE_URL=", "OPENAI_API_KEY=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer cmd.Process.Kill()
	sleepPid := 0
	waitFor(t, "the command's pid", func() bool {
		b, _ := os.ReadFile(filepath.Join(dir, "blk.pid"))
		sleepPid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return bytes.HasSuffix(b, []byte("\n")) && sleepPid > 0
	})
	defer syscall.Kill(sleepPid, syscall.SIGKILL)
	cmd.Process.Signal(syscall.SIGHUP)
	var err error
	select {
	case err = <-exited:
	case <-time.After(60 * time.Second): // a hang guard, not a budget
		t.Fatal("gen still runs after SIGHUP")
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != ExitFailed {
		t.Errorf("exit %v, want code %d (the run cancelled); stderr %s", err, ExitFailed, stderr.String())
	}
	waitFor(t, "the command to be gone", func() bool { return processGone(sleepPid) })
}
