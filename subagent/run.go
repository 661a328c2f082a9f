// Package subagent runs an agent definition as a subagent: headless, with
// the policy package policy builds from its frontmatter, its tools behind a
// gate that nobody can be asked through. It also provides the main loop's
// Agent tool, which delegates to it. It sits on loop, gate, policy and
// tool; package report prints what it returns.
package subagent

import (
	"context"
	"net/http"

	"github.com/gen-run/gen/agent"
	"github.com/gen-run/gen/gate"
	"github.com/gen-run/gen/hook"
	"github.com/gen-run/gen/internal/runid"
	"github.com/gen-run/gen/loop"
	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/policy"
	"github.com/gen-run/gen/report"
	"github.com/gen-run/gen/schema"
	"github.com/gen-run/gen/settings"
	"github.com/gen-run/gen/skill"
	"github.com/gen-run/gen/tool"
)

// Config is one subagent run.
type Config struct {
	// Def and Settings must not be nil.
	Def      *agent.Definition
	Settings *settings.Settings
	// Parent, if set, is the delegating main loop.
	Parent *policy.Parent
	Model  loop.Model
	// MaxTurns overrides the definition's max_turns when positive.
	MaxTurns int
	// OnEvent receives the loop's events; it may be nil.
	OnEvent func(loop.Event)
	// HTTPClient is used by WebFetch and WebSearch (nil: defaults).
	HTTPClient *http.Client
	// SearchURL is the WebSearch endpoint ("" = not configured).
	SearchURL string
	// Hooks runs the session's hooks (trust.RunnableHooks); nil runs
	// none. SessionID is the session_id they are told; "" makes one.
	Hooks     *hook.Runner
	SessionID string
	// Skills are the session's skills; nil offers no Skill tool.
	Skills *skill.Set
	// OnWarning receives the hooks' warnings; may be nil.
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
	pol, warns := policy.Subagent(cfg.Settings, def, cfg.Parent)
	rep := Report{Agent: def.Name, Mode: pol.Mode, Warnings: warns}

	g := gate.Fixed(pol)
	g.ManagedRulesOnly = cfg.Settings.ManagedRulesOnly
	if cfg.Hooks != nil {
		sid := cfg.SessionID
		if sid == "" {
			sid = runid.New()
		}
		g.Hooks = &hook.Agent{Runner: cfg.Hooks, SessionID: sid, Cwd: pol.Workspace.Cwd,
			AgentID: runid.New(), AgentType: def.Name, Warn: cfg.OnWarning}
	}
	box := tool.Toolbox{
		Env:        tool.NewEnv(pol.Workspace),
		Policy:     g.Policy,
		Gate:       g,
		HTTPClient: cfg.HTTPClient,
		SearchURL:  cfg.SearchURL,
	}
	tools := tool.Select(box.Tools(), policy.Visible(&pol, def))
	for _, t := range tools {
		rep.Tools = append(rep.Tools, t.Name())
	}
	schemas := schema.OpenAI(rep.Tools)
	if st := skill.NewTool(cfg.Skills); st.Available() && policy.ShowsSkill(&pol, def) {
		tools = append(tools, st)
		rep.Tools = append(rep.Tools, st.Name())
		schemas = append(schemas, st.Schema().OpenAI())
	}
	maxTurns := def.MaxTurns
	if cfg.MaxTurns > 0 {
		maxTurns = cfg.MaxTurns
	}
	r := &loop.Runner{
		Model:    cfg.Model,
		Tools:    tools,
		Gate:     g,
		Schemas:  schemas,
		MaxTurns: maxTurns,
		OnEvent:  cfg.OnEvent,
		Agent:    def.Name,
	}
	if g.Hooks.Has(hook.SubagentStop) {
		r.BeforeStop = g.Hooks.Stop
	}
	rep.Outcome, rep.Err = r.Run(ctx, def.Prompt, prompt)
	return rep
}
