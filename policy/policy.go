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
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/gen-run/gen/agent"
	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/sandbox"
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
	// Agent, if set, is the agent the main loop runs as (--agent): its
	// rules apply to the main loop as they would to it run as a
	// subagent (Main).
	Agent *agent.Definition
}

// Main returns the main loop's policy: every settings scope and CLI flag,
// with the runtime state rt, and the sandbox settings in force (confine).
// The slices are copies: changing the policy changes neither s nor rt.
//
// When the main loop runs as an agent (rt.Agent), the agent's rules apply
// to it as they would to the agent run on its own (Subagent): its
// allow_tools constrain every call (and allow, where Subagent lets them),
// its deny_tools deny, the tools it does not have are hidden, and the mode
// is capped at the agent's (MainMode). Claude Code's Agent(type, ...) in
// its tools limits the agents of rt.Agents it may start (undelegated).
// The main loop stays the main loop otherwise: settings allow rules and
// session grants still allow within that constraint, and an Ask still
// goes to the person.
func Main(s *settings.Settings, rt Runtime) perm.Policy {
	p, _ := mainPolicy(s, rt)
	compile(&p)
	return p
}

// MainWarnings returns what Main(s, rt) leaves out of rt.Agent's
// definition or adjusts (the agent's mode, allow_tools that only
// restrict, hooks that may not run), as Subagent warns about them: for a
// session to say once, when it starts.
func MainWarnings(s *settings.Settings, rt Runtime) []string {
	_, warns := mainPolicy(s, rt)
	return warns
}

// MainMode returns the mode the main loop runs in under s with runtime
// state rt: rt.Mode, or when the main loop runs as an agent, rt.Mode
// capped at the agent's mode and then as the agent's own mode would be
// (agentMode: at default for a project's agent in a project that is not
// trusted, and for a mode the settings disable), with warnings that say
// why the latter. So the person may choose any mode up to the agent's,
// and never one above it.
func MainMode(s *settings.Settings, rt Runtime) (perm.Mode, []string) {
	if rt.Agent == nil {
		return rt.Mode, nil
	}
	// An agent without a mode runs in default mode, which caps too.
	return agentMode(s, rt.Agent, perm.CapMode(rt.Mode, cmp.Or(rt.Agent.Mode, perm.ModeDefault)))
}

// mainPolicy is Main's policy, not compiled, and its warnings.
func mainPolicy(s *settings.Settings, rt Runtime) (perm.Policy, []string) {
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
		Code:      code(s, rt.agents()...),

		ManagedRulesOnly: s.ManagedRulesOnly,
	}
	confine(&p, s)
	var warns []string
	if rt.Agent != nil {
		p.Mode, warns = MainMode(s, rt)
		warns = append(warns, agentRules(&p, s, rt.Agent)...)
		p.Deny = append(p.Deny, undelegated(rt.Agent, rt.Agents)...)
	}
	return p, warns
}

// agents returns the agents whose hooks may run while the main loop
// does: those it may delegate to, and the one it runs as.
func (rt Runtime) agents() []*agent.Definition {
	if rt.Agent == nil {
		return slices.Clone(rt.Agents)
	}
	return append(slices.Clone(rt.Agents), rt.Agent)
}

// undelegated returns deny rules for the agents among agents (those the
// main loop may delegate to) that d, run as the main loop, may not start:
// those its tools' Agent(type, ...) does not name (Delegates). There is
// no rule for "every agent but these", so each other agent gets one: the
// Agent tool starts only agents of the same catalog.
func undelegated(d *agent.Definition, agents []*agent.Definition) []perm.Entry {
	if d.Delegates == nil {
		return nil
	}
	var out []perm.Entry
	for _, a := range agents {
		if !slices.Contains(d.Delegates, a.Name) {
			out = append(out, perm.Entry{Rule: perm.Rule{Tool: "Agent", Pattern: a.Name, HasPattern: true}, Source: perm.SourceAgent, Origin: origin(d)})
		}
	}
	return out
}

// code returns the files the hooks that may run under s name
// (hook.Config.Files), those the MCP servers that may start name
// (settings.Settings.MCPFiles), those the hooks of agents may run
// (trust.AgentHooks), the settings files that configure them all
// (settings.Settings.ConfigFiles) and the git hooks of the workspace's
// repositories (gitHooks), for perm.Policy.Code: found afresh for every
// policy, so a script made since the settings were loaded is protected
// too.
func code(s *settings.Settings, agents ...*agent.Definition) []string {
	hooks, _ := trust.RunnableHooks(s)
	ws := s.Workspace
	files := slices.Concat(hooks.Files(ws.Cwd, ws.Root, ws.Home), s.MCPFiles(), s.ConfigFiles(), gitHooks(ws))
	for _, d := range agents {
		if ah, _ := trust.AgentHooks(s, d); !ah.Empty() {
			files = append(files, ah.Files(ws.Cwd, ws.Root, ws.Home)...)
		}
	}
	slices.Sort(files)
	return slices.Compact(files)
}

// gitHooks returns the git hooks of the repositories at the workspace's
// directories (sandbox.GitHooks), as gen's environment names the global
// git configuration: where a link or core.hooksPath puts a hook in the
// workspace (.husky/pre-commit, .git/hooks/pre-commit a link to
// tools/pre-commit.sh), an Edit of it, allowed in acceptEdits, ran at the
// user's next git command outside the gate and the sandbox.
func gitHooks(ws perm.Workspace) []string {
	roots := sandbox.Roots{Home: ws.Home, ConfigHome: os.Getenv("XDG_CONFIG_HOME"), GitConfig: os.Getenv("GIT_CONFIG_GLOBAL")}
	// Live builds a policy for every call: a directory named twice (the
	// cwd is most often the root) is read once.
	dirs := slices.Concat([]string{ws.Root, ws.Cwd}, ws.Dirs)
	slices.Sort(dirs)
	var out []string
	for _, dir := range slices.Compact(dirs) {
		if dir != "" {
			out = append(out, sandbox.GitHooks(filepath.Join(dir, ".git"), roots)...)
		}
	}
	return out
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
// for an agent under policy a (Main's or Subagent's): a's deny and ask
// rules (every settings scope and the CLI, and an agent's deny_tools and
// its parent's), every other Read allowed, in a's workspace. A memory
// file goes into the prompt without a tool call, so the rules that keep
// a file from the agent's Read tool must keep it from its prompt too,
// whatever links lead to it: with only the settings' rules, an agent
// whose deny_tools denied Read(./secret.md) had the file in its prompt
// through an @secret.md import. Nobody can be asked, so an ask rule
// refuses a file a memory file links to (package memory says which
// refusals count).
func Memory(a *perm.Policy) perm.Policy {
	p := perm.Policy{
		Mode:      perm.ModeDefault,
		Deny:      slices.Clone(a.Deny),
		Ask:       slices.Clone(a.Ask),
		Allow:     []perm.Entry{{Rule: anyRead, Source: perm.SourceBuiltin, Origin: "project and user memory"}},
		Workspace: a.Workspace,
		NoPrompt:  true,
		Failed:    a.Failed,
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
	// Ask are ask rules of the parent beyond the settings ones (those
	// added to it during the run), which a subagent asks by too.
	Ask []perm.Entry
	// Dirs are directories the parent added (/add-dir).
	Dirs []string
}

// MainParent returns what the main loop, under s with runtime state rt,
// passes down to a subagent it delegates to: its mode (MainMode), the
// directories it added, and when it runs as an agent that agent's
// deny_tools, which deny its subagents' calls too. The tools that agent
// does not have and its allow_tools bind only its own calls: as in
// Claude Code, a main-thread agent's tools name what it may delegate to
// (Agent), not what its subagents may do.
func MainParent(s *settings.Settings, rt Runtime) Parent {
	mode, _ := MainMode(s, rt)
	p := Parent{Mode: mode, Dirs: slices.Clone(rt.Dirs)}
	if rt.Agent != nil {
		p.Deny = agentDeny(rt.Agent)
	}
	return p
}

// Subagent returns the permission policy of agent d under settings s,
// delegated from parent (nil for a run of its own, `gen agent run`),
// beside others, the other agents whose hooks may run in the same run
// (the catalog d was found in):
//   - the agent's mode, capped at the parent's (an acceptEdits agent
//     delegated from default mode runs in default mode), and at default
//     for a project's agent in a project that is not trusted; bypassPermissions
//     falls back to default when managed settings disable it, and auto
//     when disableAutoMode is set;
//   - deny: every settings deny rule (all scopes and CLI), the parent's
//     deny rules, and the agent's deny_tools; the tools it does not have
//     (Claude Code's tools: and disallowedTools) are Hidden: their own
//     calls are denied, not what other tools' calls read or write;
//   - ask: the settings ask rules and the parent's (which, as Ask
//     becomes Deny, deny);
//   - allow: only the agent's allow_tools, which are also its constraint;
//     no settings allow rule reaches a subagent; a project agent's
//     allow_tools in an untrusted project only constrain;
//   - NoPrompt: nobody can be asked, so Ask becomes Deny;
//   - Code: also the files the hooks of d and of others run
//     (trust.AgentHooks), as the main loop's (Runtime.Agents): d could
//     change one before that agent runs (delegated next, or a later
//     task of a batch), and its hooks run outside the gate.
//
// warnings says what was adjusted.
func Subagent(s *settings.Settings, d *agent.Definition, parent *Parent, others ...*agent.Definition) (p perm.Policy, warnings []string) {
	p = perm.Policy{
		Workspace: s.Workspace,
		NoPrompt:  true,
		Code:      code(s, append([]*agent.Definition{d}, others...)...),

		ManagedRulesOnly: s.ManagedRulesOnly,
	}
	confine(&p, s)
	p.Workspace.Dirs = slices.Clone(s.Workspace.Dirs)
	mode := d.Mode
	if parent != nil {
		// A parent without a mode runs in default mode, which caps too.
		mode = perm.CapMode(mode, cmp.Or(parent.Mode, perm.ModeDefault))
		p.Workspace.Dirs = append(p.Workspace.Dirs, parent.Dirs...)
	}
	p.Mode, warnings = agentMode(s, d, mode)
	p.Deny = append(p.Deny, s.Deny...)
	if parent != nil {
		p.Deny = append(p.Deny, parent.Deny...)
	}
	p.Ask = append(p.Ask, s.Ask...)
	if parent != nil {
		p.Ask = append(p.Ask, parent.Ask...)
	}
	warnings = append(warnings, agentRules(&p, s, d)...)
	compile(&p)
	return p, warnings
}

// agentMode returns the mode agent d runs in under s when what runs it
// chose m for it (d's own mode, capped by whatever runs it): m, except
// that a project's agent in a project that is not trusted asks at least
// as often as default mode, and auto and bypassPermissions fall back to
// default where the settings disable them. warnings says what was
// adjusted.
func agentMode(s *settings.Settings, d *agent.Definition, m perm.Mode) (perm.Mode, []string) {
	var warnings []string
	if d.Source == agent.SourceProject && m.Rank() > perm.ModeDefault.Rank() && !s.Trusted {
		// The cloned repository's own agent file, like its defaultMode.
		warnings = append(warnings, s.Refusal(fmt.Sprintf("agent mode %q", m), d.Path)+"; using default mode")
		m = perm.ModeDefault
	}
	if m == perm.ModeAuto && s.DisableAuto {
		m = perm.ModeDefault
		warnings = append(warnings, fmt.Sprintf("agent %s: auto mode is disabled by disableAutoMode; using default mode", d.Name))
	}
	if m == perm.ModeBypass && s.DisableBypass {
		m = perm.ModeDefault
		warnings = append(warnings, fmt.Sprintf("agent %s: bypassPermissions is disabled by managed settings; using default mode", d.Name))
	}
	return m, warnings
}

// agentRules adds agent d's own rules to p, built under s: its deny_tools
// after p's deny rules; the tools it does not have, and those the settings
// leave out (--tools), as Hidden; its allow_tools as p's constraint and,
// after p's allow rules, as allow rules, unless they may only restrict
// (allowManagedPermissionRulesOnly, or a project's agent in a project that
// is not trusted). warnings says what of d does not apply, its hooks
// included (trust.AgentHooks).
func agentRules(p *perm.Policy, s *settings.Settings, d *agent.Definition) (warnings []string) {
	p.Deny = append(p.Deny, agentDeny(d)...)
	hidden := slices.Clone(d.Hidden)
	for _, t := range s.Hidden {
		if !slices.Contains(hidden, t) {
			hidden = append(hidden, t) // --tools: no agent has them
		}
	}
	p.Hidden = hidden
	p.MCPTools = slices.Clone(d.MCPTools)
	if _, w := trust.AgentHooks(s, d); w != "" {
		warnings = append(warnings, w)
	}
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
		return append(warnings, restrictOnly)
	}
	for _, r := range d.AllowTools {
		p.Allow = append(p.Allow, perm.Entry{Rule: r, Source: perm.SourceAgent, Origin: origin(d)})
	}
	return warnings
}

// agentDeny returns d's deny_tools as deny rules.
func agentDeny(d *agent.Definition) []perm.Entry {
	var out []perm.Entry
	for _, r := range d.DenyTools {
		out = append(out, perm.Entry{Rule: r, Source: perm.SourceAgent, Origin: origin(d)})
	}
	return out
}

// origin names where d's rules come from.
func origin(d *agent.Definition) string {
	if d.Path == "" {
		return "builtin agent " + d.Name
	}
	return d.Path
}

// Check describes the policy `gen permissions check` evaluates a call
// against.
type Check struct {
	// Agent, if set, evaluates as this subagent (run on its own).
	Agent *agent.Definition
	// MainAgent, if set, evaluates as the main loop running as this
	// agent (gen --agent), in its mode as a session starts in it: the
	// agent's capped (MainMode), or with ModeFlag the settings' mode,
	// which must then be one the agent allows.
	MainAgent *agent.Definition
	// ModeFlag is set when the mode flag was given: it replaces the
	// agent's mode (the settings' mode, which the flag set, applies).
	ModeFlag bool
	// Headless evaluates as a headless run: Ask becomes Deny.
	Headless bool
	// Agents are the agents the main loop may delegate to (Runtime), and
	// those beside Agent (Subagent's others).
	Agents []*agent.Definition
}

// ForCheck returns the policy c describes under settings s, and warnings
// about what was adjusted.
func ForCheck(s *settings.Settings, c Check) (perm.Policy, []string) {
	var (
		p     perm.Policy
		warns []string
	)
	switch d := c.MainAgent; {
	case c.Agent != nil:
		p, warns = Subagent(s, c.Agent, nil, c.Agents...)
		if c.ModeFlag {
			p.Mode = s.Mode
		}
	case d != nil:
		rt := Runtime{Mode: d.Mode, Agents: c.Agents, Agent: d}
		if c.ModeFlag {
			rt.Mode = s.Mode
		}
		// Main, with the warnings it leaves out (MainWarnings), from one
		// build.
		var mainWarns []string
		p, mainWarns = mainPolicy(s, rt)
		compile(&p)
		if c.ModeFlag && p.Mode != s.Mode {
			warns = append(warns, fmt.Sprintf("--mode %s is above what agent %s allows: a session would refuse it; evaluating in %s mode", s.Mode, d.Name, p.Mode))
		}
		warns = append(warns, mainWarns...)
	default:
		p = Main(s, Runtime{Mode: s.Mode, Agents: c.Agents})
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
