package hook

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/gen-run/gen/internal/reap"
	"github.com/gen-run/gen/perm"
)

// maxOutput caps what is kept of each of a hook's stdout and stderr. JSON
// longer than this is reported as invalid rather than parsed.
const maxOutput = 1 << 20

// pipeGrace is how long output is still read after a hook's process group
// is gone: only a process that left the group can hold the pipes longer.
const pipeGrace = time.Second

// markerVar marks the environment of every process a hook starts.
const markerVar = "GEN_HOOK_RUN"

// Runner runs the hooks of a Config. Its fields must not change while Run
// runs; Run is safe for concurrent use.
type Runner struct {
	Config Config
	// Current, when set, gives the hooks that may run now and replaces
	// Config: asked at each event, so a session's hooks follow its
	// settings (trust.LiveHooks).
	Current func() Config
	// ProjectDir is the project root, exported to hooks as
	// GEN_PROJECT_DIR and, for scripts written for Claude Code,
	// CLAUDE_PROJECT_DIR. Not exported when empty.
	ProjectDir string
	// Env is the hooks' environment before those two variables; nil means
	// gen's own (os.Environ).
	Env []string
	// Debug, when set, is told what each event ran (--debug hooks): the
	// hooks that matched, and for each how it ended, how long it took and
	// the start of its output.
	Debug func(string)
	// EndBudget, when set, is the SessionEnd hooks' shared budget,
	// whatever timeouts they set: CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS
	// (EndBudgetFromEnv). Zero means sessionEndBudget's.
	EndBudget time.Duration
}

// Run runs the hooks configured for event whose matcher matches input (the
// tool name for tool events, the source for SessionStart, the agent type
// for SubagentStart and SubagentStop, the reason for SessionEnd), and
// combines their answers.
//
// Matching hooks run in parallel, as in Claude Code, each with bash -c in
// input.Cwd (when set), with the event as JSON on stdin. Each runs in a
// process group of its own that is killed when the hook exits, when its
// timeout (the configured one, else DefaultTimeout) expires, when the
// SessionEnd hooks' shared budget is spent (EndBudget, else
// sessionEndBudget), or when ctx is cancelled, so nothing a hook starts
// outlives it and Run never waits without a bound. The answers are
// combined in configuration order, so the Outcome does not depend on
// which hook finished first.
//
// Exit status 0: stdout may be JSON with decisions (see Outcome). Exit
// status 2: the event is blocked (a tool call denied) with stderr as the
// reason. Any other status is reported in Outcome.Warnings and decides
// nothing; so are a timeout, a cancellation, a signal and an answer gen
// cannot read, except for the hooks of a tool call's decision, whose
// silence must not let the call through (see Verdict).
func (r *Runner) Run(ctx context.Context, event Event, input Input) Outcome {
	subject := input.subject(event)
	ms := r.config().matching(event, subject)
	if event.toolEvent() {
		kept := ms[:0]
		for _, m := range ms {
			if m.If != nil {
				may, sure := r.ifMatch(*m.If, input)
				if !may {
					continue // the hook is not for this call
				}
				m.unsureIf = !sure
			}
			kept = append(kept, m)
		}
		ms = kept
	}
	hs := make([]Handler, len(ms))
	for i, m := range ms {
		hs[i] = m.Handler
	}
	if r.Debug != nil && r.Has(event) {
		r.Debug(fmt.Sprintf("%s (%q): %d matching hooks", event, subject, len(hs)))
	}
	if len(hs) == 0 {
		return Outcome{Event: event}
	}
	if event == SessionEnd {
		b := cmp.Or(r.EndBudget, sessionEndBudget(hs))
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, b, fmt.Errorf("SessionEnd hooks run for at most %v together", b))
		defer cancel()
	}
	stdin, err := input.encode(event)
	if err != nil {
		return Outcome{Event: event, Warnings: []string{fmt.Sprintf("%s hooks not run: encoding their input: %v", event, err)}}
	}
	env := r.Env
	if env == nil {
		env = os.Environ()
	}
	if r.ProjectDir != "" {
		env = append(env[:len(env):len(env)], "GEN_PROJECT_DIR="+r.ProjectDir, "CLAUDE_PROJECT_DIR="+r.ProjectDir)
	}
	as := make([]answer, len(hs))
	var wg sync.WaitGroup
	took := make([]time.Duration, len(hs))
	for i, h := range hs {
		wg.Go(func() {
			as[i] = answer{h: h}
			start := time.Now()
			runOne(ctx, &as[i], event, input.Cwd, env, stdin)
			took[i] = time.Since(start)
			if ms[i].partial {
				as[i].allowNotTaken(fmt.Sprintf("its matcher, a regular expression, matches only part of %q (an allow covers only a name its matcher matches whole)", subject))
			}
			if ms[i].unsureIf {
				as[i].allowNotTaken(fmt.Sprintf("the call is not all its if rule %s covers", h.If))
			}
		})
	}
	wg.Wait()
	if r.Debug != nil {
		for i, a := range as {
			line := fmt.Sprintf("%s (%q): hook %s (%s): %s after %v", event, subject, a.h.Origin, debugText([]byte(a.h.Command)), a.status, took[i].Round(time.Millisecond))
			if a.out != "" {
				line += "; stdout: " + a.out
			}
			if a.errOut != "" {
				line += "; stderr: " + a.errOut
			}
			r.Debug(line)
		}
	}
	return combine(event, as)
}

// Has reports whether any hook that may run now is configured for ev.
func (r *Runner) Has(ev Event) bool { return r.config().Has(ev) }

// With returns a runner of r's hooks and, after them, those extra gives
// at each event: an agent's own hooks while it runs, which extra gives
// only while they may run (trust). It keeps r's environment and project
// directory; on a nil r (no session hooks) it runs only extra's, with
// projectDir as the project directory.
func (r *Runner) With(extra func() Config, projectDir string) *Runner {
	out := &Runner{ProjectDir: projectDir}
	if r != nil {
		out.ProjectDir, out.Env, out.Debug, out.EndBudget = r.ProjectDir, r.Env, r.Debug, r.EndBudget
	}
	out.Current = func() Config {
		var base Config
		if r != nil {
			base = r.config()
		}
		return Merge(base, extra())
	}
	return out
}

// config returns the hooks that may run now.
func (r *Runner) config() Config {
	if r.Current != nil {
		return r.Current()
	}
	return r.Config
}

// runOne runs one hook and records its answer in a.
func runOne(ctx context.Context, a *answer, ev Event, dir string, env []string, stdin []byte) {
	timeout := a.h.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	a.status = "not run"
	if err := ctx.Err(); err != nil {
		a.unanswered(ev, "was not run: %v", context.Cause(ctx))
		return
	}
	var files []*os.File
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		if err == nil {
			files = append(files, r, w)
		}
		return r, w, err
	}
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	inR, inW, err1 := pipe()
	outR, outW, err2 := pipe()
	errR, errW, err3 := pipe()
	if err := errors.Join(err1, err2, err3); err != nil {
		a.unanswered(ev, "was not run: %v", err)
		return
	}
	cmd := exec.Command("bash", "-c", a.h.Command)
	cmd.Dir = dir
	// The marker finds what the hook started in a session of its own,
	// out of reach of the group's kill.
	marker := reap.Marker(markerVar)
	cmd.Env = append(env[:len(env):len(env)], marker)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	ownGroup(cmd)
	err := cmd.Start()
	// The child has its own copies; the parent's ends must close so that
	// reads see end of file when the group is gone.
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		a.unanswered(ev, "was not run: %v", err)
		return
	}
	proc := cmd.Process
	// Ending the hook kills its group and what it started in a session
	// of its own (found by the marker), at once, before any wait for the
	// pipes, as the Bash tool does.
	killGroup := func() {
		killGroup(proc)
		reap.Marked(marker)
	}
	// What the hook left in its group was re-parented to gen if gen is a
	// subreaper: reaped here, it does not stay a zombie.
	defer reap.Group(proc.Pid)

	go func() {
		// A hook that does not read its input gets EPIPE here, or, if
		// something keeps the pipe open without reading, is unblocked when
		// the pipe closes below.
		inW.Write(stdin)
		inW.Close()
	}()
	stdout, stderr := &capped{max: maxOutput}, &capped{max: maxOutput}
	copied := make(chan struct{}, 2)
	for _, c := range []struct {
		w *capped
		r *os.File
	}{{stdout, outR}, {stderr, errR}} {
		go func() {
			io.Copy(c.w, c.r)
			copied <- struct{}{}
		}()
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()

	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var werr error
	select {
	case werr = <-waited:
	case <-tctx.Done():
		killGroup()
		<-waited
		if ctx.Err() != nil {
			a.status = "cancelled"
			a.unanswered(ev, "cancelled (%v)", context.Cause(ctx))
		} else {
			a.status = "timed out"
			a.unanswered(ev, "timed out after %v and was killed", timeout)
		}
		return
	}
	// Background processes the hook left in its group go with it.
	killGroup()
	grace := time.NewTimer(pipeGrace)
	defer grace.Stop()
	for range 2 {
		select {
		case <-copied:
		case <-grace.C:
			// Something left the group and holds a pipe: stop reading.
			outR.Close()
			errR.Close()
			<-copied
		}
	}

	a.out, a.errOut = debugText(stdout.buf), debugText([]byte(stderr.String()))
	var exitErr *exec.ExitError
	a.status = "exit 0"
	if errors.As(werr, &exitErr) {
		a.status = fmt.Sprintf("exit %d", exitErr.ExitCode())
		if exitErr.ExitCode() < 0 {
			a.status = exitErr.String() // "signal: killed"
		}
	} else if werr != nil {
		a.status = "failed: " + werr.Error()
	}
	switch {
	case werr == nil:
		if stdout.over {
			a.unanswered(ev, "printed over %d bytes on stdout", maxOutput)
			return
		}
		a.stdout(ev, stdout.buf)
		a.guard(ev)
	case errors.As(werr, &exitErr) && exitErr.ExitCode() == 2:
		a.exitTwo(ev, stderr.String())
	case errors.As(werr, &exitErr) && (exitErr.ExitCode() == 126 || exitErr.ExitCode() == 127):
		// bash's statuses for a command it could not run: the hook's
		// script is missing or not executable, and never answered.
		a.unanswered(ev, "could not be run (exit status %d)%s", exitErr.ExitCode(), detail(stderr.String()))
	case errors.As(werr, &exitErr) && exitErr.ExitCode() >= 0:
		a.warnf("exited with status %d (a non-blocking error)%s", exitErr.ExitCode(), detail(stderr.String()))
	default:
		// Killed by a signal, or not waited for.
		a.unanswered(ev, "failed: %v%s", werr, detail(stderr.String()))
	}
}

// debugText is the start of a hook's output (or its command) for
// Runner.Debug, on one line, without control characters: a terminal
// escape in a hook's output must not reach the terminal through it.
func debugText(b []byte) string {
	const max = 300
	s := strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(string(b), "\uFFFD"))
	s = strings.Join(strings.Fields(s), " ")
	for i := range s { // at a rune's start
		if i >= max {
			return s[:i] + "…"
		}
	}
	return s
}

func detail(stderr string) string {
	if s := strings.TrimSpace(stderr); s != "" {
		return ": " + s
	}
	return ""
}

// capped keeps the first max bytes written to it and notes whether there
// was more.
type capped struct {
	max  int
	buf  []byte
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	room := c.max - len(c.buf)
	if len(p) > room {
		c.over = true
		c.buf = append(c.buf, p[:max(room, 0)]...)
	} else {
		c.buf = append(c.buf, p...)
	}
	return len(p), nil
}

// String is the text kept, valid UTF-8, marked if it was cut.
func (c *capped) String() string {
	s := strings.ToValidUTF8(string(c.buf), "\uFFFD")
	if c.over {
		s += " … (cut)"
	}
	return s
}

// ifMatch reports whether the tool call of in may match rule, a hook's
// if (Handler.If), read as a deny rule reads a call (may: every form of
// it, every word naming its program: a guard runs wherever the call could
// be what it guards against), and whether it matches as an allow rule
// would (sure: every part covered; only then does the hook's allow
// count). Rules are read against the call's working directory in the
// project, with the user's home for ~.
func (r *Runner) ifMatch(rule perm.Rule, in Input) (may, sure bool) {
	ws := perm.Workspace{Cwd: in.Cwd, Root: cmp.Or(r.ProjectDir, in.Cwd)}
	if h, err := os.UserHomeDir(); err == nil {
		ws.Home = h
	}
	req := perm.Request{Tool: in.ToolName, Input: in.ToolInput}
	entries := []perm.Entry{{Rule: rule, Source: perm.SourceHook, Origin: "a hook's if"}}
	deny := perm.Policy{Mode: perm.ModeBypass, Workspace: ws, Deny: entries}
	if res := perm.Evaluate(req, &deny); res.Step == 1 && res.Decision != perm.Allow {
		may = true
	}
	allow := perm.Policy{Mode: perm.ModeDontAsk, Workspace: ws, Allow: entries}
	if res := perm.Evaluate(req, &allow); res.Decision == perm.Allow && res.Step == 6 {
		sure = true
	}
	return may || sure, sure
}
