package subagent

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/gen-run/gen/agent"
	"github.com/gen-run/gen/loop"
	"github.com/gen-run/gen/memory"
	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/schema"
	"github.com/gen-run/gen/settings"
	"github.com/gen-run/gen/tool"
)

// Config is one subagent run.
type Config struct {
	// Def and Settings must not be nil.
	Def      *agent.Definition
	Settings *settings.Settings
	// Parent, if set, is the delegating main loop.
	Parent *Parent
	Model  loop.Model
	// MaxTurns overrides the definition's max_turns when positive.
	MaxTurns int
	// OnEvent receives the loop's events; it may be nil.
	OnEvent func(loop.Event)
	// HTTPClient is used by WebFetch and WebSearch (nil: defaults).
	HTTPClient *http.Client
	// SearchURL is the WebSearch endpoint ("" = not configured).
	SearchURL string
}

// Report is what a subagent run produced.
type Report struct {
	Agent   string
	Mode    perm.Mode
	Tools   []string // the tools the model saw
	Outcome loop.Outcome
	// Err is why the run failed (nil on success).
	Err      error
	Warnings []string
}

// Denied reports whether any call was denied.
func (r *Report) Denied() bool { return len(r.Outcome.Denials) > 0 }

// Gate decides calls with a fixed policy. With NoPrompt set nothing is left
// to ask, so every decision is Allow or Deny.
type Gate struct{ Policy *perm.Policy }

// Check implements tool.Gate.
func (g Gate) Check(_ context.Context, req perm.Request) perm.Result {
	return perm.Evaluate(req, g.Policy)
}

// Run runs the agent on prompt, headless.
func Run(ctx context.Context, cfg Config, prompt string) Report {
	def := cfg.Def
	pol, warns := Policy(cfg.Settings, def, cfg.Parent)
	rep := Report{Agent: def.Name, Mode: pol.Mode, Warnings: warns}

	env := tool.NewEnv(pol.Workspace)
	env.CanRead = func(tool, path string) bool { return perm.FileAllowed(tool, path, &pol) }
	visible := schema.Visible(schema.Filter{Mode: pol.Mode, AllowTools: def.AllowTools, DenyTools: def.DenyTools, Subagent: true})
	gate := Gate{&pol}
	all := append(tool.Builtins(env),
		tool.NewWebFetch(gate, cfg.HTTPClient),
		tool.NewWebSearch(cfg.SearchURL, cfg.HTTPClient),
		tool.NewNotebookEdit(env))
	all = append(all, tool.NewTaskTools(&tool.TaskList{})...)
	tools := pick(all, visible)
	for _, t := range tools {
		rep.Tools = append(rep.Tools, t.Name())
	}
	maxTurns := def.MaxTurns
	if cfg.MaxTurns > 0 {
		maxTurns = cfg.MaxTurns
	}
	r := &loop.Runner{
		Model:    cfg.Model,
		Tools:    tools,
		Gate:     gate,
		Schemas:  schema.OpenAI(rep.Tools),
		MaxTurns: maxTurns,
		OnEvent:  cfg.OnEvent,
		Agent:    def.Name,
	}
	sys := def.Prompt
	if def.Memory {
		// Only a definition that asks for it sees the project memory.
		env, err := memory.SystemPrompt(pol.Workspace, time.Now())
		if err != nil {
			rep.Err = err
			return rep
		}
		sys += "\n\n" + env
	}
	rep.Outcome, rep.Err = r.Run(ctx, sys, prompt)
	return rep
}

// pick returns the tools whose names are in visible, in visible's order.
func pick(all []tool.Tool, visible []string) []tool.Tool {
	byName := make(map[string]tool.Tool, len(all))
	for _, t := range all {
		byName[t.Name()] = t
	}
	var out []tool.Tool
	for _, n := range visible {
		if t, ok := byName[n]; ok {
			out = append(out, t)
		}
	}
	return out
}

// ErrDenied is returned by callers that need an error for exit code 3.
var ErrDenied = errors.New("a tool call was denied")
