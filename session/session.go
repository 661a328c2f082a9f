package session

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/gen-run/gen/agent"
	"github.com/gen-run/gen/loop"
	"github.com/gen-run/gen/memory"
	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/schema"
	"github.com/gen-run/gen/settings"
	"github.com/gen-run/gen/tool"
)

// DefaultSystem is the main loop's system prompt.
const DefaultSystem = `You are gen, a coding agent working in the user's project. Use the tools to read, search, edit and run things; every tool call passes a permission gate, and a call answered "DENIED: <reason>" did not run — do not retry it unchanged. Delegate self-contained investigations to subagents with the Agent tool. Answer concisely.`

// Config configures a Session.
type Config struct {
	// Settings is how the settings were loaded; they are loaded again
	// after a rule is saved, so concurrent writers are seen.
	Settings  settings.Options
	Model     loop.Model
	ModelName string
	// Approver asks a person about Ask decisions. nil means headless:
	// Ask becomes Deny and nothing waits on a terminal.
	Approver Approver
	// Asker answers AskUserQuestion. nil makes the tool an error result.
	Asker    tool.Asker
	MaxTurns int
	System   string // "" means DefaultSystem
	// HTTPClient is used by WebFetch and WebSearch (nil: defaults).
	HTTPClient *http.Client
	// SearchURL is the WebSearch endpoint ("" = not configured).
	SearchURL string
	// OnWarning receives warnings (settings, agent files); may be nil.
	OnWarning func(string)
}

// Session is the main loop: one conversation with its permission state.
// Its methods are safe for concurrent use; turns run one at a time.
type Session struct {
	cfg  Config
	opts settings.Options

	mu      sync.Mutex // guards the fields below
	set     *settings.Settings
	mode    perm.Mode
	session []perm.Rule // session runtime permissions (step 4)
	dirs    []string    // /add-dir
	catalog *agent.Catalog

	turn    sync.Mutex // held for the length of a turn
	history []openai.ChatCompletionMessage
	env     *tool.Env
	tasks   *tool.TaskList

	ask sync.Mutex // one dialog at a time
}

// New loads settings and agents and starts a session.
func New(cfg Config) (*Session, error) {
	if cfg.Model == nil {
		return nil, errors.New("session: no model")
	}
	set, err := settings.Load(cfg.Settings)
	if err != nil {
		return nil, err
	}
	cat, err := agent.Discover(set.Workspace.Cwd, set.Workspace.Home)
	if err != nil {
		return nil, err
	}
	s := &Session{cfg: cfg, opts: cfg.Settings, set: set, mode: set.Mode, catalog: cat, tasks: &tool.TaskList{}}
	for _, w := range append(set.Warnings, cat.Warnings()...) {
		s.warn(w)
	}
	for _, e := range cat.Errors() {
		// The other agents stay usable; delegating to this one fails
		// with the file's error (Catalog.Lookup).
		s.warn(e.Error())
	}
	sys := cfg.System
	if sys == "" {
		sys = DefaultSystem
	}
	env, err := memory.SystemPrompt(set.Workspace, time.Now())
	if err != nil {
		return nil, err
	}
	sys += "\n\n" + env
	s.history = []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleSystem, Content: sys}}
	s.env = tool.NewEnv(set.Workspace)
	s.env.CanRead = s.canRead
	return s, nil
}

func (s *Session) warn(w string) {
	if s.cfg.OnWarning != nil {
		s.cfg.OnWarning(w)
	}
}

// Policy returns the policy in force now: the settings, the current mode,
// session permissions and added directories.
func (s *Session) Policy() perm.Policy {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.set.Policy()
	p.Mode = s.mode
	p.Session = append([]perm.Rule(nil), s.session...)
	p.Workspace.Dirs = append(p.Workspace.Dirs[:len(p.Workspace.Dirs):len(p.Workspace.Dirs)], s.dirs...)
	p.NoPrompt = s.cfg.Approver == nil
	return p
}

func (s *Session) canRead(tool, path string) bool {
	p := s.Policy()
	return perm.FileAllowed(tool, path, &p)
}

// Mode returns the current permission mode.
func (s *Session) Mode() perm.Mode {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mode
}

// SetMode switches to m. Modes managed settings disable, and explore (a
// subagent mode), are refused.
func (s *Session) SetMode(m perm.Mode) error {
	if _, err := perm.ParseMode(string(m)); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.set.ModeAllowed(m) {
		return fmt.Errorf("mode %s is not available here", m)
	}
	s.mode = m
	return nil
}

// CycleMode moves to the next main-loop mode that settings allow and
// returns it.
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
		if m := modes[(at+i)%len(modes)]; s.set.ModeAllowed(m) {
			s.mode = m
			break
		}
	}
	return s.mode
}

// ModelName names the model in the status line.
func (s *Session) ModelName() string { return s.cfg.ModelName }

// AddDir adds a directory to the workspace for this session.
func (s *Session) AddDir(path string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	abs := perm.ResolvePath(s.set.Workspace, path)
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

// Tools returns the tool catalog the model sees now, in order.
func (s *Session) Tools() []string {
	p := s.Policy()
	var bare []perm.Rule
	for _, e := range p.Deny {
		if !e.Rule.HasPattern {
			bare = append(bare, e.Rule)
		}
	}
	return schema.Visible(schema.Filter{Mode: p.Mode, DenyTools: bare})
}

// tools builds every main-loop tool, unguarded (the loop guards them).
func (s *Session) tools() []tool.Tool {
	ts := tool.Builtins(s.env)
	ts = append(ts,
		tool.NewWebFetch(s, s.cfg.HTTPClient),
		tool.NewWebSearch(s.cfg.SearchURL, s.cfg.HTTPClient),
		tool.NewNotebookEdit(s.env),
	)
	ts = append(ts, tool.NewTaskTools(s.tasks)...)
	ts = append(ts, tool.NewAskUserQuestion(s.cfg.Asker), &agentTool{s: s})
	return ts
}

// turnState is what tools started during one turn share with it.
type turnState struct {
	onEvent func(loop.Event)
	mu      sync.Mutex
	denials []loop.Denial // subagents' denials
	usage   openai.Usage  // subagents' token usage
}

type turnKey struct{}

// Submit runs one user turn. It blocks until the turn ends; cancelling ctx
// interrupts it (and every subagent it started). onEvent and onText may be
// nil; they are called from other goroutines too (parallel subagents).
func (s *Session) Submit(ctx context.Context, prompt string, onEvent func(loop.Event), onText func(string)) (loop.Outcome, error) {
	s.turn.Lock()
	defer s.turn.Unlock()

	s.env.Workspace = s.Policy().Workspace
	names := s.Tools()
	all := s.tools()
	var visible []tool.Tool
	for _, n := range names {
		for _, t := range all {
			if t.Name() == n {
				visible = append(visible, t)
			}
		}
	}
	ts := &turnState{onEvent: onEvent}
	schemas := schema.OpenAI(names)
	for _, sc := range schemas {
		if sc.Function.Name == "Agent" {
			// The model learns the agent types from the tool, not from
			// an error.
			var types []schema.AgentType
			for _, d := range s.Agents() {
				types = append(types, schema.AgentType{Name: d.Name, Description: d.Description})
			}
			sc.Function.Description = schema.AgentDescription(types)
		}
	}
	r := &loop.Runner{
		Model:    s.cfg.Model,
		Tools:    visible,
		Gate:     s,
		Schemas:  schemas,
		MaxTurns: s.cfg.MaxTurns,
		OnEvent:  onEvent,
		OnText:   onText,
	}
	before := s.history
	out, msgs, err := r.Continue(context.WithValue(ctx, turnKey{}, ts), s.history, prompt)
	if err != nil {
		// Keep the conversation well formed for the next turn: an
		// interrupted turn may end in tool calls without results.
		msgs = append(before[:len(before):len(before)],
			openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: prompt},
			openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: "(this turn ended early: " + err.Error() + ")"})
	}
	s.history = msgs
	out.Denials = append(out.Denials, ts.denials...)
	loop.AddUsage(&out.Usage, ts.usage)
	return out, err
}
