package schema

import "github.com/gen-run/gen/perm"

// Filter is what decides which tools a run shows the model.
type Filter struct {
	Mode perm.Mode
	// AllowTools and DenyTools are the agent's allow_tools and deny_tools.
	AllowTools, DenyTools []perm.Rule
	// Subagent is set when nobody can be asked, so Ask means Deny.
	Subagent bool
}

// Visible returns the built-in tools f shows the model, in catalog order.
//
// Hiding a tool is only a hint that saves the model from calls that cannot
// succeed; the permission gate stays authoritative. So a tool is hidden only
// when the gate could never allow it:
//   - a non-empty AllowTools keeps only the tools one of its rules names
//     (bare or with a pattern; an Edit rule also names Write and
//     NotebookEdit);
//   - explore drops every tool that is not perm.Safe, unless AllowTools
//     names it;
//   - a subagent in acceptEdits drops Exec-class tools, and one in default,
//     dontAsk (or with no mode) drops Edit- and Exec-class tools, unless
//     AllowTools names them: for a subagent those calls could only be Ask,
//     which is Deny. Bash stays: read-only commands are allowed in every
//     mode;
//   - a subagent never sees Agent or AskUserQuestion;
//   - a bare rule in DenyTools drops the tools it names (a patterned deny
//     only refuses some calls, so the tool stays).
func Visible(f Filter) []string {
	var out []string
	for _, name := range Names {
		allowed := namedBy(f.AllowTools, name, false)
		if len(f.AllowTools) > 0 && !allowed {
			continue
		}
		class := perm.ClassOf(name)
		if f.Mode == perm.ModeExplore && class != perm.Safe && !allowed {
			continue
		}
		if f.Subagent && !allowed && name != "Bash" {
			switch f.Mode {
			case perm.ModeAcceptEdits:
				if class == perm.Exec {
					continue
				}
			case perm.ModeDefault, perm.ModeDontAsk, "":
				if class != perm.Safe {
					continue
				}
			}
		}
		if f.Subagent && (name == "Agent" || name == "AskUserQuestion") {
			continue
		}
		if namedBy(f.DenyTools, name, true) {
			continue
		}
		out = append(out, name)
	}
	return out
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
