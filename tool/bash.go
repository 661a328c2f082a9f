package tool

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/gen-run/gen/internal/lazy"
	"github.com/gen-run/gen/internal/reap"
	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/perm/bash"
	"github.com/gen-run/gen/sandbox"
)

const (
	defaultBashTimeout = 2 * time.Minute
	maxBashTimeout     = 10 * time.Minute
	// maxBashOutput caps the combined output returned to the model, in
	// bytes, including the omission marker.
	maxBashOutput = 30000
	// pipeGrace bounds how long Bash waits for output after the command's
	// process group is dead: a process that left the group can hold the
	// pipe open forever.
	pipeGrace = 2 * time.Second
)

type bashTool struct{ env *Env }

func (bashTool) Name() string { return "Bash" }

// Run is RunResponse without the response.
func (t bashTool) Run(ctx context.Context, call Call) (string, error) {
	text, _, err := t.RunResponse(ctx, call)
	return text, err
}

// RunResponse runs the command with bash -c in the working directory, with
// stdin from /dev/null and in a new session, so it has no controlling
// terminal: a program that opens /dev/tty to prompt fails at once instead
// of stopping the run. The session leader's process group holds the
// command and all it starts; the whole group is killed with SIGKILL on
// timeout, on cancellation, and when the command finishes, so nothing it
// started in the background outlives the call; descendants that left the
// group are found by an environment marker and, on Linux, in the process
// tree (see endCommand). A non-zero exit is a result, not an error. The
// response is a BashResponse.
func (t bashTool) RunResponse(ctx context.Context, call Call) (string, any, error) {
	in := call.Input
	const name = "Bash"
	command, err := requiredString(name, in, "command")
	if err != nil {
		return "", nil, err
	}
	if strings.TrimSpace(command) == "" {
		return "", nil, fmt.Errorf("%s: empty command", name)
	}
	timeout := defaultBashTimeout
	if ms, ok, err := intArg(name, in, "timeout"); err != nil {
		return "", nil, err
	} else if ok {
		if ms < 1 || ms > maxBashTimeout.Milliseconds() {
			return "", nil, fmt.Errorf("%s: timeout must be between 1 and %d milliseconds (10 minutes), got %d", name, maxBashTimeout.Milliseconds(), ms)
		}
		timeout = time.Duration(ms) * time.Millisecond
	}
	cwd := t.env.Workspace.Cwd
	if !filepath.IsAbs(cwd) {
		return "", nil, fmt.Errorf("%s: working directory %q is not an absolute path", name, cwd)
	}
	if err := ctx.Err(); err != nil {
		return "", nil, fmt.Errorf("%s: %w", name, err)
	}

	shell, err := exec.LookPath("bash")
	if err != nil {
		// Windows has no bash unless Git for Windows, MSYS2 or WSL put
		// one on PATH; the sandbox helper would only find out after it
		// has started.
		return "", nil, fmt.Errorf("Bash unavailable: no bash found on PATH: %w", err)
	}
	if t.env.Workspace.Contains(shell) {
		// gen starts bash through its own PATH (commands then get
		// commandEnv's); a repository's own bash must not run.
		return "", nil, fmt.Errorf("Bash unavailable: the first bash on PATH, %s, is in the workspace", shell)
	}
	marker := newMarker()
	env, droppedPath := commandEnv(marker, t.env.Workspace)
	spec, err := t.spec(call.Decision.Sandbox, cwd, env)
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", name, err)
	}
	absent := absentConfig(t.env.Workspace.Root, cwd)
	// The command's own context is not ctx: Run kills the whole process
	// group itself, on cancellation and timeout alike.
	cmd, err := sandbox.Command(context.Background(), spec, command, env)
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", name, err)
	}
	defer cmd.Cleanup()
	pr, pw, err := os.Pipe()
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", name, err)
	}
	defer pr.Close()
	// Stdin stays nil: the child reads /dev/null. One pipe for stdout and
	// stderr keeps their interleaving.
	cmd.Stdout, cmd.Stderr = pw, pw
	if cmd.SysProcAttr == nil {
		// sandbox.Command starts a new session where it can (Linux).
		detach(cmd.Cmd)
	}
	err = startCommand(cmd)
	pw.Close()
	if err != nil {
		return "", nil, fmt.Errorf("%s: starting bash: %w", name, err)
	}
	pgid := cmd.Process.Pid
	killGroup := func() { killGroup(pgid) }

	out := &capWriter{max: maxBashOutput}
	copied := make(chan struct{})
	go func() {
		io.Copy(out, pr)
		close(copied)
	}()
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()

	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var waitErr error
	timedOut := false
	select {
	case waitErr = <-waited:
	case <-tctx.Done():
		timedOut = ctx.Err() == nil
		killGroup()
		waitErr = <-waited
	}
	// The group outlives its leader while any member is alive, and its id
	// cannot be reused until then, so this reaches only the command's
	// leftovers.
	killGroup()
	// A process that left the group (setsid) still carries the marker in
	// its environment.
	reap.Marked(marker)
	// What cleared its environment too is found in the process tree:
	// nothing the command started outlives the call.
	endCommand(pgid)
	select {
	case <-copied:
	case <-time.After(pipeGrace):
		pr.Close()
		<-copied
	}

	if ctx.Err() != nil {
		return "", nil, fmt.Errorf("%s: cancelled: %w", name, ctx.Err())
	}
	var status string
	var exitErr *exec.ExitError
	var setupErr *sandbox.SetupError
	code := 0
	switch {
	case errors.As(waitErr, &setupErr):
		return "", nil, fmt.Errorf("%s: the sandbox refused to run the command: %w", name, setupErr)
	case timedOut:
		status = fmt.Sprintf("killed after timeout %v", timeout)
	case waitErr == nil:
		status = "exit code: 0"
	case errors.As(waitErr, &exitErr):
		if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			status = fmt.Sprintf("killed by signal %v", ws.Signal())
		} else {
			code = exitErr.ExitCode()
			status = fmt.Sprintf("exit code: %d", code)
		}
	default:
		return "", nil, fmt.Errorf("%s: %w", name, waitErr)
	}
	resp := BashResponse{Stdout: strings.TrimRightFunc(out.String(), unicode.IsSpace), Interrupted: timedOut, failed: waitErr != nil && !timedOut}
	text := out.String()
	switch {
	case text == "":
		text = "(no output)\n"
	case !strings.HasSuffix(text, "\n"):
		text += "\n"
	}
	text += status + "\n"
	for _, p := range absent {
		if _, err := os.Lstat(p); err == nil {
			w := fmt.Sprintf("the command created %s, which gen reads as project configuration (settings, hooks, agents, MCP servers): its hooks, MCP servers and allow rules do not apply until you review it and trust the project again (gen trust)", p)
			if t.env.Warn != nil {
				t.env.Warn("Bash: " + w)
			}
			text += "gen: " + w + ".\n"
		}
	}
	if code == 127 && len(droppedPath) > 0 {
		text += fmt.Sprintf("gen: commands run without these PATH entries: %q. Each is relative or inside the workspace, where the repository's own programs would run under the names the permission gate checks; name such a program by its path.\n", droppedPath)
	}
	if h := sandbox.Hint(cmd.Spec, text, code); h != "" {
		text += h + " A call with " + perm.UnsandboxedKey + ": true runs without the sandbox, and only once the user approves it.\n"
	}
	resp.Output = text
	return text, resp, nil
}

// configNames are the project files and directories gen reads settings,
// hooks, agents and MCP servers from. The sandbox keeps those that exist
// read-only; one that does not exist yet cannot be protected by the
// kernel, so Bash reports its creation (absentConfig).
var configNames = []string{".gen", ".claude", ".mcp.json"}

// absentConfig returns the configNames paths in the workspace root and
// in cwd that do not exist before a command runs.
func absentConfig(root, cwd string) []string {
	var out []string
	for _, dir := range []string{root, cwd} {
		if dir == "" {
			continue
		}
		for _, n := range configNames {
			p := filepath.Join(dir, n)
			if _, err := os.Lstat(p); errors.Is(err, os.ErrNotExist) && !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// spec is the confinement of a command with the decision's sandbox
// profile p, run in cwd. "" counts as workspace-write: only the gate may
// choose none. Where the platform has no sandbox, Bash warns once and runs
// the command without one, unless the settings require a sandbox (then it
// refuses). Writable roots for workspace-write: the workspace root, the
// working directory, the additional directories (the policy's in force,
// Confinement.Dirs) and allowWrite; the paths
// of the policy's deny rules are hidden or kept read-only (Env.Confine).
// For read-only, the home directories are unreadable but for the
// workspace, the PATH entries of env (the command's environment) and
// sandbox.filesystem.allowRead (sandbox.Roots).
func (t bashTool) spec(p sandbox.Profile, cwd string, env []string) (sandbox.Spec, error) {
	if p == "" {
		p = sandbox.WorkspaceWrite
	}
	// Always probe before the first command: the probe's helper must not
	// be running while a finished call sweeps leftover processes.
	var c Confinement
	if t.env.Confine != nil {
		c = t.env.Confine()
	}
	ok, why := available()
	switch {
	case !ok && isTrue(c.Settings.Required):
		return sandbox.Spec{}, fmt.Errorf("the settings require the sandbox (sandbox.required or failIfUnavailable), but %s; the command was not run", why)
	case !ok:
		t.env.warnOnce(why + "; Bash commands run without it")
		p = sandbox.None
	case why != "":
		t.env.warnOnce(why)
	}
	ws := t.env.Workspace
	root := ws.Root
	if root == "" {
		root = cwd
	}
	roots := sandbox.Roots{Cwd: cwd, Workspace: root, AllowWrite: c.Settings.Filesystem.AllowWrite, Home: ws.Home,
		ConfigHome: lookupEnv(env, "XDG_CONFIG_HOME"), GitConfig: lookupEnv(env, "GIT_CONFIG_GLOBAL")}
	if p == sandbox.ReadOnly {
		roots.Reads = append(filepath.SplitList(lookupEnv(env, "PATH")), c.Settings.Filesystem.AllowRead...)
	}
	if p != sandbox.None {
		roots.Hidden, roots.Protected = append(c.Hidden, runnable(c.Programs, env)...), c.Protected
	}
	dirs := ws.Dirs
	if t.env.Confine != nil {
		dirs = c.Dirs // the policy's now, as the gate judged the call
	}
	for _, d := range append([]string{cwd}, dirs...) {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			roots.Additional = append(roots.Additional, d)
		}
	}
	network := c.Settings.Network == nil || *c.Settings.Network
	spec, err := sandbox.NewSpec(p, roots, network)
	spec.Required = isTrue(c.Settings.Required)
	return spec, err
}

func isTrue(b *bool) bool { return b != nil && *b }

// runnable is the files of denied programs the sandbox may hide: all but
// the bash it runs the command with, found on the PATH of the command's
// environment env as its helper finds it, and on gen's own (a deny rule
// for bash leaves bash to the gate: hiding it would run nothing).
func runnable(programs, env []string) []string {
	var shells []string
	for _, path := range []string{lookupEnv(env, "PATH"), os.Getenv("PATH")} {
		if bash, err := lookPath("bash", path); err == nil {
			if real, err := filepath.EvalSymlinks(bash); err == nil {
				shells = append(shells, real)
			}
		}
	}
	var out []string
	for _, p := range programs {
		if !slices.Contains(shells, p) {
			out = append(out, p)
		}
	}
	return out
}

// lookupEnv returns the value of the last key=value of env for key.
func lookupEnv(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], key+"="); ok {
			return v
		}
	}
	return ""
}

// available is sandbox.Available, replaceable in tests.
var available = sandbox.Available

// sandboxWarning makes the no-sandbox warning once per process.
var sandboxWarning sync.Once

func (e *Env) warnOnce(w string) {
	sandboxWarning.Do(func() {
		if e.Warn != nil {
			e.Warn(w)
		}
	})
}

// commandEnv is the environment commands run with: gen's own, as the
// gate's analysis assumes it (bash.CommandEnv: no CDPATH, BASHOPTS and
// the like, and no PATH entry that is relative or in the workspace ws),
// without the credentials gen itself uses (a command the model writes has
// no need of the model's API key, and could otherwise print it), with git
// and pagers told not to wait for a person, and with git's optional locks
// off (GIT_OPTIONAL_LOCKS=0): git status, which the gate allows as
// read-only, would otherwise write its refreshed index back, a write to
// .git the gate never allowed where no sandbox keeps .git read-only. It
// is set for every command: without a sandbox the tool cannot tell a
// read-only decision from another, and git takes the locks it needs
// (git add, git commit) whatever the variable says.
// It also returns the PATH entries it left out.
func commandEnv(marker string, ws perm.Workspace) (env, dropped []string) {
	env = []string{marker}
	base, dropped := bash.CommandEnv(os.Environ(), ws.Contains)
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if hiddenEnv.Get()[k] {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "GIT_TERMINAL_PROMPT=0", "PAGER=cat", "GIT_PAGER=cat", "GIT_OPTIONAL_LOCKS=0")
	return append(env, gitOverrides()...), dropped
}

// gitOverrides turns off the repository configuration that makes even a
// read-only git command run a program: core.fsmonitor runs on every
// `git status`, and a repository unpacked from an archive brings its own
// .git/config. Overrides already in the environment are kept.
func gitOverrides() []string {
	n, _ := strconv.Atoi(os.Getenv("GIT_CONFIG_COUNT"))
	var env []string
	for _, kv := range bash.GitOverrides {
		env = append(env, fmt.Sprintf("GIT_CONFIG_KEY_%d=%s", n, kv[0]), fmt.Sprintf("GIT_CONFIG_VALUE_%d=%s", n, kv[1]))
		n++
	}
	return append(env, fmt.Sprintf("GIT_CONFIG_COUNT=%d", n))
}

// hiddenEnv are the variables commandEnv removes.
var hiddenEnv = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{"OPENAI_API_KEY": true, "OPENAI_BASE_URL": true, "GEN_SEARCH_URL": true, markerVar: true, "GIT_CONFIG_COUNT": true,
		"GIT_OPTIONAL_LOCKS": true}
}}

// markerVar marks the environment of every process a Bash call starts.
const markerVar = "GEN_BASH_CALL"

// newMarker returns a marker unique to one call in this process.
func newMarker() string { return reap.Marker(markerVar) }

// capWriter keeps the first and last bytes written to it, up to max in
// all including the omission marker, and counts the rest.
type capWriter struct {
	max   int
	head  []byte
	tail  []byte // the latest bytes, trimmed lazily to tailCap
	total int64
}

// markerRoom is the space reserved in max for the omission marker.
const markerRoom = 64

func (w *capWriter) caps() (head, tail int) {
	half := (w.max - markerRoom) / 2
	return half, half
}

func (w *capWriter) Write(p []byte) (int, error) {
	n := len(p)
	w.total += int64(n)
	headCap, tailCap := w.caps()
	if room := headCap - len(w.head); room > 0 {
		take := min(room, len(p))
		w.head = append(w.head, p[:take]...)
		p = p[take:]
	}
	w.tail = append(w.tail, p...)
	if len(w.tail) > 2*tailCap {
		w.tail = append([]byte(nil), w.tail[len(w.tail)-tailCap:]...)
	}
	return n, nil
}

// String returns everything written if it fits, else the head, a marker
// saying how many bytes were left out, and the tail. Cuts are moved to
// rune boundaries, and invalid UTF-8 is replaced.
func (w *capWriter) String() string {
	headCap, tailCap := w.caps()
	if w.total <= int64(headCap+tailCap) {
		return strings.ToValidUTF8(string(w.head)+string(w.tail), "\uFFFD")
	}
	head := trimPartialRuneEnd(w.head)
	tail := w.tail[len(w.tail)-min(len(w.tail), tailCap):]
	for len(tail) > 0 && !utf8.RuneStart(tail[0]) {
		tail = tail[1:]
	}
	omitted := w.total - int64(len(head)) - int64(len(tail))
	return strings.ToValidUTF8(string(head), "\uFFFD") +
		fmt.Sprintf("\n… %d bytes omitted …\n", omitted) +
		strings.ToValidUTF8(string(tail), "\uFFFD")
}

// trimPartialRuneEnd drops an incomplete UTF-8 sequence at the end of b.
func trimPartialRuneEnd(b []byte) []byte {
	for i := 1; i <= utf8.UTFMax && i <= len(b); i++ {
		c := b[len(b)-i]
		if utf8.RuneStart(c) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i]
			}
			return b
		}
	}
	return b
}

// lookPath is exec.LookPath with the PATH value path instead of the
// process's: the first executable file name in one of its absolute
// directories.
func lookPath(name, path string) (string, error) {
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) {
			continue
		}
		f := filepath.Join(dir, name)
		if fi, err := os.Stat(f); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return f, nil
		}
	}
	return "", fmt.Errorf("%s not found in %s: %w", name, path, exec.ErrNotFound)
}
