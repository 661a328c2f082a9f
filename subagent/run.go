// Package subagent runs an agent definition as a subagent: headless, with
// the policy package policy builds from its frontmatter, its tools behind a
// gate that nobody can be asked through. It also provides the main loop's
// Agent tool, which delegates to it. It sits on loop, gate, policy and
// tool; package report prints what it returns.
package subagent

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/gen-run/gen/agent"
	"github.com/gen-run/gen/hook"
	"github.com/gen-run/gen/loop"
	"github.com/gen-run/gen/memory"
	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/policy"
	"github.com/gen-run/gen/report"
	"github.com/gen-run/gen/settings"
	"github.com/gen-run/gen/skill"
	"github.com/gen-run/gen/tool"
	"github.com/gen-run/gen/transcript"
	"github.com/gen-run/gen/trust"
)

// Config is one subagent run.
type Config struct {
	// Def must not be nil, and Settings or Live neither.
	Def      *agent.Definition
	Settings *settings.Settings
	// Live, if set, follows the settings files while the run lasts: the
	// policy is rebuilt from them before each call (policy.Live), so a
	// deny rule added meanwhile applies to the next call. Settings, if
	// also set, are the ones the run starts from.
	Live *settings.Live
	// Parent, if set, is the delegating main loop as the run starts.
	// ParentNow, if set, gives it as it is now: the policy is rebuilt
	// with it before each call, so that a deny or ask rule the main loop
	// gains while the subagent runs, or a mode it is narrowed to, binds
	// the subagent's next call. A subagent never gets more than its
	// parent has.
	Parent    *policy.Parent
	ParentNow func() policy.Parent
	// Agents are the other agents of the run (the catalog Def was found
	// in): the files their hooks run are code to this one too
	// (policy.Subagent's others).
	Agents []*agent.Definition
	Model  loop.Model
	// MaxTurns overrides the definition's max_turns when positive.
	MaxTurns int
	// OnEvent receives the loop's events; it may be nil.
	OnEvent func(loop.Event)
	// HTTPClient is used by WebFetch and WebSearch (nil: defaults).
	HTTPClient *http.Client
	// SearchURL is the WebSearch endpoint ("" = not configured).
	SearchURL string
	// MCP gives the run the MCP tools its allow_tools name and, headless,
	// the permission-prompt delegate; nil means neither.
	MCP *MCP
	// Hooks runs the session's hooks (trust.RunnableHooks); nil runs
	// none. The agent's own hooks (Def.Hooks) run besides them while
	// they may (trust.AgentHooks). SessionID is the session_id they are
	// told; "" makes one. TranscriptPath is the transcript_path they are told:
	// the session's transcript, "" when it keeps none.
	Hooks          *hook.Runner
	SessionID      string
	TranscriptPath string
	// Skills are the session's skills; nil offers no Skill tool.
	Skills *skill.Set
	// OnWarning receives warnings (the hooks', running without a
	// sandbox, imports the memory leaves out); may be nil.
	OnWarning func(string)
}

// Report is what a subagent run produced.
type Report struct {
	report.Run
	Agent    string
	Mode     perm.Mode
	Tools    []string // the tools the model saw
	Warnings []string
}

// Run runs the agent on prompt, headless.
func Run(ctx context.Context, cfg Config, prompt string) Report {
	def := cfg.Def
	set := cfg.Settings
	if set == nil {
		s, err := cfg.Live.Current()
		if err != nil {
			return Report{Agent: def.Name, Run: report.Run{Err: err}}
		}
		set = s
	}
	pol, warns := policy.Subagent(set, def, cfg.Parent, cfg.Agents...)
	rep := Report{Agent: def.Name, Mode: pol.Mode, Warnings: warns}

	// The run follows the settings files when it has them live, and its
	// parent when it has it now: a deny rule added to either while it
	// runs applies to its next call.
	build := func(s *settings.Settings) perm.Policy {
		parent := cfg.Parent
		if cfg.ParentNow != nil {
			p := cfg.ParentNow()
			parent = &p
		}
		p, _ := policy.Subagent(s, def, parent, cfg.Agents...)
		return p
	}
	base := func() perm.Policy { return pol }
	switch {
	case cfg.Live != nil:
		base = policy.Live(cfg.Live, build)
	case cfg.ParentNow != nil:
		base = func() perm.Policy { return build(set) }
	}
	g := cfg.MCP.Gate(def.Name, base)
	env := tool.NewEnv(pol.Workspace)
	env.Warn = cfg.OnWarning
	if hooks := agentHooks(cfg, set); hooks != nil {
		sid := cfg.SessionID
		if sid == "" {
			sid = transcript.NewID()
		}
		g.Hooks = &hook.Agent{Runner: hooks, SessionID: sid, TranscriptPath: cfg.TranscriptPath, Cwd: pol.Workspace.Cwd,
			AgentID: transcript.NewID(), AgentType: def.Name, Warn: cfg.OnWarning}
	}
	box := tool.Toolbox{
		Env:        env,
		Policy:     g.Effective,
		Gate:       g,
		HTTPClient: cfg.HTTPClient,
		SearchURL:  cfg.SearchURL,
	}
	builtins := tool.Select(box.Tools(), policy.Visible(&pol, def))
	if st := skill.NewTool(cfg.Skills); st.Available() && policy.ShowsSkill(&pol, def) {
		builtins = append(builtins, st)
	}
	ts := cfg.MCP.Tools(&pol, def, builtins, nil)
	rep.Tools = ts.Names
	maxTurns := def.MaxTurns
	if cfg.MaxTurns > 0 {
		maxTurns = cfg.MaxTurns
	}
	r := &loop.Runner{
		Model:       cfg.Model,
		Tools:       ts.List,
		Gate:        g,
		TurnSchemas: ts.Schemas,
		Validate:    ts.Validate,
		MaxTurns:    maxTurns,
		OnEvent:     cfg.OnEvent,
		Agent:       def.Name,
	}
	if g.Hooks.Has(hook.SubagentStop) {
		r.BeforeStop = g.Hooks.Stop
	}
	r.Halt = g.TakeHalt
	sys := def.Prompt
	if def.Memory {
		// Only a definition that asks for it sees the project memory.
		read := policy.Memory(&pol)
		env, warns, err := memory.SystemPrompt(&read, time.Now())
		if err != nil {
			rep.Err = err
			return rep
		}
		for _, w := range warns {
			if cfg.OnWarning != nil {
				cfg.OnWarning(w)
			}
		}
		sys += "\n\n" + env
	}
	// SubagentStart hooks run before the model is first asked; what
	// they add (additionalContext) goes into the system prompt.
	if o := g.Hooks.Run(ctx, hook.SubagentStart, hook.Input{}); len(o.Context) > 0 {
		sys += "\n\n" + strings.Join(o.Context, "\n")
	}
	rep.Outcome, rep.Err = r.Run(ctx, sys, prompt)
	return rep
}

// agentHooks returns the runner of the hooks the run runs: the session's
// (cfg.Hooks) and, while it may run them, the agent's own
// (trust.LiveAgentHooks: a project agent's need the project's trust, as
// followed by cfg.Live at each event, so they stop with it); nil for
// none. Their refusal is among policy.Subagent's warnings.
func agentHooks(cfg Config, set *settings.Settings) *hook.Runner {
	def := cfg.Def
	if def.Hooks.Empty() {
		return cfg.Hooks
	}
	return cfg.Hooks.With(trust.LiveAgentHooks(cfg.Live, set, def), set.Workspace.Root)
}
