package perm

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gen-run/gen/internal/editdist"
)

// Tools are the built-in tool names a rule may name. Besides these a rule
// may name an MCP tool or server (mcp__server, mcp__server__tool) or use
// MCP(pattern); Agent and Skill take a pattern naming the agent or skill.
var Tools = []string{
	"Read", "Glob", "Grep", "Write", "Edit", "NotebookEdit", "Bash", "WebFetch", "WebSearch",
	"TaskCreate", "TaskGet", "TaskList", "TaskUpdate", "AskUserQuestion", "Agent", "Skill",
	"LSP", "CronList", "MCP", "ExitPlanMode", "EnterPlanMode",
}

// ModeTools are the tools that switch the main loop's permission mode,
// each time with the person's approval (Evaluate asks whatever a mode, a
// grant or an allow rule says): EnterPlanMode proposes plan mode,
// ExitPlanMode presents the plan that leaves it. They give the model no
// capability, so a list of the tools an agent has (ToolList: --tools, an
// agent's tools) neither needs to name them nor hides them; a deny rule
// still does.
var ModeTools = []string{"EnterPlanMode", "ExitPlanMode"}

// ClaudeTools are Claude Code's tool names that gen has no tool for. Task
// is not among them: it is Claude Code's old name for Agent, which gen
// has, and reads as Agent (ParseRule; hook matchers).
var ClaudeTools = []string{
	"MultiEdit", "LS", "NotebookRead", "TodoWrite", "TodoRead", "BashOutput", "KillShell", "KillBash",
	"EnterWorktree", "ExitWorktree", "SlashCommand", "ToolSearch",
	"ListMcpResourcesTool", "ReadMcpResourceTool", "TaskOutput", "TaskStop", "CronCreate", "CronDelete",
	"SendMessage", "TeamCreate", "TeamDelete", "PowerShell", "Monitor", "Artifact",
}

// errClaudeTool is wrapped by ParseRule's error for a rule naming one of
// ClaudeTools. Such a rule matches no call gen makes; ParseListRule
// decides where it may be left out.
var errClaudeTool = errors.New("a Claude Code tool gen does not have, so the rule matches no call")

// A ListKind is what a list of rules does. It decides what becomes of a
// rule naming one of ClaudeTools, which Claude Code's files name beside
// gen's tools (ParseListRule).
type ListKind int

const (
	// DenyList is rules that forbid or bound what an agent may do:
	// permissions.deny, --disallowedTools, an agent's deny_tools, and an
	// agent's allow_tools, outside which it may do nothing. A rule naming
	// one of ClaudeTools is an error there: whoever wrote it meant to
	// forbid something, and gen cannot tell what (deny is absolute, so
	// it fails closed); and allow_tools with its last rule left out would
	// bound nothing.
	DenyList ListKind = iota
	// AllowList is rules that can only widen what an agent may do, ask
	// about calls, or be shown: permissions.allow and permissions.ask,
	// --allowedTools, a skill's allowed-tools. One naming ClaudeTools,
	// with or without a pattern, matches no call gen makes, so leaving it
	// out changes nothing.
	AllowList
	// ToolList is tool names that choose which tools an agent sees:
	// --tools, an agent's tools, the bare names of its disallowedTools. A
	// bare name from ClaudeTools shows or hides nothing gen has, and is
	// left out. Written with a pattern it is a rule (in disallowedTools,
	// a deny rule), and an error as in a DenyList.
	ToolList
)

// ParseListRule parses text, one rule of a list of the given kind, with
// ParseRule. When the list leaves the rule out (it names one of
// ClaudeTools, and kind allows it), r is the zero Rule, err is nil and
// leftOut says why, for the caller to warn with after its own place (a
// file:line and key, or a flag); otherwise leftOut is "". This is the one
// place that decides which lists may leave such a rule out.
func ParseListRule(text string, kind ListKind) (r Rule, leftOut string, err error) {
	r, err = ParseRule(text)
	if err == nil || !errors.Is(err, errClaudeTool) {
		return r, "", err
	}
	if kind == AllowList || kind == ToolList && !strings.Contains(text, "(") {
		return Rule{}, fmt.Sprintf("%v; left out", err), nil
	}
	return Rule{}, "", err
}

// checkToolName refuses a rule tool name that names no tool: a misspelt
// deny rule (bash(rm:*)) would otherwise silently deny nothing.
func checkToolName(name string) error {
	if slices.Contains(Tools, name) {
		return nil
	}
	if strings.HasPrefix(name, "mcp__") && len(name) > len("mcp__") {
		return checkMCPName(name)
	}
	if slices.Contains(ClaudeTools, name) {
		return fmt.Errorf("unknown tool %q: %w", name, errClaudeTool)
	}
	if near := nearestTool(name); near != "" {
		return fmt.Errorf("unknown tool %q: did you mean %s?", name, near)
	}
	return fmt.Errorf("unknown tool %q (want a built-in tool such as Bash, Read or Edit, mcp__server__tool, MCP(...), Agent(...) or Skill(...))", name)
}

// checkMCPName refuses a rule name mcp__SERVER or mcp__SERVER__TOOL that
// no MCP tool can have: a server no server may be called, or no tool.
func checkMCPName(name string) error {
	server, tool, hasTool := strings.Cut(strings.TrimPrefix(name, "mcp__"), "__")
	switch {
	case !ValidMCPServer(server):
		return fmt.Errorf("%q names no MCP server: a server's name is letters, digits, '_' and '-', without \"__\" or a leading or trailing '_'", name)
	case hasTool && tool == "":
		return fmt.Errorf("%q names no MCP tool: write mcp__%s for every tool of the server", name, server)
	}
	return nil
}

// MCPNameChar reports whether r may be part of an MCP server's name, and
// of an MCP tool's name as the model sees it (mcp__SERVER__TOOL, the
// server's other characters replaced by '_'): an ASCII letter or digit,
// '_' or '-'.
func MCPNameChar(r rune) bool {
	return r == '_' || r == '-' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')
}

// ValidMCPServer reports whether name may name an MCP server. Server
// names become part of tool names (mcp__SERVER__TOOL) and of rules, so
// they are limited to MCPNameChar, and may not contain "__" nor start or
// end with '_': then the first "__" after "mcp__" always ends the server
// name, and the rule mcp__a cannot cover a tool of server a_.
func ValidMCPServer(name string) bool {
	if name == "" || strings.Contains(name, "__") || name[0] == '_' || name[len(name)-1] == '_' {
		return false
	}
	for _, r := range name {
		if !MCPNameChar(r) {
			return false
		}
	}
	return true
}

// nearestTool returns the built-in tool name that name most likely
// misspells (same letters in another case, or within two edits), or "".
func nearestTool(name string) string {
	l := strings.ToLower(name)
	if strings.HasPrefix(l, "mcp_") || strings.HasPrefix(l, "mcp-") {
		return "mcp__server__tool"
	}
	best, bestD := "", 3
	for _, t := range Tools {
		d := editdist.Distance(l, strings.ToLower(t))
		if d < bestD {
			best, bestD = t, d
		}
	}
	return best
}
