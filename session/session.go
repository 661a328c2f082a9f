package session

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/gen-run/gen/agent"
	"github.com/gen-run/gen/gate"
	"github.com/gen-run/gen/hook"
	"github.com/gen-run/gen/loop"
	"github.com/gen-run/gen/memory"
	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/policy"
	"github.com/gen-run/gen/schema"
	"github.com/gen-run/gen/settings"
	"github.com/gen-run/gen/skill"
	"github.com/gen-run/gen/structured"
	"github.com/gen-run/gen/subagent"
	"github.com/gen-run/gen/tool"
	"github.com/gen-run/gen/transcript"
	"github.com/gen-run/gen/trust"
)

// DefaultSystem is the main loop's system prompt.
const DefaultSystem = `You are gen, a coding agent working in the user's project. Use the tools to read, search, edit and run things; every tool call passes a permission gate, and a call answered "DENIED: <reason>" did not run — do not retry it unchanged. Delegate self-contained investigations to subagents with the Agent tool. Answer concisely.`

// Config configures a Session.
type Config struct {
	// Settings is how the settings are loaded. They are followed while
	// the session runs (settings.Live): a change to any settings file, by
	// another session or an editor, applies to the next call.
	Settings settings.Options
	// Live, if set, is the settings already loaded for Settings (the
	// caller needed them first); nil means New loads them.
	Live      *settings.Live
	Model     loop.Model
	ModelName string
	// Output, if set, is --json-schema's tool: the main loop has it, and
	// a turn whose model ends without a valid answer through it is told
	// to give one (structured.Tries times), then fails with
	// structured.ErrMissing. Each turn starts without an answer.
	Output *structured.Output
	// Approver asks a person about Ask decisions. nil means headless:
	// Ask becomes Deny and nothing waits on a terminal.
	Approver gate.Approver
	// Asker answers AskUserQuestion. nil makes the tool an error result.
	Asker    tool.Asker
	MaxTurns int
	System   string // "" means DefaultSystem
	// AppendSystem, if set, is added to the end of the system prompt
	// (--append-system-prompt).
	AppendSystem string
	// History is the conversation to continue (--resume, --continue):
	// user, assistant and tool messages, without a system prompt.
	History []openai.ChatCompletionMessage
	// SessionID and TranscriptPath name this conversation and the file it
	// is kept in (package transcript); hooks pass them on as session_id
	// and transcript_path. An empty SessionID makes a new one; an empty
	// TranscriptPath keeps no transcript.
	SessionID, TranscriptPath string
	// OnTurn, if set, receives the messages each turn added to the
	// conversation (also of a turn that failed), once the turn is over;
	// the CLI appends them to the session's transcript. An error is
	// reported as a warning: the conversation goes on.
	OnTurn func(msgs []openai.ChatCompletionMessage) error
	// HTTPClient is used by WebFetch and WebSearch (nil: defaults).
	HTTPClient *http.Client
	// SearchURL is the WebSearch endpoint ("" = not configured).
	SearchURL string
	// OnWarning receives warnings (settings, agent files, hooks,
	// skills); may be nil.
	OnWarning func(string)
	// MCP is the run's MCP servers, shared with its subagents, and for a
	// headless session (no Approver) its permission-prompt delegate; nil
	// means neither.
	MCP *subagent.MCP
	// Agents are the agents given for this session only (--agents,
	// agent.ParseJSON), above the agent files (agent.Discover).
	Agents []*agent.Definition
	// Agent, if set, is the agent the main loop runs as (--agent). Its
	// prompt is the system prompt unless System is set; its rules apply
	// to every call (policy.Main) and cap the mode (policy.MainMode),
	// which starts as the agent's unless the settings' mode came from the
	// --permission-mode flag; its own hooks run besides the session's
	// for the main loop's events, not for its subagents'
	// (trust.LiveAgentHooks).
	Agent *agent.Definition
	// AllowBypass is --allow-dangerously-skip-permissions: the person may
	// switch to bypassPermissions during the session (SetMode,
	// CycleMode), which is otherwise open only to a session that started
	// in it, as in Claude Code: a slip of Shift+Tab must not turn the
	// permission prompts off.
	AllowBypass bool
	// NoSkills is --disable-slash-commands: the session loads no skills,
	// so the model has no Skill tool, and its subagents none either.
	NoSkills bool
	// DebugHooks, when set, is told what each hook event ran (--debug
	// hooks; hook.Runner.Debug), the subagents' included.
	DebugHooks func(string)
	// EndBudget, when set, is the SessionEnd hooks' shared budget
	// (hook.Runner.EndBudget; CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS).
	EndBudget time.Duration
}

// ErrPromptBlocked is returned by Submit when a UserPromptSubmit hook
// blocks the prompt: the prompt is dropped, the conversation unchanged.
var ErrPromptBlocked = errors.New("session: the prompt was blocked by a UserPromptSubmit hook")

// Session is the main loop: one conversation with its permission state.
// Its methods are safe for concurrent use; turns run one at a time.
type Session struct {
	cfg Config

	live   *settings.Live
	policy func() perm.Policy // the policy in force now (policy.Live)

	mu   sync.Mutex         // guards the fields below
	set  *settings.Settings // as last loaded successfully
	mode perm.Mode
	// planExit is the mode the person chose when they approved the plan
	// (ExitPlanMode's dialog), which leavePlan switches to.
	planExit perm.Mode
	// bypass says bypassPermissions may be switched to (Config.AllowBypass,
	// or the session started in it).
	bypass bool
	// fromSettings is the mode the session started in when a settings
	// file's defaultMode chose it, "" otherwise or once the person
	// changed the mode: it holds only as long as the settings still give
	// it (build).
	fromSettings perm.Mode
	session      []perm.Rule // session runtime permissions (step 4)
	dirs         []string    // /add-dir
	catalog      *agent.Catalog
	loaded       []string // MCP tool groups loaded (progressive disclosure)

	turn    sync.Mutex // held for the length of a turn
	history []openai.ChatCompletionMessage
	env     *tool.Env
	tasks   *tool.TaskList
	gate    *gate.Gate
	box     tool.Toolbox
	hooks   *hook.Agent
	// sessionHooks runs the settings' hooks, without the main loop's
	// agent's own: what its subagents run besides theirs.
	sessionHooks *hook.Runner
	skills       *skill.Set
	started      atomic.Bool // SessionStart hooks ran
	ended        atomic.Bool // End ran
	// notifying counts the Notification hooks running beside the
	// session (Notify), which End stops (unnotify) and waits for, so
	// that none outlives it.
	notifying sync.WaitGroup
	notifyMu  sync.Mutex // orders Notify's Add before End's Wait
	unnotify  context.CancelFunc
	notifyCtx context.Context

	ask sync.Mutex // one dialog at a time
}

// New loads settings and agents and starts a session.
func New(cfg Config) (*Session, error) {
	if cfg.Model == nil {
		return nil, errors.New("session: no model")
	}
	if cfg.SessionID == "" {
		cfg.SessionID = transcript.NewID()
	}
	live := cfg.Live
	if live == nil {
		l, err := settings.Watch(cfg.Settings)
		if err != nil {
			return nil, err
		}
		live = l
	}
	set, err := live.Current()
	if err != nil {
		return nil, err
	}
	var cat *agent.Catalog
	if why := set.LockedBy("agents"); why != "" {
		cat = agent.DiscoverLocked(set.Workspace.Cwd, set.Workspace.Home, why, cfg.Agents...)
	} else if cat, err = agent.Discover(set.Workspace.Cwd, set.Workspace.Home, cfg.Agents...); err != nil {
		return nil, err
	}
	mode, agentWarns, err := startMode(set, cfg.Agent)
	if err != nil {
		return nil, err
	}
	s := &Session{cfg: cfg, live: live, set: set, mode: mode, bypass: cfg.AllowBypass || mode == perm.ModeBypass, catalog: cat, tasks: &tool.TaskList{}}
	if set.ModeSource != perm.SourceCLI && mode == set.Mode {
		s.fromSettings = mode
	}
	s.notifyCtx, s.unnotify = context.WithCancel(context.Background())
	s.policy = policy.Live(live, s.build)
	for _, w := range slices.Concat(set.Warnings, cat.Warnings(), agentWarns) {
		s.warn(w)
	}
	for _, e := range cat.Errors() {
		// The other agents stay usable; delegating to this one fails
		// with the file's error (Catalog.Lookup).
		s.warn(e.Error())
	}
	sys := cfg.System
	if sys == "" && cfg.Agent != nil {
		sys = cfg.Agent.Prompt
	}
	if sys == "" {
		sys = DefaultSystem
	}
	// The main loop's rules as it starts, its agent's included.
	start := policy.Main(set, policy.Runtime{Agent: cfg.Agent})
	read := policy.Memory(&start)
	env, warns, err := memory.SystemPrompt(&read, time.Now())
	if err != nil {
		return nil, err
	}
	for _, w := range warns {
		s.warn(w)
	}
	sys += "\n\n" + env
	if cfg.AppendSystem != "" {
		sys += "\n\n" + cfg.AppendSystem
	}
	s.history = append([]openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleSystem, Content: sys}}, cfg.History...)
	s.env = tool.NewEnv(set.Workspace)
	// Bash takes the sandbox settings from the policy in force; what the
	// project may not widen is said once, here.
	_, sbWarns := policy.Sandbox(set)
	for _, w := range sbWarns {
		s.warn(w)
	}
	s.env.Warn = s.warn
	s.hooks, s.sessionHooks = s.loadHooks()
	s.skills = &skill.Set{}
	if !cfg.NoSkills {
		s.skills = s.loadSkills(&read)
	}
	if cfg.Approver != nil {
		s.gate = &gate.Gate{Policy: s.Policy, Asker: s}
	} else {
		s.gate = cfg.MCP.Gate("", s.Policy)
	}
	s.gate.Hooks = s.hooks
	s.box = tool.Toolbox{
		Env:        s.env,
		Policy:     s.gate.Effective,
		Gate:       s.gate,
		HTTPClient: cfg.HTTPClient,
		SearchURL:  cfg.SearchURL,
		Tasks:      s.tasks,
		Asker:      cfg.Asker,
	}
	return s, nil
}

// structured gives r, the main loop's runner, the StructuredOutput tool's
// validation (the user's schema, not the catalog's, and no
// normalisation: a null in the answer stays) and a check before the run
// ends that the model answered through it.
func (s *Session) structured(r *loop.Runner) {
	out := s.cfg.Output
	validate, normalize := r.Validate, r.Normalize
	if normalize == nil {
		normalize = schema.Normalize
	}
	r.Validate = func(name string, in map[string]any) error {
		if name == structured.Name {
			return out.Validate(in)
		}
		return validate(name, in)
	}
	r.Normalize = func(name string, in map[string]any) map[string]any {
		if name == structured.Name {
			return in
		}
		return normalize(name, in)
	}
	stop, nudged := r.BeforeStop, 0
	r.BeforeStop = func(ctx context.Context, final string, active bool) string {
		if _, ok := out.Value(); !ok && nudged < structured.Tries {
			nudged++
			return structured.Nudge
		}
		if stop != nil {
			return stop(ctx, final, active)
		}
		return ""
	}
}

// loadHooks returns the hooks of the main loop and the runner of the
// settings' hooks that may run in this session as its settings are at
// each event (trust.LiveHooks). When the main loop runs as an agent its
// hooks are the settings' and, while they may run, the agent's own
// (trust.LiveAgentHooks), whose stop hooks run when the main loop stops
// (hook.Config.AsMain); its subagents run only the settings' besides
// their own.
func (s *Session) loadHooks() (*hook.Agent, *hook.Runner) {
	settingsHooks := trust.LiveHooks(s.live, s.set, s.warn)
	settingsHooks.Debug, settingsHooks.EndBudget = s.cfg.DebugHooks, s.cfg.EndBudget
	a := &hook.Agent{
		Runner:         settingsHooks,
		SessionID:      s.cfg.SessionID,
		TranscriptPath: s.cfg.TranscriptPath,
		Cwd:            s.set.Workspace.Cwd,
		Warn:           s.warn,
	}
	if d := s.cfg.Agent; d != nil {
		a.AgentType = d.Name
		if !d.Hooks.Empty() {
			// Its stop hooks are Stop hooks here: converted once, not at
			// every event.
			m := *d
			m.Hooks = d.Hooks.AsMain(d.Name)
			a.Runner = settingsHooks.With(trust.LiveAgentHooks(s.live, s.set, &m), s.set.Workspace.Root)
		}
	}
	return a, settingsHooks
}

// loadSkills discovers the skills of the project, the user and the
// additional directories (only their .gen/skills), each file checked
// against read, the policy memory files are read under. A broken skill
// is a warning: it does not hide the others.
func (s *Session) loadSkills(read *perm.Policy) *skill.Set {
	ws := s.set.Workspace
	var set *skill.Set
	var err error
	if why := s.set.LockedBy("skills"); why != "" {
		set = skill.DiscoverLocked(ws.Cwd, ws.Home, ws.Dirs, why)
	} else {
		set, err = skill.Discover(ws.Cwd, ws.Home, ws.Dirs, memory.Readable(read))
	}
	if err != nil {
		s.warn(err.Error())
	}
	for _, w := range set.Warnings {
		s.warn(w)
	}
	return set
}

func (s *Session) warn(w string) {
	if s.cfg.OnWarning != nil {
		s.cfg.OnWarning(w)
	}
}

// Policy returns the policy in force now: the settings as their files are
// now, the current mode, session permissions and added directories
// (policy.Main). Settings that cannot be reloaded give a policy that
// denies every call (policy.Live).
func (s *Session) Policy() perm.Policy { return s.policy() }

// build is the main loop's policy under set, which it records as the
// settings in force. A mode the new settings disable (bypassPermissions
// under disableBypassPermissionsMode) falls back to default.
func (s *Session) build(set *settings.Settings) perm.Policy {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.set = set
	if !set.ModeAllowed(s.mode) {
		s.mode = perm.ModeDefault
	}
	if m := s.fromSettings; m != "" && s.mode == m && set.Mode != m {
		// The settings that chose the start mode no longer give it (a
		// trusted project's defaultMode, once the project is no longer
		// trusted, or a file changed): the session narrows to what they
		// give now, never widens, and bypassPermissions stays open only
		// if the person opened it.
		s.mode = perm.CapMode(m, cmp.Or(set.Mode, perm.ModeDefault))
		s.fromSettings = ""
		if m == perm.ModeBypass && s.mode != perm.ModeBypass {
			s.bypass = s.cfg.AllowBypass
		}
	}
	p := policy.Main(s.set, s.runtime())
	if s.cfg.Agent != nil {
		// Under an agent, the mode Main capped (policy.MainMode) as the
		// settings are now: a project no longer trusted caps its agent
		// again, and the session keeps to it.
		s.mode = p.Mode
	}
	return p
}

// runtime returns the main loop's runtime state for package policy; s.mu
// must be held, or s not yet shared.
func (s *Session) runtime() policy.Runtime {
	return policy.Runtime{Mode: s.mode, Grants: s.session, Dirs: s.dirs, Agents: s.catalog.All(), Agent: s.cfg.Agent}
}

// startMode returns the mode a session under set starts in: the
// settings' mode or, when the main loop runs as agent d, d's mode as
// policy.MainMode caps it, unless the --permission-mode flag chose the
// mode, which must then be one d allows. warnings says what of d does not
// apply (policy.MainWarnings), to be said once.
func startMode(set *settings.Settings, d *agent.Definition) (m perm.Mode, warnings []string, err error) {
	if d == nil {
		return set.Mode, nil, nil
	}
	rt := policy.Runtime{Mode: d.Mode, Agent: d}
	flagged := set.ModeSource == perm.SourceCLI
	if flagged {
		rt.Mode = set.Mode
	}
	m, why := policy.MainMode(set, rt)
	if flagged && m != set.Mode {
		msg := fmt.Sprintf("permission mode flag: %s is above what agent %s allows: it runs in %s mode at most", set.Mode, d.Name, m)
		return "", nil, errors.New(strings.Join(append([]string{msg}, why...), "; "))
	}
	return m, policy.MainWarnings(set, rt), nil
}

// Check decides one call as the main loop's gate does (it implements
// tool.Gate): the policy decides, and an Ask goes to the Approver; without
// one (headless) Ask becomes Deny.
func (s *Session) Check(ctx context.Context, req perm.Request) perm.Result {
	return s.gate.Check(ctx, req)
}

// Mode returns the current permission mode.
func (s *Session) Mode() perm.Mode {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mode
}

// SetMode switches to m. Modes managed settings disable, explore (a
// subagent mode), and modes above the agent's the main loop runs as
// (policy.MainMode), are refused.
func (s *Session) SetMode(m perm.Mode) error {
	if _, err := perm.ParseMode(string(m)); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.open(m); err != nil {
		return err
	}
	s.mode, s.fromSettings = m, ""
	return nil
}

// Modes returns the main-loop modes the session may switch to now
// (SetMode), in cycle order.
func (s *Session) Modes() []perm.Mode {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []perm.Mode
	for _, m := range perm.MainLoopModes {
		if s.open(m) == nil {
			out = append(out, m)
		}
	}
	return out
}

// open says why the session may not switch to mode m, if it may not:
// the settings disable m, m is above the agent the main loop runs as,
// or m is bypassPermissions and the session was not opened to it
// (Config.AllowBypass). s.mu is held.
func (s *Session) open(m perm.Mode) error {
	if !s.set.ModeAllowed(m) {
		return fmt.Errorf("mode %s is not available here", m)
	}
	if capped, _ := policy.MainMode(s.set, policy.Runtime{Mode: m, Agent: s.cfg.Agent}); capped != m {
		return fmt.Errorf("mode %s is above what agent %s allows: it runs in %s mode at most", m, s.cfg.Agent.Name, capped)
	}
	if m == perm.ModeBypass && !s.bypass {
		return fmt.Errorf("mode %s is not open to this session: start gen in it, or with --allow-dangerously-skip-permissions", m)
	}
	return nil
}

// planReminder is what the model is told with a prompt submitted in plan
// mode (loop.Runner.Reminder): not the person's words, so the transcript
// does not keep it.
const planReminder = "(Plan mode is on: you may read and search, and nothing that changes anything will run. " +
	"When your plan is ready, present it with the ExitPlanMode tool; the user approves it or asks you to keep planning.)"

// leavePlan leaves plan mode for the mode the person chose when they
// approved the plan (default unless they chose otherwise), and returns
// it; an error when the session is not in plan mode. It is the
// ExitPlanMode tool's, which runs only once its call was approved.
func (s *Session) leavePlan() (perm.Mode, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	// The person's choice is for the call it approved, even when that
	// call fails: a later plan a hook approves leaves for default.
	m := cmp.Or(s.planExit, perm.ModeDefault)
	s.planExit = ""
	if s.mode != perm.ModePlan {
		return "", fmt.Errorf("the session is in %s mode, not plan mode", s.mode)
	}
	if err := s.open(m); err != nil {
		return "", err
	}
	s.mode, s.fromSettings = m, ""
	return m, nil
}

// CycleMode moves to the next main-loop mode the session may switch to
// (SetMode), and returns it; under an agent
// that allows none (explore), the mode stays.
func (s *Session) CycleMode() perm.Mode {
	s.mu.Lock()
	defer s.mu.Unlock()
	modes := perm.MainLoopModes
	at := -1
	for i, m := range modes {
		if m == s.mode {
			at = i
		}
	}
	for i := 1; i <= len(modes); i++ {
		m := modes[(at+i)%len(modes)]
		if s.open(m) == nil {
			s.mode, s.fromSettings = m, ""
			break
		}
	}
	return s.mode
}

// ID returns the session ID and the transcript path (Config.SessionID,
// Config.TranscriptPath).
func (s *Session) ID() (id, transcriptPath string) {
	return s.cfg.SessionID, s.cfg.TranscriptPath
}

// History returns the conversation so far without the system prompt: for
// a resumed session, what the person should see again (tui.Resumed).
func (s *Session) History() []openai.ChatCompletionMessage {
	s.turn.Lock()
	defer s.turn.Unlock()
	return slices.Clone(s.history[1:])
}

// ModelName names the model in the status line.
func (s *Session) ModelName() string { return s.cfg.ModelName }

// AddDir adds a directory to the workspace for this session.
func (s *Session) AddDir(path string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	abs := s.set.Workspace.Abs(path)
	fi, err := os.Stat(abs)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", abs)
	}
	s.dirs = append(s.dirs, filepath.Clean(abs))
	return nil
}

// AllowPattern adds a session allow rule (never written to disk).
func (s *Session) AllowPattern(rule string) error {
	r, err := perm.ParseRule(rule)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.set.ManagedRulesOnly {
		return fmt.Errorf("managed settings allow only managed permission rules (allowManagedPermissionRulesOnly)")
	}
	s.session = append(s.session, r)
	return nil
}

// Agents lists the agent types the Agent tool can delegate to.
func (s *Session) Agents() []*agent.Definition {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.catalog.All()
}

// Tools returns the tool catalog the model sees now, in order: the
// built-in tools, then the MCP tools (after the meta-tools of progressive
// disclosure, when there are many).
func (s *Session) Tools() []string {
	p := s.Policy()
	names := policy.Visible(&p, nil)
	for _, t := range s.offered(&p) {
		if s.shown(&p, t.Name()) {
			names = append(names, t.Name())
		}
	}
	return s.cfg.MCP.Names(&p, nil, names)
}

// Shell runs command as a Bash call of the person's (a custom slash
// command's ! command): the permission gate decides it as it decides the
// model's calls (hooks, rules, the mode, the sandbox), asking the person
// where there is one to ask. It returns the command's output (stdout and
// stderr as it wrote them, without gen's status line or notes). A
// refusal, a command that could not run, one that exited non-zero and
// one its timeout stopped are errors, as in Claude Code. It waits for a
// turn under way, and runs in the workspace of the settings now, as a
// turn does.
func (s *Session) Shell(ctx context.Context, command string) (string, error) {
	s.turn.Lock()
	defer s.turn.Unlock()
	s.follow()
	set, err := tool.NewSet(s.gate, tool.Select(s.box.Tools(), []string{"Bash"}))
	if err != nil {
		return "", err
	}
	r := set.Call(ctx, "Bash", "", map[string]any{"command": command}, nil)
	if r.Err != nil {
		return "", r.Err
	}
	resp, ok := r.Response.(tool.BashResponse)
	switch {
	case !ok:
		return "", fmt.Errorf("the Bash tool gave no output to use")
	case resp.Failure() != "":
		return "", fmt.Errorf("it failed: %s", strings.TrimSpace(resp.Failure()))
	case resp.Interrupted:
		return "", fmt.Errorf("its timeout stopped it")
	}
	return resp.Stdout, nil
}

// follow returns the policy in force now, and has the tools work in its
// workspace (the settings' additional directories may have changed),
// unless the settings could not be loaded. s.turn is held.
func (s *Session) follow() perm.Policy {
	p := s.Policy()
	if p.Failed == "" {
		s.env.Workspace = p.Workspace
	}
	return p
}

// offered returns the built-in tools outside the catalog (policy.Visible)
// that a turn under p may call: Skill when there are skills to load,
// StructuredOutput under --json-schema, and the mode switches. In plan
// mode that is ExitPlanMode; in a session with a person to ask that may
// switch to plan mode, EnterPlanMode, and ExitPlanMode beside it, for
// the plan of a turn the person let into plan mode. Of the mode switches
// the model is shown at each model turn only the one for the mode the
// session is in then (shown).
func (s *Session) offered(p *perm.Policy) []tool.Tool {
	var out []tool.Tool
	if st := skill.NewTool(s.skills); st.Available() && policy.ShowsSkill(p, nil) {
		out = append(out, st)
	}
	if s.cfg.Output != nil {
		out = append(out, s.cfg.Output)
	}
	enter, exit := s.shown(p, "EnterPlanMode"), s.shown(p, "ExitPlanMode")
	if enter || exit {
		out = append(out, tool.ExitPlan{Leave: s.leavePlan})
	}
	if enter {
		out = append(out, tool.EnterPlan{Enter: func() error { return s.SetMode(perm.ModePlan) }})
	}
	return out
}

// shown reports whether the model is shown the tool called name under
// p: a mode switch only where its call can be asked about (ExitPlanMode
// in plan mode, policy.ShowsExitPlan; EnterPlanMode outside it,
// policy.ShowsEnterPlan, where a person answers (Config.Approver: a
// headless run could enter plan mode but never be let out of it) and the
// session may switch to plan mode), every other tool.
func (s *Session) shown(p *perm.Policy, name string) bool {
	switch name {
	case "ExitPlanMode":
		return policy.ShowsExitPlan(p)
	case "EnterPlanMode":
		if s.cfg.Approver == nil || !policy.ShowsEnterPlan(p) {
			return false
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.open(perm.ModePlan) == nil
	}
	return true
}

// turnSchemas returns the schemas of ts the model is shown at a model
// turn: those of the mode switches that apply to the mode the session is
// in then (shown), which an approved switch changes during a turn.
func (s *Session) turnSchemas(ts subagent.Tools) func() []openai.Tool {
	return func() []openai.Tool {
		p := s.Policy()
		return slices.DeleteFunc(slices.Clone(ts.Schemas()), func(t openai.Tool) bool {
			return t.Function != nil && !s.shown(&p, t.Function.Name)
		})
	}
}

// origin is what a subagent the Agent tool starts inherits now.
func (s *Session) origin() subagent.Origin {
	s.mu.Lock()
	defer s.mu.Unlock()
	o := subagent.Origin{
		Settings:  s.set,
		Live:      s.live,
		Agents:    s.catalog,
		Parent:    s.parentLocked(),
		ParentNow: s.parent,
		Skills:    s.skills,
		OnWarning: s.warn,
	}
	o.Hooks, o.SessionID, o.TranscriptPath = s.sessionHooks, s.hooks.SessionID, s.hooks.TranscriptPath
	return o
}

// parent is what the main loop passes down to its subagents now
// (parentLocked): a running subagent asks for it before each of its
// calls, so that a rule or a narrower mode the main loop gets meanwhile
// binds it too.
func (s *Session) parent() policy.Parent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.parentLocked()
}

// parentLocked is parent, with s.mu held: the main loop's mode,
// directories and agent deny rules (policy.MainParent), and the deny and
// ask rules added to it during the session (a PermissionRequest hook's
// updatedPermissions, an Answerer's).
func (s *Session) parentLocked() policy.Parent {
	p := policy.MainParent(s.set, s.runtime())
	deny, ask := s.gate.Restrictions()
	p.Deny = append(p.Deny, deny...)
	p.Ask = append(p.Ask, ask...)
	return p
}

// End ends the session: the Notification hooks still running are
// stopped and waited for (stopping kills their process groups, so the
// wait is short); when its SessionStart hooks ran (Start, or
// a turn), its SessionEnd hooks run, told reason (prompt_input_exit
// when the person left the prompt, other otherwise), once however often
// End is called. They run for their budget (1.5 s, or the longest
// timeout one of them sets, up to a minute, as in Claude Code; or
// Config.EndBudget) even when ctx is cancelled (the person pressed
// Ctrl+C to leave): what a session-end hook records must not be lost to
// the way out. After Ctrl+C they get at most endAfterInterrupt, so that
// they end before gen does. They decide nothing; what they print for the
// user goes to the warnings.
func (s *Session) End(ctx context.Context, reason string) {
	s.notifyMu.Lock()
	s.unnotify()
	s.notifyMu.Unlock()
	s.notifying.Wait()
	if !s.started.Load() || s.ended.Swap(true) {
		return
	}
	endCtx := context.WithoutCancel(ctx)
	if ctx.Err() != nil {
		var cancel context.CancelFunc
		endCtx, cancel = context.WithTimeout(endCtx, endAfterInterrupt)
		defer cancel()
	}
	s.hooks.Run(endCtx, hook.SessionEnd, hook.Input{Reason: reason})
}

// endAfterInterrupt bounds the SessionEnd hooks of a run that was
// interrupted: well inside the 10 s gen goes on after SIGINT or SIGTERM
// (cli's shutdownGrace), so that the hooks are killed with what they
// started rather than left running when gen exits.
const endAfterInterrupt = 5 * time.Second

// Start runs the session's SessionStart hooks (source startup), as
// Claude Code runs them when it starts, rather than at the first prompt:
// the interactive loop calls it as it opens, and a hook's context is in
// the system prompt from the first turn on. It waits for a turn under way
// and does nothing once they ran; Submit runs them if Start did not.
func (s *Session) Start(ctx context.Context) {
	s.turn.Lock()
	defer s.turn.Unlock()
	s.start(ctx)
}

// start runs the SessionStart hooks once. s.turn is held.
func (s *Session) start(ctx context.Context) {
	if s.started.Load() {
		return
	}
	s.started.Store(true)
	o := s.hooks.Run(ctx, hook.SessionStart, hook.Input{Source: "startup", Model: s.cfg.ModelName})
	if len(o.Context) > 0 {
		s.history[0].Content += "\n\n" + strings.Join(o.Context, "\n")
	}
}

// Submit runs one user turn. It blocks until the turn ends; cancelling ctx
// interrupts it (and every subagent it started). onEvent and onText may be
// nil; they are called from other goroutines too (parallel subagents).
func (s *Session) Submit(ctx context.Context, prompt string, onEvent func(loop.Event), onText func(string)) (loop.Outcome, error) {
	s.turn.Lock()
	defer s.turn.Unlock()

	s.start(ctx)
	o := s.hooks.Run(ctx, hook.UserPromptSubmit, hook.Input{Prompt: prompt})
	if o.Block || o.Stop {
		reason := o.Reason
		if !o.Block {
			reason = o.StopReason
		}
		return loop.Outcome{}, fmt.Errorf("%w: %s", ErrPromptBlocked, reason)
	}
	// What the hooks add reaches the model with the prompt, in this turn
	// and the later ones, but is not the person's words: the transcript
	// keeps it apart (loop.Runner.Context).
	hookContext := strings.Join(o.Context, "\n")

	p := s.follow()
	all := append(s.box.Tools(), subagent.NewTool(subagent.ToolConfig{
		Origin:     s.origin,
		Model:      s.cfg.Model,
		HTTPClient: s.cfg.HTTPClient,
		SearchURL:  s.cfg.SearchURL,
		OnEvent:    onEvent,
		MCP:        s.cfg.MCP,
	}))
	s.mu.Lock()
	loaded := s.loaded
	s.mu.Unlock()
	builtins := append(tool.Select(all, policy.Visible(&p, nil)), s.offered(&p)...)
	if s.cfg.Output != nil {
		s.cfg.Output.Reset()
	}
	ts := s.cfg.MCP.Tools(&p, nil, builtins, loaded)
	defer func() {
		loaded := ts.Loaded()
		s.mu.Lock()
		s.loaded = loaded
		s.mu.Unlock()
	}()
	r := &loop.Runner{
		Model:       s.cfg.Model,
		Tools:       ts.List,
		Gate:        s.gate,
		TurnSchemas: s.turnSchemas(ts),
		Validate:    ts.Validate,
		MaxTurns:    s.cfg.MaxTurns,
		OnEvent:     onEvent,
		OnText:      onText,
		Context:     hookContext,
	}
	if policy.ShowsExitPlan(&p) {
		r.Reminder = planReminder
	}
	if s.hooks.Has(hook.Stop) {
		r.BeforeStop = s.hooks.Stop
	}
	if s.cfg.Output != nil {
		s.structured(r)
	}
	r.Halt = s.gate.TakeHalt
	before := s.history
	out, msgs, err := r.Continue(ctx, s.history, prompt)
	if err != nil {
		// Keep the conversation well formed for the next turn: an
		// interrupted turn may end in tool calls without results.
		msgs = append(append(before[:len(before):len(before)], loop.Prompt(prompt, hookContext)...),
			openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: "(this turn ended early: " + err.Error() + ")"})
	}
	s.history = msgs
	if s.cfg.OnTurn != nil {
		if terr := s.cfg.OnTurn(msgs[len(before):len(msgs):len(msgs)]); terr != nil {
			s.warn(fmt.Sprintf("saving the transcript: %v", terr))
		}
	}
	if s.cfg.Output != nil && err == nil {
		// The turn is whole, but its answer is missing.
		if _, ok := s.cfg.Output.Value(); !ok {
			err = structured.ErrMissing
		}
	}
	return out, err
}
