package subagent

import (
	"math"
	"slices"

	openai "github.com/sashabaranov/go-openai"

	"github.com/gen-run/gen/agent"
	"github.com/gen-run/gen/gate"
	"github.com/gen-run/gen/mcp"
	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/policy"
	"github.com/gen-run/gen/schema"
	"github.com/gen-run/gen/tool"
)

// MCP is a run's share of its MCP servers: their tools and, headless, the
// permission-prompt delegate. One MCP serves the main loop and every
// subagent of a run. A nil *MCP means no MCP servers and no delegate.
type MCP struct {
	// Manager runs the servers; nil means none.
	Manager *mcp.Manager
	// Delegate answers Asks of headless runs (--permission-prompt-tool);
	// nil means Ask becomes Deny.
	Delegate *mcp.Delegate
	// Threshold is the number of visible tools above which MCP tools are
	// disclosed progressively; 0 means mcp.DefaultThreshold.
	Threshold int
}

// Fresh returns c for an independent run that shares its servers: the
// same manager and threshold, and a delegate asking the same tool with
// none of the session rules c's answers added (mcp.Delegate.Fresh). A
// batch gives each task one, so no task's "always allow" reaches another.
// A nil c stays nil.
func (c *MCP) Fresh() *MCP {
	if c == nil {
		return nil
	}
	f := *c
	if c.Delegate != nil {
		f.Delegate = c.Delegate.Fresh()
	}
	return &f
}

// Gate returns the gate of the agent called name (the main loop is "")
// under base. With a delegate, the gate asks it on Ask and its policy
// carries the session rules the delegate's answers added for that agent
// only; without one, nobody can be asked and Ask becomes Deny.
// While base is perm.Policy.ManagedRulesOnly (the settings'
// allowManagedPermissionRulesOnly, as they are at each call), neither the
// hooks' answers nor the delegate's add allow rules (gate.Gate.AddRules,
// mcp.Delegate.For).
func (c *MCP) Gate(name string, base func() perm.Policy) *gate.Gate {
	if c == nil || c.Delegate == nil {
		return &gate.Gate{Policy: base}
	}
	pol, ask := c.Delegate.For(name, base)
	return &gate.Gate{Policy: pol, Asker: ask}
}

// Tools is a run's tool list once its MCP tools joined the built-ins.
type Tools struct {
	// List is every tool the model may call, for the run's tool.Set.
	List []tool.Tool
	// Names are the names of List, in order (the init event's tools).
	Names []string
	// Schemas returns the schemas to send this turn (loop.Runner
	// TurnSchemas): the built-ins', and the MCP tools' the model sees
	// now.
	Schemas func() []openai.Tool
	// Validate checks a call's input against its tool's schema.
	Validate func(string, map[string]any) error
	// Loaded returns the tool groups loaded so far (progressive
	// disclosure), for the next run of a conversation.
	Loaded func() []string
}

// Tools returns the tools of a run under pol: builtins (already narrowed
// by policy.Visible) plus the MCP tools policy.ShowsMCP shows it (d is
// the subagent's definition, nil for the main loop). When there are more
// than the threshold, the model is shown the built-ins and the two
// meta-tools of progressive disclosure, and each group it loads from then
// on; the calls of every MCP tool, loaded or not, go through the gate.
//
// An agent with allow_tools names each MCP tool it may use, so it is
// never disclosed progressively (its constraint would deny the
// meta-tools). loaded are groups an earlier run of the same conversation
// loaded; they start loaded.
func (c *MCP) Tools(pol *perm.Policy, d *agent.Definition, builtins []tool.Tool, loaded []string) Tools {
	out := Tools{List: builtins, Validate: schema.Validate, Loaded: func() []string { return loaded }}
	for _, t := range builtins {
		out.Names = append(out.Names, t.Name())
	}
	base := schemasOf(builtins)
	describe(base, builtins)
	out.Schemas = func() []openai.Tool { return base }
	extra, cat := c.tools(pol, d, len(builtins), loaded)
	if cat == nil {
		return out
	}
	out.List = append(slices.Clone(builtins), extra...)
	for _, t := range extra {
		out.Names = append(out.Names, t.Name())
	}
	out.Schemas = func() []openai.Tool {
		list := slices.Clone(base)
		for _, s := range cat.Schemas() {
			list = append(list, s.OpenAI())
		}
		return list
	}
	out.Validate = c.Manager.Validator(schema.Validate)
	out.Loaded = cat.Loaded
	return out
}

// schemasOf returns the schemas of ts: a tool's own (one whose schema
// depends on the run, such as the Skill tool listing the run's skills) or
// the catalog's.
func schemasOf(ts []tool.Tool) []openai.Tool {
	out := make([]openai.Tool, 0, len(ts))
	for _, t := range ts {
		if s, ok := t.(interface{ Schema() schema.Schema }); ok {
			out = append(out, s.Schema().OpenAI())
			continue
		}
		out = append(out, schema.OpenAI([]string{t.Name()})...)
	}
	return out
}

// describe replaces the description in schemas of each tool in builtins
// that describes itself (tool.Describer).
func describe(schemas []openai.Tool, builtins []tool.Tool) {
	for _, t := range builtins {
		d, ok := t.(tool.Describer)
		if !ok {
			continue
		}
		for _, sc := range schemas {
			if sc.Function != nil && sc.Function.Name == t.Name() {
				sc.Function.Description = d.Description()
			}
		}
	}
}

// Names returns the names of the tools Tools would give a run under pol
// whose visible built-in tools are builtins.
func (c *MCP) Names(pol *perm.Policy, d *agent.Definition, builtins []string) []string {
	out := slices.Clone(builtins)
	extra, _ := c.tools(pol, d, len(builtins), nil)
	for _, t := range extra {
		out = append(out, t.Name())
	}
	return out
}

// tools returns the MCP tools (after the meta-tools, under progressive
// disclosure) of a run under pol with n built-in tools, and their
// catalog; nil when it has none.
func (c *MCP) tools(pol *perm.Policy, d *agent.Definition, n int, loaded []string) ([]tool.Tool, *mcp.Catalog) {
	if c == nil || c.Manager == nil {
		return nil, nil
	}
	shows := policy.ShowsMCP(pol, d)
	if c.Delegate != nil {
		// The permission-prompt tool answers for the person, to gen
		// alone: called by the model, it would be asked about calls
		// never made, and a tool that remembers its answers (or a
		// person behind it) could be taught what to allow.
		approver, policyShows := c.Delegate.Tool(), shows
		shows = func(name string) bool { return name != approver && policyShows(name) }
	}
	visible := mcp.Visible(c.Manager.Tools(), shows)
	if len(visible) == 0 {
		return nil, nil
	}
	threshold := c.Threshold
	if len(pol.Constraint) > 0 {
		threshold = math.MaxInt
	}
	cat := mcp.NewCatalog(n, visible, threshold)
	for _, g := range loaded {
		cat.Load(g) // a group no longer visible is simply not there
	}
	var out []tool.Tool
	if cat.Disclosed() {
		for _, m := range cat.MetaTools() {
			out = append(out, m)
		}
	}
	for _, t := range visible {
		out = append(out, t)
	}
	return out, cat
}
