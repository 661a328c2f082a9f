// Package perm decides whether one tool call may run: Allow, Ask or Deny.
//
// It is a pure engine. Package policy builds every Policy (from settings
// scopes, an agent definition, CLI flags and session grants) and package
// gate calls Evaluate for every tool call. The pipeline has eight steps,
// each implemented in one place in pipeline.go (step 8, Ask becoming Deny
// where nobody can be asked, only there: Unattended); helpers such as
// FileAllowed call Evaluate on synthetic requests. It sits on perm/bash
// (shell analysis; this package is its only consumer) and workspace (path
// semantics).
package perm

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gen-run/gen/sandbox"
	"github.com/gen-run/gen/workspace"
)

// Decision is the outcome of evaluating one tool call.
type Decision int

const (
	// Allow lets the call run.
	Allow Decision = iota + 1
	// Ask needs a person's approval; where nobody can be asked it becomes Deny.
	Ask
	// Deny refuses the call.
	Deny
)

func (d Decision) String() string {
	switch d {
	case Allow:
		return "allow"
	case Ask:
		return "ask"
	case Deny:
		return "deny"
	}
	return fmt.Sprintf("Decision(%d)", int(d))
}

// stricter reports whether d is more restrictive than o.
func (d Decision) stricter(o Decision) bool { return d > o }

// Mode is a permission mode: what happens when no rule matches.
type Mode string

// The modes. Explore is only meaningful for subagents, plan only for the
// main loop.
const (
	ModeDefault     Mode = "default"
	ModeAcceptEdits Mode = "acceptEdits"
	ModeDontAsk     Mode = "dontAsk"
	ModeBypass      Mode = "bypassPermissions"
	ModeAuto        Mode = "auto"
	ModeExplore     Mode = "explore"
	// ModePlan is Claude Code's plan mode: the main loop only reads and
	// plans, and nothing that changes anything runs, whatever a rule or a
	// grant allows, until the person approves the plan the model
	// presents with ExitPlanMode (which leaves the mode).
	ModePlan Mode = "plan"
)

// MainLoopModes are the modes a person can cycle through, in Shift+Tab order.
var MainLoopModes = []Mode{ModeDefault, ModeAcceptEdits, ModePlan, ModeDontAsk, ModeBypass, ModeAuto}

// ParseMode returns the mode named s. The empty string is ModeDefault.
// Unknown names are an error: a mode is never guessed.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case "":
		return ModeDefault, nil
	case ModeDefault, ModeAcceptEdits, ModePlan, ModeDontAsk, ModeBypass, ModeAuto, ModeExplore:
		return m, nil
	}
	return "", fmt.Errorf("unknown permission mode %q (want one of default, acceptEdits, plan, dontAsk, bypassPermissions, auto, explore)", s)
}

// Source says where a rule or decision came from.
type Source string

// The sources, highest settings precedence first.
const (
	SourceManaged Source = "managed"
	SourceLocal   Source = "local"
	SourceProject Source = "project"
	SourceUser    Source = "user"
	SourceCLI     Source = "cli"
	SourceAgent   Source = "agent"
	SourceSession Source = "session"
	SourceBuiltin Source = "builtin"
	SourceMode    Source = "mode"
	// SourceHook marks a decision a hook made (package hook).
	SourceHook Source = "hook"
	// SourceDelegate marks a decision a permission-prompt tool made
	// (--permission-prompt-tool), and the session rules it added.
	SourceDelegate Source = "permission-prompt tool"
)

// Project reports whether s is a project's scope (shared or local): what
// comes from there is the repository's, and needs the user's trust to
// widen anything or run code.
func (s Source) Project() bool { return s == SourceProject || s == SourceLocal }

// Class groups tools by what they can do, which decides the mode default.
type Class int

const (
	// Safe tools only read or talk to the user.
	Safe Class = iota
	// Edit tools change files.
	Edit
	// Exec tools run programs, spawn agents or reach external systems.
	Exec
)

// ClassOf returns the class of the named tool. Unknown tools (MCP tools
// among them) are Exec: what is not known to be harmless is treated as
// able to do anything.
func ClassOf(tool string) Class {
	switch tool {
	case "Read", "Glob", "Grep", "WebFetch", "WebSearch", "LSP",
		"TaskCreate", "TaskGet", "TaskList", "TaskUpdate",
		"AskUserQuestion", "CronList",
		"ListToolGroups", "LoadToolGroup", // progressive disclosure of MCP tools
		"StructuredOutput": // --json-schema's answer (package structured)
		return Safe
	case "Edit", "Write", "NotebookEdit":
		return Edit
	}
	return Exec
}

// Rule is one Tool or Tool(pattern) permission rule.
type Rule struct {
	// Tool is the tool name: Bash, Read, Edit, WebFetch, Agent, MCP or an
	// mcp__server__tool name.
	Tool string
	// Pattern is the text between the parentheses, if any.
	Pattern string
	// HasPattern distinguishes Tool() (an error) and Tool from Tool(x).
	HasPattern bool
}

// String returns the rule in its canonical written form.
func (r Rule) String() string {
	if !r.HasPattern {
		return r.Tool
	}
	return r.Tool + "(" + r.Pattern + ")"
}

// RuleError reports a malformed rule.
type RuleError struct {
	Rule string
	Msg  string
	err  error // what Msg says, when it came as an error (errClaudeTool)
}

func (e *RuleError) Error() string { return fmt.Sprintf("malformed rule %q: %s", e.Rule, e.Msg) }

func (e *RuleError) Unwrap() error { return e.err }

// ParseRule parses a rule written as Tool or Tool(pattern). The pattern runs
// from the first "(" to the final ")", so patterns may contain parentheses.
func ParseRule(s string) (Rule, error) {
	bad := func(msg string) (Rule, error) { return Rule{}, &RuleError{Rule: s, Msg: msg} }
	if s == "" {
		return bad("empty rule")
	}
	if strings.TrimSpace(s) != s {
		return bad("leading or trailing white space")
	}
	if i := strings.IndexFunc(s, unicode.IsControl); i >= 0 {
		// No command or path a person means holds one; a NUL cuts the
		// pattern short where C strings end.
		c, _ := utf8.DecodeRuneInString(s[i:])
		return bad(fmt.Sprintf("control character %U in the rule", c))
	}
	name, pat, hasPat := s, "", false
	if i := strings.IndexByte(s, '('); i >= 0 {
		if !strings.HasSuffix(s, ")") {
			return bad("missing closing parenthesis")
		}
		name, pat, hasPat = s[:i], s[i+1:len(s)-1], true
	} else if strings.IndexByte(s, ')') >= 0 {
		return bad("unbalanced parenthesis")
	}
	if name == "" {
		return bad("missing tool name")
	}
	if name == "Task" {
		// Claude Code's old name for the Agent tool, which it still
		// takes as an alias: a Task deny rule must cover Agent calls.
		name = "Agent"
	}
	if server, ok := strings.CutSuffix(name, "__*"); ok && !hasPat && isMCPServer(server) {
		// Claude Code's spelling of every tool of a server is the
		// server's bare rule.
		name = server
	}
	if !hasPat && strings.Contains(name, "*") {
		// Claude Code's mcp__github__get_*: a * in the tool's part of
		// an MCP tool name is a glob over the server's tools, the rule
		// MCP(mcp__github__get_*) (a * in the server's part is not).
		if i := strings.Index(name[min(len(name), len("mcp__")):], "__") + len("mcp__"); i > len("mcp__") && isMCPServer(name[:i]) && !strings.Contains(name[:i], "*") &&
			strings.IndexFunc(name[i+2:], func(c rune) bool { return !MCPNameChar(c) && c != '*' }) < 0 {
			return ParseRule("MCP(" + name + ")")
		}
	}
	for i, r := range name {
		ok := r == '_' || r == '-' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (i > 0 && r >= '0' && r <= '9')
		if !ok {
			return bad(fmt.Sprintf("invalid character %q in tool name", r))
		}
	}
	if err := checkToolName(name); err != nil {
		return Rule{}, &RuleError{Rule: s, Msg: err.Error(), err: err}
	}
	if hasPat && strings.TrimSpace(pat) == "" {
		return bad("empty pattern: write the bare tool name to match every call")
	}
	if !balanced(pat, name == "Bash") {
		// A ")" that closes the rule's "(" early is two rules written as
		// one, their separator lost ("Read(./.env) Read(./secrets/**)"):
		// the pattern would match no call, and a deny rule fail open.
		return bad("unbalanced parentheses in the pattern: is it two rules? Write each rule on its own (a list entry each; in a flag, separated by commas)")
	}
	r := Rule{Tool: name, Pattern: pat, HasPattern: hasPat}
	if err := r.check(); err != nil {
		return bad(err.Error())
	}
	return r, nil
}

// balanced reports whether every ")" in s closes a "(" before it and
// every "(" is closed. A parenthesis escaped (after a backslash, as a
// path pattern escapes one and a command line may) or, in a command line
// (shell), quoted (Bash(grep -E "(a|b" *)) counts for neither: that is
// how a rule names a file or a command with one alone. A command line's
// quote left open quotes nothing and counts as a plain character: a
// prefix rule may end inside one (Bash(git commit -m "feat:*), Bash(echo
// it's:*)), and the parentheses after it count (Bash(echo 'a) Bash(rm *)
// is still two rules).
func balanced(s string, shell bool) bool {
	depth, opened, openDepth := 0, 0, 0
	var quote byte
	for i := 0; ; i++ {
		if i >= len(s) { // past it after a trailing backslash
			if quote == 0 {
				return depth == 0
			}
			// Scan again from just after the quote never closed.
			quote, i, depth = 0, opened, openDepth
			continue
		}
		switch c := s[i]; {
		case quote != 0:
			if c == quote {
				quote = 0
			} else if c == '\\' && quote == '"' {
				i++
			}
		case shell && (c == '\'' || c == '"'):
			quote, opened, openDepth = c, i, depth
		case c == '\\':
			i++
		case c == '(':
			depth++
		case c == ')':
			if depth == 0 {
				return false
			}
			depth--
		}
	}
}

// check validates the pattern against what the tool's matcher accepts.
func (r Rule) check() error {
	if !r.HasPattern {
		if r.Tool == "MCP" {
			return fmt.Errorf("MCP needs a pattern such as MCP(mcp__server__*)")
		}
		return nil
	}
	if r.Tool != "MCP" && specKey(r.Tool) == "" {
		// A call of such a tool (an MCP tool, mcp__server, TaskCreate)
		// has no argument a pattern is matched against: the rule would
		// match no call, and a deny rule fail open.
		return fmt.Errorf("%s takes no pattern: no call of it has one to match, so the rule would match none; write %s for every call", r.Tool, r.Tool)
	}
	switch r.Tool {
	case "WebFetch":
		host, ok := strings.CutPrefix(r.Pattern, "domain:")
		if !ok || host == "" || strings.ContainsAny(host, "/ :@") {
			return fmt.Errorf("WebFetch patterns are domain:HOST or domain:*.HOST")
		}
		domain := strings.TrimPrefix(host, "*.")
		if strings.Contains(domain, "*") {
			return fmt.Errorf("WebFetch allows a wildcard only as a leading *.")
		}
		// The domain is compared as written with the host a URL reaches,
		// which is canonical (webHost): a deny rule for bücher.de or
		// 127.1 would match no fetch at all.
		switch c, ok := canonicalHost(domain); {
		case !ok:
			return fmt.Errorf("%q is not a host name or IP address a URL can reach", domain)
		case c != strings.TrimSuffix(strings.ToLower(domain), "."):
			return fmt.Errorf("a fetch of %s reaches the host %s, and the rule is compared with that: write domain:%s%s", domain, c, strings.TrimSuffix(host, domain), c)
		}
	case "MCP":
		if !strings.HasPrefix(r.Pattern, "mcp__") {
			return fmt.Errorf("MCP patterns name tools mcp__server__tool")
		}
		// The pattern matches the name the model sees, in which a
		// server's tool get.file is mcp__s__get_file: one naming get.file
		// would match no call.
		if i := strings.IndexFunc(r.Pattern, func(c rune) bool { return !MCPNameChar(c) && !strings.ContainsRune(`*?[]^\`, c) }); i >= 0 {
			c, _ := utf8.DecodeRuneInString(r.Pattern[i:])
			return fmt.Errorf("no MCP tool's name has %q: the model sees a tool's name with only letters, digits, '_' and '-' (a server's tool get.file is mcp__SERVER__get_file)", c)
		}
	case "Read", "Edit", "Write", "NotebookEdit", "Glob", "Grep":
		if user, ok := strings.CutPrefix(r.Pattern, "~"); ok && user != "" && user[0] != '/' {
			// ~root/x would be read as the relative name ./~root/x.
			name, _, _ := strings.Cut(r.Pattern, "/")
			return fmt.Errorf("only ~ and ~/ (your home) may start a path rule, not %s: write the absolute path (//home/NAME/... or //root/...)", name)
		}
		if err := checkPathPattern(r.Pattern); err != nil {
			return err
		}
	case "Bash", "Skill":
		// A pattern that can match nothing must not pass for a rule: a
		// deny rule that silently matches nothing fails open.
		if strings.TrimSpace(r.Pattern) != r.Pattern {
			return fmt.Errorf("leading or trailing white space in the pattern: no %s call has it", r.Tool)
		}
		if strings.Contains(r.Pattern, ":*") && !strings.HasSuffix(r.Pattern, ":*") {
			return fmt.Errorf(":* is only allowed at the end of a %s pattern", r.Tool)
		}
		if prefix, ok := strings.CutSuffix(r.Pattern, ":*"); ok {
			switch {
			case strings.TrimSpace(prefix) != prefix || prefix == "":
				return fmt.Errorf("the prefix before :* is empty or ends in white space: write the bare tool name %s to match every call", r.Tool)
			case strings.Contains(prefix, "*"):
				return fmt.Errorf("the prefix before :* is literal and cannot hold *: write %s(%s) for a wildcard", r.Tool, strings.TrimSuffix(prefix, "*")+"*")
			}
		}
	}
	return nil
}

// Entry is a rule together with where it was configured.
type Entry struct {
	Rule   Rule
	Source Source
	// Origin names the file, flag or frontmatter the rule came from, for
	// error messages and /permissions.
	Origin string
}

// Workspace is the set of directories file tools may touch without asking
// (package workspace owns its path semantics).
type Workspace = workspace.Roots

// Policy is everything Evaluate needs besides the call itself.
// A Policy must not be modified while Evaluate runs on it. Compile
// prepares it for fast matching.
type Policy struct {
	Mode Mode
	Deny []Entry
	Ask  []Entry
	// Allow rules (settings allow, CLI --allowedTools, agent allow_tools).
	Allow []Entry
	// Constraint, when non-empty, is an agent's allow_tools: calls not
	// covered by one of these rules are denied right after step 2, in
	// every mode.
	Constraint []Rule
	// Hidden are the tools an agent does not have (the built-in tools
	// its Claude Code tools: list leaves out, and the bare names its
	// disallowedTools lists): a call of one is denied at step 1. Unlike
	// a bare Read, Edit or Write deny rule, which also covers what other
	// tools' calls read or write (a Bash command naming a file), hiding
	// a tool denies only its own calls.
	Hidden []string
	// MCPTools, when not nil, are the MCP tools an agent has: the MCP
	// names its Claude Code tools: list gives (mcp__server__tool, or
	// mcp__server for every tool of the server). A call of any other MCP
	// tool is denied at step 1, as a Hidden tool's is. nil is no limit.
	MCPTools []string
	// Session holds the session runtime permissions (step 4).
	Session []Rule
	// ManagedRulesOnly is the settings' allowManagedPermissionRulesOnly,
	// as they are at this call: Evaluate does not read it, the gate does.
	// While it is set no allow rule is added during the run (a
	// PermissionRequest hook's, an approver's, the permission-prompt
	// delegate's), and those added before it was set no longer count.
	ManagedRulesOnly bool

	Workspace Workspace
	// NoPrompt is set for subagents and headless runs: Ask becomes Deny.
	NoPrompt bool
	// NoSandbox says every Bash call runs without the kernel sandbox
	// (profile none): the user opted out in settings, or the platform has
	// none. The zero value confines.
	NoSandbox bool
	// Sandbox are the kernel sandbox settings in force (package policy
	// fills them from every scope): network for workspace-write
	// commands, extra readable and writable paths, and whether Bash must
	// refuse to run where there is no sandbox. Evaluate reads only
	// AllowUnsandboxed (a dangerouslyDisableSandbox call is denied where
	// it is false); Bash applies the rest to the profile a decision
	// chose, so they follow the settings as the rules do.
	Sandbox sandbox.Settings
	// Code are files, clean and with symbolic links resolved, that run
	// outside the gate and the sandbox: the scripts and programs hook
	// commands and MCP servers name, and the settings files and
	// configuration directories that configure them and the rules (a
	// directory covers what it holds; package policy fills it). Changing
	// one changes what runs unchecked, so a call that writes one, or a
	// directory between it and the workspace, is asked in every mode
	// (step 2), and the sandbox keeps each read-only (DeniedPaths).
	Code []string

	// Failed, when not "", says why the policy could not be built (a
	// settings file became malformed): every call is then denied with
	// it, before any rule is looked at.
	Failed string

	// idx is the index Compile built; Evaluate checks that it is current.
	idx *ruleSet
}

// HasSpecifier reports whether calls of tool are identified by one
// argument, the one its rules match against (Specifier).
func HasSpecifier(tool string) bool { return specKey(tool) != "" }

// Request is one tool call: the tool name and its (normalised) arguments.
type Request struct {
	Tool  string
	Input map[string]any
	// ID is the model's ID for the call ("" outside a loop). Evaluate
	// ignores it: it only tells hooks and a permission-prompt delegate
	// which call they are asked about.
	ID string
}

// Result is a decision with the step that made it and why.
type Result struct {
	Decision Decision
	Step     int
	Reason   string
	// Rule is the rule or built-in check that decided, "" if none.
	Rule   string
	Source Source
	// Path is, for Read, Edit, Write and NotebookEdit, the file the call
	// touches as the gate resolved it (symlinks followed); "" otherwise.
	// A tool must refuse to act if the path no longer resolves to it: a
	// symlink swapped between the check and the use.
	Path string
	// Input, when not nil, is the input the decision is about instead of
	// the request's: someone answering an Ask rewrote the call
	// (updatedInput) and the rewritten call was evaluated as a new one.
	// An Allow with Input runs the tool with Input, never the original.
	Input map[string]any
	// Sandbox is, for Bash, the profile the command runs under if it runs
	// (the profile an Ask would run with once approved); "" for other
	// tools. Only Evaluate sets it (sandboxProfile), from how the call
	// was decided, never from the call's own arguments except to drop
	// the sandbox on a dangerouslyDisableSandbox call, which is never
	// allowed without a person's approval.
	Sandbox sandbox.Profile
	// PublicOnly marks a WebFetch the mode default allowed as a safe read
	// of the public web (no rule, hook or person allowed it). The gate
	// refuses a host that names this machine or a private network
	// (InternalAddr), but a name can resolve to one (an EC2 instance's
	// instance-data, 127.0.0.1.nip.io, a rebinding DNS server): the tool
	// must then refuse to connect to such an address.
	PublicOnly bool

	// readOnly marks an Allow that rests only on verified read-only
	// analysis (step 7), for every part of the call.
	readOnly bool
}

// UnsandboxedKey is the Bash argument that asks to run a command without
// the kernel sandbox (Claude Code's name). A call that sets it is never
// allowed without asking (step 2), and runs with profile none.
const UnsandboxedKey = "dangerouslyDisableSandbox"
