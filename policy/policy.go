// Package policy builds every perm.Policy gen evaluates: the main loop's,
// a subagent's (delegated or run with `gen agent run`), and the what-if
// policies of `gen permissions check`. It sits on settings and agent, which
// only parse files, and on perm, whose Policy it fills in; nothing else
// constructs a perm.Policy. It also answers which tools a run shows the
// model (Visible), a question about the same policy.
package policy

import (
	"cmp"
	"fmt"
	"slices"
	"sync"

	"github.com/gen-run/gen/agent"
	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/settings"
	"github.com/gen-run/gen/trust"
)

// Runtime is the main loop's permission state that changes during a
// session.
type Runtime struct {
	// Mode is the current mode.
	Mode perm.Mode
	// Grants are the session runtime permissions (step 4).
	Grants []perm.Rule
	// Dirs are the directories added with /add-dir.
	Dirs []string
	// Agents are the agents the main loop may delegate to: the files
	// their hooks run are code (perm.Policy.Code) for the main loop too,
	// which could change one before it delegates.
	Agents []*agent.Definition
}

// Main returns the main loop's policy: every settings scope and CLI flag,
// with the runtime state rt, and the sandbox settings in force (confine).
// The slices are copies: changing the policy changes neither s nor rt.
func Main(s *settings.Settings, rt Runtime) perm.Policy {
	ws := s.Workspace
	ws.Dirs = append(slices.Clone(ws.Dirs), rt.Dirs...)
	p := perm.Policy{
		Mode:      rt.Mode,
		Deny:      slices.Clone(s.Deny),
		Ask:       slices.Clone(s.Ask),
		Allow:     slices.Clone(s.Allow),
		Session:   slices.Clone(rt.Grants),
		Hidden:    slices.Clone(s.Hidden),
		Workspace: ws,
		Code:      code(s, rt.Agents...),
	}
	confine(&p, s)
	compile(&p)
	return p
}

// code returns the files the hooks that may run under s name
// (hook.Config.Files), those the MCP servers that may start name
// (settings.Settings.MCPFiles) and those the hooks of agents may run
// (trust.AgentHooks), for perm.Policy.Code: found afresh for every
// policy, so a script made since the settings were loaded is protected
// too.
func code(s *settings.Settings, agents ...*agent.Definition) []string {
	hooks, _ := trust.RunnableHooks(s)
	ws := s.Workspace
	files := append(hooks.Files(ws.Cwd, ws.Root, ws.Home), s.MCPFiles()...)
	for _, d := range agents {
		if ah, _ := trust.AgentHooks(s, d); !ah.Empty() {
			files = append(files, ah.Files(ws.Cwd, ws.Root, ws.Home)...)
		}
	}
	slices.Sort(files)
	return slices.Compact(files)
}

// recent are the policies compile compiled last. A policy rebuilt from
// the same settings (Live rebuilds one for every call) reuses their
// compiled rule lists: perm compares the rules entry by entry, so a
// stale entry costs a compilation, never a wrong decision. Bounded by
// maxRecent.
var recent struct {
	sync.Mutex
	ps []*perm.Policy
}

const maxRecent = 4

// compile compiles p's rules for perm.Evaluate (perm.Policy.Compile).
// Every builder compiles the policy it returns, after its last change.
func compile(p *perm.Policy) {
	recent.Lock()
	prevs := slices.Clone(recent.ps)
	recent.Unlock()
	p.CompileFrom(prevs...)
	c := *p
	recent.Lock()
	defer recent.Unlock()
	recent.ps = append([]*perm.Policy{&c}, recent.ps...)
	if len(recent.ps) > maxRecent {
		recent.ps = recent.ps[:maxRecent]
	}
}

// Memory returns the policy memory files are read under (package memory)
// in workspace ws: the settings' deny and ask rules (every scope and the
// CLI), every other Read allowed. A memory file goes into the prompt
// without a tool call, so the rules that keep a file from the Read tool
// must keep it from the prompt too, whatever links lead to it; nobody can
// be asked, so an ask rule refuses a file a memory file links to (package
// memory says which refusals count).
func Memory(s *settings.Settings, ws perm.Workspace) perm.Policy {
	p := perm.Policy{
		Mode:      perm.ModeDefault,
		Deny:      slices.Clone(s.Deny),
		Ask:       slices.Clone(s.Ask),
		Allow:     []perm.Entry{{Rule: anyRead, Source: perm.SourceBuiltin, Origin: "project and user memory"}},
		Workspace: ws,
		NoPrompt:  true,
	}
	compile(&p)
	return p
}

// anyRead allows a Read of any path (a bare Read rule allows only the
// workspace).
var anyRead = perm.Rule{Tool: "Read", Pattern: "//**", HasPattern: true}

// Parent is what a delegating main loop passes down to a subagent. A child
// is never less constrained than its parent.
type Parent struct {
	// Mode is the parent's mode: the child's mode is capped at it.
	Mode perm.Mode
	// Deny are deny rules of the parent beyond the settings ones.
	Deny []perm.Entry
	// Dirs are directories the parent added (/add-dir).
	Dirs []string
}

// Subagent returns the permission policy of agent d under settings s,
// delegated from parent (nil for a run of its own, `gen agent run`):
//   - the agent's mode, capped at the parent's (an acceptEdits agent
//     delegated from default mode runs in default mode), and at default
//     for a project's agent in a project that is not trusted; bypassPermissions
//     falls back to default when managed settings disable it, and auto
//     when disableAutoMode is set;
//   - deny: every settings deny rule (all scopes and CLI), the parent's
//     deny rules, and the agent's deny_tools; the tools it does not have
//     (Claude Code's tools: and disallowedTools) are Hidden: their own
//     calls are denied, not what other tools' calls read or write;
//   - ask: the settings ask rules (which, as Ask becomes Deny, deny);
//   - allow: only the agent's allow_tools, which are also its constraint;
//     no settings allow rule reaches a subagent; a project agent's
//     allow_tools in an untrusted project only constrain;
//   - NoPrompt: nobody can be asked, so Ask becomes Deny;
//   - Code: also the files the agent's own hooks run (trust.AgentHooks).
//
// warnings says what was adjusted.
func Subagent(s *settings.Settings, d *agent.Definition, parent *Parent) (p perm.Policy, warnings []string) {
	p = perm.Policy{
		Mode:      d.Mode,
		Workspace: s.Workspace,
		NoPrompt:  true,
		Code:      code(s, d),
	}
	confine(&p, s)
	p.Workspace.Dirs = slices.Clone(s.Workspace.Dirs)
	if parent != nil {
		// A parent without a mode runs in default mode, which caps too.
		p.Mode = perm.CapMode(p.Mode, cmp.Or(parent.Mode, perm.ModeDefault))
		p.Workspace.Dirs = append(p.Workspace.Dirs, parent.Dirs...)
	}
	if d.Source == agent.SourceProject && p.Mode.Rank() > perm.ModeDefault.Rank() && !s.Trusted {
		// The cloned repository's own agent file, like its defaultMode.
		warnings = append(warnings, s.Refusal(fmt.Sprintf("agent mode %q", p.Mode), d.Path)+"; using default mode")
		p.Mode = perm.ModeDefault
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
	p.Hidden = slices.Clone(d.Hidden)
	for _, t := range s.Hidden {
		if !slices.Contains(p.Hidden, t) {
			p.Hidden = append(p.Hidden, t) // --tools: no agent has them
		}
	}
	if _, w := trust.AgentHooks(s, d); w != "" {
		warnings = append(warnings, w)
	}
	p.Ask = append(p.Ask, s.Ask...)
	p.Constraint = append(p.Constraint, d.AllowTools...)
	restrictOnly := ""
	switch {
	case len(d.AllowTools) == 0:
	case s.ManagedRulesOnly:
		// Agent files are user-authored: their allow_tools still narrow
		// what the agent may do, but allow nothing.
		restrictOnly = fmt.Sprintf("agent %s: allowManagedPermissionRulesOnly is set; allow_tools only restrict, they allow nothing", d.Name)
	case d.Source == agent.SourceProject && !s.Trusted:
		// The cloned repository's own agent, like its allow rules.
		restrictOnly = s.Refusal("agent allow_tools", d.Path) + "; they only restrict"
	}
	if restrictOnly != "" {
		warnings = append(warnings, restrictOnly)
		compile(&p)
		return p, warnings
	}
	for _, r := range d.AllowTools {
		p.Allow = append(p.Allow, perm.Entry{Rule: r, Source: perm.SourceAgent, Origin: origin})
	}
	compile(&p)
	return p, warnings
}

// Check describes the policy `gen permissions check` evaluates a call
// against.
type Check struct {
	// Agent, if set, evaluates as this subagent (run on its own).
	Agent *agent.Definition
	// ModeFlag is set when the mode flag was given: it replaces the
	// agent's mode (the settings' mode, which the flag set, applies).
	ModeFlag bool
	// Headless evaluates as a headless run: Ask becomes Deny.
	Headless bool
	// Agents are the agents the main loop may delegate to (Runtime).
	Agents []*agent.Definition
}

// ForCheck returns the policy c describes under settings s, and warnings
// about what was adjusted.
func ForCheck(s *settings.Settings, c Check) (perm.Policy, []string) {
	p := Main(s, Runtime{Mode: s.Mode, Agents: c.Agents})
	var warns []string
	if c.Agent != nil {
		p, warns = Subagent(s, c.Agent, nil)
		if c.ModeFlag {
			p.Mode = s.Mode
		}
	}
	if c.Headless {
		p.NoPrompt = true
	}
	_, sw := Sandbox(s)
	return p, append(warns, sw...)
}

// unasked is the most powerful tool class whose calls mode m allows
// without asking (perm's step 7 for calls no rule decides), from the same
// ranking that caps a subagent's mode (perm.Mode.Rank).
func unasked(m perm.Mode) perm.Class {
	switch m.Rank() {
	case 0, 1:
		return perm.Safe
	case 2:
		return perm.Edit
	}
	return perm.Exec
}

// Live returns the policy in force at each call, for a run that lasts:
// build applied to the settings as their files are now (settings.Live
// reloads them when one changed), so a deny rule added to any scope
// applies to the next call. When the settings cannot be reloaded the
// policy denies every call with the error, which names the file: it never
// falls back to the rules loaded before. It is the one place the main
// loop, headless runs and subagents follow their settings.
func Live(l *settings.Live, build func(*settings.Settings) perm.Policy) func() perm.Policy {
	return func() perm.Policy {
		s, err := l.Current()
		if err != nil {
			return perm.Policy{Failed: err.Error(), NoPrompt: true}
		}
		return build(s)
	}
}
