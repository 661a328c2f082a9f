package mcp

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gen-run/gen/internal/reap"
)

// stderrTail is how much of a stdio server's stderr is kept for error
// messages.
const stderrTail = 2048

// markerVar marks the environment of every process a stdio server starts.
const markerVar = "GEN_MCP_SERVER"

// stdoutGrace is how long a stdio server's stdout is still read once the
// server is reaped and its group killed: only a process that left the
// group (a session of its own) can hold the pipe longer.
const stdoutGrace = time.Second

// process is a running stdio server. gen owns its three pipes (rather than
// letting exec.Cmd copy them) so that Wait returns when the server exits,
// whatever its descendants still hold open.
type process struct {
	cmd    *exec.Cmd
	stdin  *os.File // gen's write end
	stdout *os.File // gen's read end
	stderr *tail
	// stderrDone is closed when stderr reaches end of file.
	stderrDone chan struct{}

	done    chan struct{} // closed once the server is reaped
	waitErr error         // valid after done
}

// startProcess starts s in its own process group.
func startProcess(s Server, dir string) (*process, error) {
	var files []*os.File
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		files = append(files, r, w)
		return r, w, err
	}
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	inR, inW, err := pipe()
	if err != nil {
		closeAll()
		return nil, err
	}
	outR, outW, err := pipe()
	if err != nil {
		closeAll()
		return nil, err
	}
	errR, errW, err := pipe()
	if err != nil {
		closeAll()
		return nil, err
	}
	cmd := exec.Command(s.Command, s.Args...)
	cmd.Dir = dir
	cmd.Env = os.Environ()
	for k, v := range s.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	// The marker finds what the server started in a session of its own,
	// out of reach of the group's kill, once the server is gone.
	marker := reap.Marker(markerVar)
	cmd.Env = append(cmd.Env, marker)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	// Its own process group (pgid == pid), so that a Ctrl+C meant for
	// gen (sent to the terminal's foreground group) does not reach it and
	// stopping it reaches what it started. It stays in gen's session: the
	// Bash tool sweeps gen's children in other sessions as orphans of its
	// calls (tool/bash_linux.go), and a server is no orphan.
	ownGroup(cmd)
	err = cmd.Start()
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, err
	}
	p := &process{cmd: cmd, stdin: inW, stdout: outR, stderr: &tail{max: stderrTail}, stderrDone: make(chan struct{}), done: make(chan struct{})}
	go func() {
		io.Copy(p.stderr, errR)
		errR.Close()
		close(p.stderrDone)
	}()
	go func() {
		p.waitErr = cmd.Wait()
		// The group outlives its leader while any member is alive, and
		// its id is not reused until then, so this reaches only what the
		// server left behind. Killing it also closes the server's stdout
		// everywhere, so a pending call sees end of file instead of
		// waiting for its timeout; the deadline does the same when a
		// process that left the group still holds the pipe, after what
		// the server wrote before it exited has been read.
		p.killGroup(syscall.SIGKILL)
		outR.SetReadDeadline(time.Now().Add(stdoutGrace))
		// What left the group goes too (first: its children may be the
		// group's), and what was re-parented to gen (a subreaper) must
		// not stay a zombie.
		reap.Marked(marker)
		reap.Group(cmd.Process.Pid)
		close(p.done)
	}()
	return p, nil
}

func (p *process) killGroup(sig syscall.Signal) { signalGroup(p.cmd.Process, sig) }

// stdoutReader reads a stdio server's stdout, saying why a read failed
// when the deadline set as the server was reaped passed.
type stdoutReader struct{ f *os.File }

func (r stdoutReader) Close() error { return r.f.Close() }

func (r stdoutReader) Read(b []byte) (int, error) {
	n, err := r.f.Read(b)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		err = errors.New("the server exited, and a process it started still holds its stdout open")
	}
	return n, err
}

// stdinWriter writes to a stdio server's stdin, each write within a
// bound: a server that stops reading (stopped, deadlocked, or busy with
// something else) leaves a request bigger than what the pipe holds
// blocked in the write for good, where the call's timeout cannot reach
// it, and every later call queued behind it.
type stdinWriter struct {
	f     *os.File
	bound time.Duration
}

func (w stdinWriter) Close() error { return w.f.Close() }

func (w stdinWriter) Write(b []byte) (int, error) {
	w.f.SetWriteDeadline(time.Now().Add(w.bound))
	n, err := w.f.Write(b)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		err = fmt.Errorf("the server did not read its stdin for %v", w.bound)
	}
	return n, err
}

// exited reports whether the server has exited and been reaped.
func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop ends the server as the MCP specification asks: stdin is closed,
// then after grace the group gets SIGTERM, then after another grace
// SIGKILL. It returns once the server is reaped, or with an error if even
// SIGKILL did not end it within a grace.
func (p *process) stop(grace time.Duration) error {
	p.stdin.Close()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		select {
		case <-p.done:
			return nil
		case <-time.After(grace):
		}
		p.killGroup(sig)
	}
	select {
	case <-p.done:
		return nil
	case <-time.After(grace):
		return fmt.Errorf("process %d did not exit after SIGKILL", p.cmd.Process.Pid)
	}
}

// kill ends the server at once, for one that never became usable, and
// waits at most grace for it to be reaped.
func (p *process) kill(grace time.Duration) {
	p.stdin.Close()
	p.killGroup(syscall.SIGKILL)
	select {
	case <-p.done:
	case <-time.After(grace):
	}
}

// stderrText returns the end of the server's stderr, waiting at most grace
// for the rest of it once the server has exited.
func (p *process) stderrText(grace time.Duration) string {
	select {
	case <-p.stderrDone:
	case <-time.After(grace):
	}
	return p.stderr.String()
}

// describe says how the server ended, with the end of its stderr; the
// server must have exited.
func (p *process) describe(grace time.Duration) string {
	msg := "exited"
	var ee *exec.ExitError
	switch {
	case errors.As(p.waitErr, &ee):
		msg = ee.ProcessState.String()
	case p.waitErr != nil:
		msg = p.waitErr.Error()
	}
	if s := p.stderrText(grace); s != "" {
		msg += "; stderr: " + s
	}
	return msg
}

// tail keeps the last max bytes written to it. Safe for concurrent use.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(b), nil
}

// String returns the kept text, trimmed, on one line.
func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.Join(strings.Fields(string(t.buf)), " ")
}
