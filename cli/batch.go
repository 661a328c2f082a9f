package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/gen-run/gen/agent"
	"github.com/gen-run/gen/batch"
	"github.com/gen-run/gen/cost"
	"github.com/gen-run/gen/loop"
	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/policy"
	"github.com/gen-run/gen/settings"
	"github.com/gen-run/gen/subagent"
	"github.com/gen-run/gen/transcript"
)

// batchOptions are the flags and dependencies of gen agent batch.
type batchOptions struct {
	input       string // FILE, or "-" / "" for standard input
	concurrency int
	shard       string
	resume      bool
	failFast    bool
	output      string
	summary     string
	// The headless flags, applied to every task.
	mode       string
	addDirs    []string
	allowed    []string
	disallowed []string
	model      string
	trust      bool
	noStream   bool
	budget     float64
	agents     agentsFlag
	mcpFlags

	streams Streams
	getenv  func(string) string
}

func newAgentBatchCmd(s Streams) *cobra.Command {
	o := &batchOptions{streams: s, getenv: os.Getenv}
	cmd := &cobra.Command{
		Use:   "batch [FILE|-] [flags]",
		Short: "Run many agent tasks from a JSONL file, headless, with one result line each",
		Long: `Run many agent tasks from a JSONL file (or standard input), headless.

Each line is a task: {"id": "t1", "type": "AGENT", "prompt": "..."}, with
optional cwd (relative to the file's directory), model, max_turns,
permission_mode (narrows the agent's mode, never widens it) and metadata
(copied to the result). Every line is checked before any task runs; a bad
line is exit 2 naming file:line. Blank lines are skipped.

Each task runs like gen agent run. Its result is one JSON line, written as
it ends, to --output (default standard output). Progress and the summary go
to standard error. Exit code: 0 all tasks succeeded, 3 some had denials and
none failed, 1 some failed (or did not start), 2 usage errors.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.input = args[0]
			}
			return runAgentBatch(cmd.Context(), o)
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&o.concurrency, "concurrency", runtime.NumCPU(), "tasks run at once")
	fl.StringVar(&o.shard, "shard", "", "run shard K/N of the tasks (index mod N = K, zero-based), or auto/N: K from JOB_COMPLETION_INDEX or GitLab's CI_NODE_INDEX")
	fl.BoolVar(&o.resume, "resume", false, "skip tasks that already have a result line in --output, and append")
	fl.BoolVar(&o.failFast, "fail-fast", false, "start no task after the first failed one")
	fl.StringVarP(&o.output, "output", "o", "", "result file (default: standard output)")
	fl.StringVar(&o.summary, "summary", "", "also write the summary as JSON to this file")
	fl.StringVar(&o.mode, "permission-mode", "", "cap every task's mode: default, acceptEdits, plan, dontAsk, bypassPermissions, auto, explore (narrows, never widens)")
	stringsVar(fl, &o.addDirs, "add-dir", nil, "additional directory file tools may access (repeatable)")
	stringsVar(fl, &o.allowed, "allowedTools", nil, "allow rules, CLI scope, comma- or space-separated (repeatable); a subagent's allow_tools still decide what it may do")
	stringsVar(fl, &o.disallowed, "disallowedTools", nil, "deny rules for every task, comma- or space-separated, e.g. 'Bash(rm:*)' (repeatable)")
	fl.StringVar(&o.model, "model", "", "model for tasks that name none (default: the agent's), or offline")
	fl.BoolVar(&o.trust, "trust", false, "trust the tasks' projects for this run only (see gen trust)")
	fl.BoolVar(&o.noStream, "no-stream", false, noStreamHelp)
	fl.Float64Var(&o.budget, "max-budget-usd", 0, "the whole batch's budget: once its tasks have spent this many US dollars, no task starts another model turn (prices from the api.pricing setting; a task whose model has none fails)")
	o.agents.register(fl)
	o.mcpFlags.register(cmd, true)
	return cmd
}

// runAgentBatch validates everything a batch needs before it runs any task,
// then runs the tasks and reports.
func runAgentBatch(ctx context.Context, o *batchOptions) error {
	s := o.streams
	if o.concurrency < 1 {
		return usageErr(fmt.Errorf("--concurrency must be at least 1"))
	}
	if err := checkBudget(o.budget); err != nil {
		return err
	}
	if err := o.agents.parse(); err != nil {
		return err
	}
	shard, err := batch.ParseShard(o.shard, o.getenv)
	if err != nil {
		return usageErr(err)
	}
	if o.resume && o.output == "" {
		return usageErr(fmt.Errorf("--resume needs --output FILE: it reads the results already there"))
	}
	errw := &syncWriter{w: s.Err}
	run, err := newTaskRunner(o, errw)
	if err != nil {
		return usageErr(err)
	}
	tasks, err := readTasks(ctx, o, s)
	if err != nil {
		return err
	}
	tasks = shard.Select(tasks)

	out := s.Out
	var skipped int
	if o.output != "" {
		f, done, err := batch.OpenOutput(o.output, o.resume)
		if err != nil {
			return usageErr(err)
		}
		defer f.Close()
		out = f
		todo := tasks[:0:0]
		for _, t := range tasks {
			if !done[t.ID] {
				todo = append(todo, t)
			}
		}
		skipped = len(tasks) - len(todo)
		tasks = todo
	}

	// The MCP servers are started once, from the settings of the
	// directory gen was started in (and --mcp-config), and every task
	// shares them; each task gets its own delegate view (exec).
	wd, err := os.Getwd()
	if err != nil {
		return usageErr(err)
	}
	live, err := run.live(wd)
	if err != nil {
		return usageErr(err)
	}
	set, err := live.Current()
	if err != nil {
		return usageErr(err)
	}
	servers, err := startMCP(ctx, live, set, &o.mcpFlags, true, errw)
	if err != nil {
		return err
	}
	defer servers.close()
	run.mcp = servers.MCP

	progress := &batch.Progress{W: errw, Terminal: isTerminalWriter(s.Err)}
	opts := batch.Options{Concurrency: o.concurrency, FailFast: o.failFast, Output: out, Progress: progress}
	sum, runErr := batch.Run(ctx, opts, tasks, run.exec)
	progress.Close()
	sum.Skipped = skipped
	sum.WriteText(errw)
	if o.summary != "" {
		if err := sum.WriteFile(o.summary); err != nil {
			return &exitError{ExitFailed, err}
		}
	}
	if runErr != nil {
		return &exitError{ExitFailed, runErr}
	}
	if sum.ExitCode != ExitOK {
		return &exitError{sum.ExitCode, errors.New("")}
	}
	return nil
}

// readTasks reads and validates the task file; any problem is exit 2.
// Tasks on stdin are read in a goroutine of their own, so that a
// cancelled ctx (SIGINT, SIGTERM) ends the wait even while a writer holds
// the pipe open (exit 1); the goroutine is then left blocked on stdin,
// which the exiting process ends.
func readTasks(ctx context.Context, o *batchOptions, s Streams) ([]batch.Task, error) {
	if o.input == "" || o.input == "-" {
		if s.InTerminal {
			return nil, usageErr(fmt.Errorf("no task file: give FILE, or pipe JSONL tasks on standard input"))
		}
		wd, err := os.Getwd()
		if err != nil {
			return nil, usageErr(err)
		}
		type parsed struct {
			tasks []batch.Task
			err   error
		}
		done := make(chan parsed, 1)
		go func() {
			tasks, err := batch.Parse(s.In, "<stdin>", wd)
			done <- parsed{tasks, err}
		}()
		select {
		case p := <-done:
			return p.tasks, taskErr(p.err)
		case <-ctx.Done():
			return nil, &exitError{ExitFailed, fmt.Errorf("interrupted while reading tasks from stdin: %w", context.Cause(ctx))}
		}
	}
	path, err := filepath.Abs(o.input)
	if err != nil {
		return nil, usageErr(err)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, usageErr(err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return nil, usageErr(fmt.Errorf("%s is a directory, not a task file", o.input))
	}
	tasks, err := batch.Parse(f, o.input, filepath.Dir(path))
	return tasks, taskErr(err)
}

func taskErr(err error) error {
	if err == nil {
		return nil
	}
	var pe *batch.ParseError
	if errors.As(err, &pe) {
		return usageErr(fmt.Errorf("invalid task file; no task was run:\n%w", err))
	}
	return usageErr(err)
}

// isTerminalWriter reports whether w is a terminal (for the progress bar).
func isTerminalWriter(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// syncWriter serialises writes from concurrent tasks (warnings) and the
// progress display onto one stream.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// taskRunner runs one batch task the way `gen agent run` runs an agent:
// settings for the task's cwd, its agent from that project's catalog, the
// subagent policy, headless. It is the only part of gen agent batch that
// knows how a task runs (batch.Exec).
//
// Tasks share what is safe to share: the settings of each cwd, followed
// live as `gen agent run` follows them (one settings.Live per cwd: a deny
// rule added to a settings file while the batch runs applies to the next
// call of every task under it, and a file made malformed denies every
// call), the hooks and skills of each cwd (hooksAndSkills, over that
// settings.Live: a project's hooks run while its trust holds), agent
// catalogs once per project root, one model client per model name and api
// settings (its HTTP connections included), and the MCP servers. Each
// cache holds one entry per distinct key, so memory is
// bounded by the task file's distinct cwd and model values. Nothing else
// is shared: every subagent.Run builds its own policy, gate and tool
// state, and each task gets a fresh permission-prompt delegate
// (subagent.MCP.Fresh), so no task's grants, "always allow" answers or
// read-before-write state reach another task.
type taskRunner struct {
	opts     settings.Options // the flags; Cwd is set per task
	mode     perm.Mode        // --permission-mode, "" for none
	model    string           // --model
	noStream bool             // --no-stream
	errw     io.Writer
	// mcp are the batch's MCP servers, shared by every task; nil for none.
	mcp *subagent.MCP

	settings batch.Cache[*settings.Live]
	extras   batch.Cache[hooksAndSkills] // by cwd, as settings
	catalogs batch.Cache[*agent.Catalog]
	models   batch.Cache[namedModel]
	warned   batch.Cache[struct{}]
	// meter is the batch's: every task's spending counts towards it, and
	// --max-budget-usd is its budget.
	meter *cost.Meter
	// agents are --agents' definitions, above every task's agent files.
	agents *agentsFlag
}

// namedModel is a model client and the name it was made for.
type namedModel struct {
	model loop.Model
	name  string
}

func newTaskRunner(o *batchOptions, errw io.Writer) (*taskRunner, error) {
	r := &taskRunner{model: o.model, noStream: o.noStream, errw: errw, meter: &cost.Meter{Max: o.budget}, agents: &o.agents}
	if o.mode != "" {
		m, err := perm.ParseMode(o.mode)
		if err != nil {
			return nil, fmt.Errorf("--permission-mode: %w", err)
		}
		r.mode = m
	}
	// Each value is a list of rules, as for gen -p (splitRuleList): read
	// as one rule, "Read(./secrets/**),Read(./.env)" denied nothing.
	allowed, disallowed := splitRuleLists(o.allowed), splitRuleLists(o.disallowed)
	for _, list := range []struct {
		flag  string
		rules []string
	}{{"--allowedTools", allowed}, {"--disallowedTools", disallowed}} {
		for _, rule := range list.rules {
			if _, err := perm.ParseRule(rule); err != nil {
				return nil, fmt.Errorf("%s %q: %w", list.flag, rule, err)
			}
		}
	}
	// --add-dir names directories relative to where gen was started, not
	// to each task's cwd; one that is not there fails the batch before
	// any task starts, not every task.
	dirs, err := startDirs(o.addDirs)
	if err != nil {
		return nil, err
	}
	for i, d := range dirs {
		if d == "" {
			return nil, fmt.Errorf("--add-dir: empty directory name")
		}
		if strings.HasPrefix(d, "~") {
			continue // under the home directory: each task's settings check it
		}
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("--add-dir %s: not an existing directory", o.addDirs[i])
		}
	}
	if len(o.allowed) > 0 {
		r.warn("--allowedTools: a subagent's allow_tools decide what it may do; settings and CLI allow rules do not reach it (gen agent show NAME)")
	}
	r.opts = settings.Options{AddDirs: dirs, Allowed: allowed, Disallowed: disallowed, Trust: o.trust}
	return r, nil
}

// exec is the batch.Exec of gen agent batch.
func (r *taskRunner) exec(ctx context.Context, t batch.Task) batch.Result {
	live, err := r.live(t.Cwd)
	if err != nil {
		return failed(err)
	}
	set, err := live.Current()
	if err != nil {
		return failed(err)
	}
	root := set.Workspace.Root
	cat, err := r.catalogs.Get(root, func() (*agent.Catalog, error) {
		cat, err := r.agents.discover(set)
		if err == nil {
			for _, w := range cat.Warnings() {
				r.warn(w)
			}
		}
		return cat, err
	})
	if err != nil {
		return failed(err)
	}
	def, ok := cat.Get(t.Type)
	if !ok {
		var names []string
		for _, d := range cat.All() {
			names = append(names, d.Name)
		}
		return failed(fmt.Errorf("unknown agent type %q in %s (available: %s)", t.Type, root, strings.Join(names, ", ")))
	}
	d := *def
	d.Mode = perm.CapMode(perm.CapMode(d.Mode, r.mode), t.Mode)
	name := cmp.Or(t.Model, r.model, def.Model)
	// The api settings configure the client, so they are part of its key.
	key := fmt.Sprintf("%s\x00%+v", name, set.API)
	client, err := r.models.Get(key, func() (namedModel, error) {
		// A model named by the task or --model must have an endpoint;
		// one named only by the agent file may fall back to offline.
		m, name, err := pickModel(name, t.Model != "" || r.model != "", set.API, r.noStream, nil, r.errw)
		return namedModel{m, name}, err
	})
	if err != nil {
		return failed(err)
	}
	// Each task has a meter of its own for its result's cost, under the
	// batch's.
	taskMeter, model, err := meterFor(0, r.meter, client.model, client.name, set.API)
	if err != nil {
		return failed(err)
	}
	// subagent.Run copies what it changes (policy.Subagent clones the
	// workspace directories), so tasks share the parsed settings safely.
	// The session ID is the task's: its hooks are told the one its result
	// line carries.
	sid := transcript.NewID()
	cfg := subagent.Config{Def: &d, Settings: set, Live: live, Agents: cat.All(), Model: model, MaxTurns: t.MaxTurns, MCP: r.mcp.Fresh(), OnWarning: r.warn, SessionID: sid}
	extras, _ := r.extras.Get(t.Cwd, func() (hooksAndSkills, error) {
		return loadHooksAndSkills(live, set, r.warn), nil
	})
	extras.apply(&cfg)
	rep := subagent.Run(ctx, cfg, t.Prompt)
	for _, w := range rep.Warnings {
		r.warn(w)
	}
	obj := rep.Object()
	res := batch.Result{
		ExitCode:          rep.ExitCode(),
		IsError:           obj.IsError,
		Result:            obj.Result,
		NumTurns:          obj.NumTurns,
		Usage:             obj.Usage,
		SessionID:         sid,
		PermissionDenials: obj.PermissionDenials,
		TotalCostUSD:      taskMeter.SpentIfPriced(),
	}
	if rep.Err != nil {
		res.Error = rep.Err.Error()
	}
	return res
}

// live returns the settings of one task cwd, with the command's flags,
// followed live; loaded once per cwd for the whole batch.
func (r *taskRunner) live(cwd string) (*settings.Live, error) {
	return r.settings.Get(cwd, func() (*settings.Live, error) {
		if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("cwd %s: not a directory", cwd)
		}
		opts := r.opts
		opts.Cwd = cwd
		live, err := settings.Watch(opts)
		if err != nil {
			return nil, err
		}
		set, err := live.Current()
		if err != nil {
			return nil, err
		}
		for _, w := range set.Warnings {
			r.warn(w)
		}
		// Sandbox warnings (ignored project sandbox settings) are said
		// once per cwd, where the settings are loaded.
		_, sw := policy.Sandbox(set)
		for _, w := range sw {
			r.warn(w)
		}
		return live, nil
	})
}

// warn prints each distinct warning once per batch.
func (r *taskRunner) warn(w string) {
	r.warned.Get(w, func() (struct{}, error) {
		warnTo(r.errw, w)
		return struct{}{}, nil
	})
}

// failed is the result of a task that could not run.
func failed(err error) batch.Result {
	return batch.Result{ExitCode: batch.ExitFailed, IsError: true, Result: err.Error(), Error: err.Error()}
}
