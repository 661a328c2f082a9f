package policy

import (
	"slices"

	"github.com/gen-run/gen/agent"
	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/schema"
)

// Visible returns the built-in tools a run under p shows the model, in
// catalog order. d is the subagent's definition, and p then its policy
// (Subagent), whose Hidden holds d's; nil for the main loop, whose policy
// (Main) holds the constraint, deny rules and hidden tools of the agent
// it may run as.
func Visible(p *perm.Policy, d *agent.Definition) []string {
	return visible(newFilter(p, d))
}

// ShowsMCP returns whether a run under p shows the model the MCP tool
// called name (mcp__SERVER__TOOL). d is the subagent's definition; nil for
// the main loop (whose p.Constraint is the allow_tools of the agent it
// runs as, if any). MCP tools are not safe tools, so:
//   - a subagent, an explore-mode run and any agent with a non-empty
//     allow_tools see a tool only if allow_tools names it (the exact name,
//     mcp__SERVER, or MCP(glob));
//   - a bare deny rule or an MCP(glob) deny rule naming a tool hides it,
//     and so does a tools list that does not name it (p.MCPTools).
//
// Like Visible, this only spares the model calls that cannot succeed; the
// gate still decides every call of a shown tool.
func ShowsMCP(p *perm.Policy, d *agent.Definition) func(name string) bool {
	f := newFilter(p, d)
	return func(name string) bool {
		named := slices.ContainsFunc(f.allowTools, func(r perm.Rule) bool { return r.NamesTool(name) })
		if (f.subagent || f.mode == perm.ModeExplore || len(f.allowTools) > 0) && !named || !p.HasMCPTool(name) {
			return false
		}
		return !slices.ContainsFunc(f.denyTools, func(r perm.Rule) bool {
			return (!r.HasPattern || r.Tool == "MCP") && r.NamesTool(name)
		})
	}
}

// filter is what decides which tools a run shows the model.
type filter struct {
	mode perm.Mode
	// allowTools are the subagent's allow_tools (for the main loop: the
	// constraint of the agent it runs as). denyTools are the subagent's
	// deny_tools and the policy's bare and MCP(glob) deny rules.
	allowTools, denyTools []perm.Rule
	// hidden are the tools the agent does not have (agent.Definition).
	hidden []string
	// subagent is set when nobody can be asked, so Ask means Deny.
	subagent bool
}

// newFilter returns the filter of a run under p. d is the subagent's
// definition, whose allow_tools and deny_tools then decide; nil for the
// main loop, whose p.Constraint holds the allow_tools of the agent it runs
// as. Either way the policy's bare deny rules and MCP(glob) deny rules
// (from every settings scope, the flags and the agent) hide what they
// name: the gate would deny every call of such a tool, in the main loop
// and in a subagent alike.
func newFilter(p *perm.Policy, d *agent.Definition) filter {
	f := filter{mode: p.Mode, allowTools: p.Constraint, hidden: p.Hidden}
	if d != nil {
		f.allowTools, f.subagent = d.AllowTools, true
		f.denyTools = slices.Clip(d.DenyTools)
	}
	for _, e := range p.Deny {
		if !e.Rule.HasPattern || e.Rule.Tool == "MCP" {
			f.denyTools = append(f.denyTools, e.Rule)
		}
	}
	return f
}

// visible returns the built-in tools f shows the model, in catalog order.
//
// Hiding a tool is only a hint that saves the model from calls that cannot
// succeed; the permission gate stays authoritative. So a tool is hidden only
// when the gate could never allow it:
//   - a non-empty allowTools keeps only the tools one of its rules names
//     (bare or with a pattern; an Edit rule also names Write and
//     NotebookEdit);
//   - explore drops every tool that is not perm.Safe, unless allowTools
//     names it;
//   - a subagent drops the tools of every class its mode would ask about
//     (unasked: Edit and Exec in default, dontAsk or no mode, Exec in
//     acceptEdits and auto), unless allowTools names them: for a subagent
//     those calls could only be Ask, which is Deny. Bash stays: read-only
//     commands are allowed in every mode;
//   - a subagent never sees Agent or AskUserQuestion;
//   - a bare rule in denyTools drops the tools it names (a patterned deny
//     only refuses some calls, so the tool stays), and so does hidden.
func visible(f filter) []string {
	var out []string
	for _, name := range schema.Names() {
		if f.shows(name) {
			out = append(out, name)
		}
	}
	return out
}

// shows reports whether f shows the built-in tool called name.
func (f filter) shows(name string) bool {
	allowed := namedBy(f.allowTools, name, false)
	if len(f.allowTools) > 0 && !allowed {
		return false
	}
	class := perm.ClassOf(name)
	if f.mode == perm.ModeExplore && class != perm.Safe && !allowed {
		return false
	}
	if f.subagent && !allowed && name != "Bash" && class > unasked(f.mode) {
		return false
	}
	if f.subagent && (name == "Agent" || name == "AskUserQuestion") {
		return false
	}
	return !namedBy(f.denyTools, name, true) && !slices.Contains(f.hidden, name)
}

// ShowsSkill reports whether a run under p shows the model the Skill tool
// (when there are skills to load). d is the subagent's definition; nil for
// the main loop (as for ShowsMCP). The Skill tool is not a safe tool, so it follows the same
// rules as the built-in tools in Visible: a subagent sees it only if its
// allow_tools name Skill (Skill or Skill(pattern)), and a bare Skill deny
// rule hides it. The gate still decides every call (Skill(name) rules).
func ShowsSkill(p *perm.Policy, d *agent.Definition) bool {
	return newFilter(p, d).shows("Skill")
}

// ShowsExitPlan reports whether the main loop under p shows the model the
// ExitPlanMode tool: in plan mode, unless the agent it runs as lacks the
// tool or a bare deny rule names it (as for the built-in tools in
// Visible). Subagents never see it: plan mode is the main loop's.
func ShowsExitPlan(p *perm.Policy) bool {
	return p.Mode == perm.ModePlan && newFilter(p, nil).shows("ExitPlanMode")
}

// ShowsEnterPlan reports whether the main loop under p may show the
// model the EnterPlanMode tool: outside plan mode, in a mode that asks
// the person (not dontAsk, where its call would be denied), unless the
// agent it runs as lacks the tool or a bare deny rule names it, or the
// same hides ExitPlanMode: plan mode entered that way would have no way
// out but Shift+Tab. Only an interactive session offers it, where a
// person answers (package session): headless, plan mode could be
// entered but never approved out of. Subagents never see it: the mode
// is the main loop's.
func ShowsEnterPlan(p *perm.Policy) bool {
	f := newFilter(p, nil)
	return p.Mode != perm.ModePlan && p.Mode != perm.ModeDontAsk && f.shows("EnterPlanMode") && f.shows("ExitPlanMode")
}

// namedBy reports whether one of rules names tool. An Edit rule names every
// file-editing tool. With bareOnly, rules with a pattern do not count.
func namedBy(rules []perm.Rule, tool string, bareOnly bool) bool {
	for _, r := range rules {
		if bareOnly && r.HasPattern {
			continue
		}
		if r.Tool == tool || (r.Tool == "Edit" && (tool == "Write" || tool == "NotebookEdit")) {
			return true
		}
	}
	return false
}
