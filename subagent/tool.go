package subagent

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/gen-run/gen/agent"
	"github.com/gen-run/gen/hook"
	"github.com/gen-run/gen/loop"
	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/policy"
	"github.com/gen-run/gen/schema"
	"github.com/gen-run/gen/settings"
	"github.com/gen-run/gen/skill"
	"github.com/gen-run/gen/tool"
)

// Origin is what a delegated subagent inherits from the main loop at the
// moment it starts.
type Origin struct {
	// Settings and Agents must not be nil.
	Settings *settings.Settings
	// Live, if set, follows the settings files: the subagent's policy is
	// rebuilt from them before each call (policy.Live).
	Live   *settings.Live
	Agents *agent.Catalog
	// Parent is the main loop's mode, extra deny rules and added
	// directories. ParentNow, if set, gives them as they are at each of
	// the subagent's calls (see Config).
	Parent    policy.Parent
	ParentNow func() policy.Parent
	// Hooks, SessionID, TranscriptPath, Skills and OnWarning are the
	// session's (see Config).
	Hooks          *hook.Runner
	SessionID      string
	TranscriptPath string
	Skills         *skill.Set
	OnWarning      func(string)
}

// ToolConfig configures the Agent tool.
type ToolConfig struct {
	// Origin returns the main loop's state at the moment of a call. Must
	// not be nil.
	Origin func() Origin
	Model  loop.Model
	// HTTPClient is used by WebFetch and WebSearch (nil: defaults).
	HTTPClient *http.Client
	// SearchURL is the WebSearch endpoint ("" = not configured).
	SearchURL string
	// OnEvent, if set, receives every subagent's events, each with
	// Event.Parent set to the ID of the Agent call that started it.
	// Parallel subagents call it concurrently.
	OnEvent func(loop.Event)
	// MCP is the run's MCP servers and delegate, shared by its subagents
	// (each sees only the MCP tools its allow_tools name, and asks the
	// delegate under its own name); nil means none.
	MCP *MCP
}

// NewTool returns the main loop's Agent tool: each call runs a subagent
// headless. Subagents see neither Agent nor AskUserQuestion
// (policy.Visible), so delegation is one level deep. Its calls may run in
// parallel, and each reports the subagent's token usage and denials
// (tool.Reporter), which the main loop adds to its own.
func NewTool(cfg ToolConfig) tool.Tool { return agentTool{cfg} }

type agentTool struct{ cfg ToolConfig }

func (agentTool) Name() string { return "Agent" }

// Description implements tool.Describer: the model learns the agent types
// it may start, with their descriptions, from the tool rather than from an
// error.
func (t agentTool) Description() string {
	var types []schema.AgentType
	for _, d := range t.cfg.Origin().Agents.All() {
		types = append(types, schema.AgentType{Name: d.Name, Description: d.Description})
	}
	return schema.AgentDescription(types)
}

// Parallel implements tool.Parallel: subagents are independent.
func (agentTool) Parallel() bool { return true }

func (t agentTool) Run(ctx context.Context, call tool.Call) (string, error) {
	out, _, err := t.RunReport(ctx, call)
	return out, err
}

// RunReport delegates to the subagent named by subagent_type. Its policy
// is policy.Subagent's with the main loop as parent: its own frontmatter
// plus every settings deny rule (CLI flags included) and the parent's
// added directories, its mode capped at the parent's. Its denials are
// reported with the reason prefixed "[subagent NAME] ".
func (t agentTool) RunReport(ctx context.Context, call tool.Call) (string, tool.Report, error) {
	var rep tool.Report
	typ, _ := call.Input["subagent_type"].(string)
	prompt, _ := call.Input["prompt"].(string)
	o := t.cfg.Origin()
	def, err := o.Agents.Lookup(typ)
	if err != nil {
		return "", rep, err
	}
	parent := o.Parent
	cfg := Config{
		Def:            def,
		Settings:       o.Settings,
		Live:           o.Live,
		Parent:         &parent,
		ParentNow:      o.ParentNow,
		Agents:         o.Agents.All(),
		Model:          t.cfg.Model,
		HTTPClient:     t.cfg.HTTPClient,
		SearchURL:      t.cfg.SearchURL,
		MCP:            t.cfg.MCP,
		Hooks:          o.Hooks,
		SessionID:      o.SessionID,
		TranscriptPath: o.TranscriptPath,
		Skills:         o.Skills,
		OnWarning:      o.OnWarning,
	}
	if on := t.cfg.OnEvent; on != nil {
		cfg.OnEvent = func(e loop.Event) {
			e.Parent = call.ID
			e.CallID = subCallID(call.ID, e.CallID)
			on(e)
		}
	}
	sub := Run(ctx, cfg, prompt)
	rep.Usage = sub.Outcome.Usage
	rep.APIDuration = sub.Outcome.APIDuration
	for _, dn := range sub.Outcome.Denials {
		dn.Reason = fmt.Sprintf("[subagent %s] %s", def.Name, dn.Reason)
		dn.ToolUseID = subCallID(call.ID, dn.ToolUseID)
		rep.Denials = append(rep.Denials, dn)
	}
	if sub.Err != nil {
		return "", rep, fmt.Errorf("subagent %s failed: %w", def.Name, sub.Err)
	}
	var b strings.Builder
	b.WriteString(sub.Outcome.Final)
	if len(sub.Outcome.Denials) > 0 {
		fmt.Fprintf(&b, "\n\nPermission denials in subagent %s:", def.Name)
		for _, dn := range sub.Outcome.Denials {
			fmt.Fprintf(&b, "\n- %s(%s): %s", dn.ToolName, perm.Specifier(dn.ToolName, dn.ToolInput), dn.Reason)
		}
	}
	return b.String(), rep, nil
}

// subCallID names a subagent's call in its parent's events and denials:
// the subagent's model numbers its calls on its own, so its IDs are
// prefixed with the Agent call's ID to stay unique in the run.
func subCallID(parent, id string) string {
	if id == "" {
		return ""
	}
	return parent + "/" + id
}
