package hook

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gen-run/gen/internal/editdist"
	"github.com/gen-run/gen/internal/lazy"
	"github.com/gen-run/gen/internal/lazyre"
	"github.com/gen-run/gen/perm"
)

// A matcher naming one of Claude Code's tools that gen has no tool for
// (perm.ClaudeTools) is accepted, so that hooks written for Claude Code
// load (Edit|MultiEdit|Write guards gen's Edit and Write); in gen such a
// name matches nothing, and nothing of gen's escapes it.

// toolNames are the names a tool event's matcher may list: gen's
// built-in tools (the tools a rule may name, perm.Tools, without MCP,
// which names rules and no tool), the MCP disclosure tools
// (package mcp), --json-schema's StructuredOutput (package structured)
// and perm.ClaudeTools.
var toolNames = lazy.Value[[]string]{New: func() []string {
	var out []string
	for _, t := range perm.Tools {
		if t != "MCP" {
			out = append(out, t)
		}
	}
	return append(append(out, "ListToolGroups", "LoadToolGroup", "StructuredOutput"), perm.ClaudeTools...)
}}

// regexMeta are the characters that make a matcher a regular expression
// rather than a list of names ("|" separates names in both).
const regexMeta = `\.+*?()[]{}^$`

// ruleLike is an alternative written as a permission rule: Bash(git:*).
var ruleLike = lazyre.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)\(.*\)$`)

// checkToolMatcher refuses a tool event's matcher that can never match
// the tool it was meant for, so that its hook never silently stops
// running: a list of plain names one of which names no tool (Bassh, bash,
// "Bash ", Edit|Writ), an empty name in a list, or an alternative written
// as a permission rule (Bash(git:*)). A regular expression (any of
// regexMeta) is not checked further: what it is meant to match cannot be
// told. "" and "*" match every tool.
func checkToolMatcher(m string) error {
	if m == "" || m == "*" {
		return nil
	}
	alts := strings.Split(m, "|")
	for _, a := range alts {
		if sub := ruleLike.Get().FindStringSubmatch(a); sub != nil && slices.Contains(toolNames.Get(), sub[1]) {
			return fmt.Errorf("%q is a permission rule, not a tool name: match %q and read the call's tool_input in the hook", a, sub[1])
		}
	}
	if strings.ContainsAny(m, regexMeta) {
		return nil
	}
	for _, a := range alts {
		switch {
		case a == "":
			return fmt.Errorf("%q has an empty name between bars: it matches no tool", m)
		case slices.Contains(toolNames.Get(), a):
		case strings.HasPrefix(a, "mcp__"):
			server, tool, ok := strings.Cut(a[len("mcp__"):], "__")
			if !ok || server == "" || tool == "" {
				return fmt.Errorf("%q names no tool (MCP tools are mcp__server__tool): did you mean %q?", a, "mcp__"+strings.TrimSuffix(server, "_")+"__.*")
			}
			// A tool's name as the model sees it, which the matcher is
			// compared with, has the server's other characters as '_'.
			if !perm.ValidMCPServer(server) || strings.IndexFunc(tool, func(r rune) bool { return !perm.MCPNameChar(r) }) >= 0 {
				return fmt.Errorf("%q names no tool: MCP tools are mcp__server__tool with only letters, digits, '_' and '-' (a server's tool get file is mcp__server__get_file)", a)
			}
		case a == "Task":
			// Claude Code's old name for Agent names it (Group.Matches).
		default:
			if near := nearestToolName(a); near != "" {
				return fmt.Errorf("%q names no tool (matchers are exact, case-sensitive tool names): did you mean %q?", a, near)
			}
			return fmt.Errorf("%q names no tool (matchers are exact, case-sensitive tool names, mcp__server__tool, a regular expression, or * for every tool)", a)
		}
	}
	return nil
}

// nearestToolName returns the tool name that name most likely misspells:
// the same name with white space around it or in another case, or one
// within two edits; "" if none.
func nearestToolName(name string) string {
	l := strings.ToLower(strings.TrimSpace(name))
	best, bestD := "", 3
	for _, t := range toolNames.Get() {
		if d := editdist.Distance(l, strings.ToLower(t)); d < bestD {
			best, bestD = t, d
		}
	}
	return best
}
