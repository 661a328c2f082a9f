// Package subagent runs an agent definition as a subagent: headless, with
// the policy its frontmatter declares, and reports the outcome in the
// output formats of `gen agent run`. It is also what the main loop's Agent
// tool delegates to.
package subagent

import (
	"fmt"

	"github.com/gen-run/gen/agent"
	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/settings"
)

// Parent is what a delegating main loop passes down: its CLI and session
// deny rules. A child is never less constrained than its parent.
type Parent struct {
	Deny []perm.Entry
}

// Policy returns the permission policy of agent d under settings s:
//   - the agent's mode (bypassPermissions falls back to default when
//     managed settings disable it);
//   - deny: every settings deny rule (all scopes and CLI), the parent's
//     deny rules, and the agent's deny_tools;
//   - ask: the settings ask rules (which, as Ask becomes Deny, deny);
//   - allow: only the agent's allow_tools, which are also its constraint;
//     no settings allow rule reaches a subagent;
//   - Ask → Deny.
//
// warnings says what was adjusted.
func Policy(s *settings.Settings, d *agent.Definition, parent *Parent) (p perm.Policy, warnings []string) {
	p = perm.Policy{
		Mode:      d.Mode,
		Workspace: s.Workspace,
		NoPrompt:  true,
	}
	if p.Mode == perm.ModeAuto && s.DisableAuto {
		p.Mode = perm.ModeDefault
		warnings = append(warnings, fmt.Sprintf("agent %s: auto mode is disabled by disableAutoMode; using default mode", d.Name))
	}
	if p.Mode == perm.ModeBypass && s.DisableBypass {
		p.Mode = perm.ModeDefault
		warnings = append(warnings, fmt.Sprintf("agent %s: bypassPermissions is disabled by managed settings; using default mode", d.Name))
	}
	p.Deny = append(p.Deny, s.Deny...)
	if parent != nil {
		p.Deny = append(p.Deny, parent.Deny...)
	}
	origin := d.Path
	if origin == "" {
		origin = "builtin agent " + d.Name
	}
	for _, r := range d.DenyTools {
		p.Deny = append(p.Deny, perm.Entry{Rule: r, Source: perm.SourceAgent, Origin: origin})
	}
	p.Ask = append(p.Ask, s.Ask...)
	p.Constraint = append(p.Constraint, d.AllowTools...)
	if s.ManagedRulesOnly {
		// Agent files are user-authored: their allow_tools still narrow
		// what the agent may do, but allow nothing.
		if len(d.AllowTools) > 0 {
			warnings = append(warnings, fmt.Sprintf("agent %s: allowManagedPermissionRulesOnly is set; allow_tools only restrict, they allow nothing", d.Name))
		}
		return p, warnings
	}
	for _, r := range d.AllowTools {
		p.Allow = append(p.Allow, perm.Entry{Rule: r, Source: perm.SourceAgent, Origin: origin})
	}
	return p, warnings
}
