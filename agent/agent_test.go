package agent

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/gen-run/gen/hook"
	"github.com/gen-run/gen/internal/agenttest"
	"github.com/gen-run/gen/internal/testtree"
	"github.com/gen-run/gen/perm"
)

func rules(t *testing.T, texts ...string) []perm.Rule {
	t.Helper()
	var out []perm.Rule
	for _, s := range texts {
		r, err := perm.ParseRule(s)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

const modes = "default, acceptEdits, explore (or plan, read as explore), dontAsk, bypassPermissions, auto"

const knownKeys = "name, description, mode, allow_tools, deny_tools, model, max_turns, project_memory, and Claude Code's tools, disallowedTools, permissionMode, maxTurns, color, hooks, memory, skills, mcpServers, background, effort, isolation, initialPrompt"

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		wantErr string // exact; the file is called a.md
		want    *Definition
		// prompt, when set, is checked instead of want.Prompt with
		// HasSuffix, for explore prompts.
		promptSuffix string
	}{
		{
			name: "minimal definition gets mode default",
			file: "---\nname: reviewer\ndescription: Reviews code.\n---\nYou review code.\n",
			want: &Definition{Name: "reviewer", Description: "Reviews code.", Mode: perm.ModeDefault, Prompt: "You review code.", Path: "a.md"},
		},
		{
			name: "every field, rules as YAML lists",
			file: `---
name: code-reviewer
description: Reviews a diff.
mode: acceptEdits
allow_tools:
  - Read
  - Bash(git diff*)
  - WebFetch(domain:github.com)
deny_tools:
  - Bash(rm:*)
model: small
max_turns: 12
---

Review the diff.

Be brief.
`,
			want: &Definition{
				Name: "code-reviewer", Description: "Reviews a diff.", Mode: perm.ModeAcceptEdits,
				AllowTools: rules(t, "Read", "Bash(git diff*)", "WebFetch(domain:github.com)"),
				DenyTools:  rules(t, "Bash(rm:*)"),
				Model:      "small", MaxTurns: 12, Prompt: "Review the diff.\n\nBe brief.", Path: "a.md",
			},
		},
		{
			name: "rules as one comma-separated string; commas in parentheses do not split",
			file: "---\nname: a\ndescription: d\nallow_tools: Read, Bash(git diff a,b), Grep\ndeny_tools: \"Bash(rm (x, y)),Edit\"\n---\nbody",
			want: &Definition{
				Name: "a", Description: "d", Mode: perm.ModeDefault,
				AllowTools: rules(t, "Read", "Bash(git diff a,b)", "Grep"),
				DenyTools:  rules(t, "Bash(rm (x, y))", "Edit"),
				Prompt:     "body", Path: "a.md",
			},
		},
		{
			name: "flow sequence of rules",
			file: "---\nname: a\ndescription: d\nallow_tools: [Read, Grep]\n---\nbody",
			want: &Definition{Name: "a", Description: "d", Mode: perm.ModeDefault, AllowTools: rules(t, "Read", "Grep"), Prompt: "body", Path: "a.md"},
		},
		{
			name:         "explore mode appends the read-only paragraph",
			file:         "---\nname: a\ndescription: d\nmode: explore\n---\nInvestigate.\n",
			want:         &Definition{Name: "a", Description: "d", Mode: perm.ModeExplore, Path: "a.md"},
			promptSuffix: "Investigate.\n\n" + exploreNotice,
		},
		{
			name:         "explore mode with an empty body is only the paragraph",
			file:         "---\nname: a\ndescription: d\nmode: explore\n---\n",
			want:         &Definition{Name: "a", Description: "d", Mode: perm.ModeExplore, Path: "a.md", Warnings: []string{"a.md:1: empty body: the agent has no system prompt"}},
			promptSuffix: exploreNotice,
		},
		// Claude Code's keys gen does not use are warnings; any other key
		// refuses the agent: one that looks like a permission key but is
		// none would silently drop its rules.
		{
			name: "Claude Code's keys gen does not use are warnings with their line",
			file: "---\nname: a\ndescription: d\nskills: [pdf]\nmcpServers: [github]\nbackground: true\neffort: high\nisolation: worktree\ninitialPrompt: go\ncolor: blue\n---\nbody",
			want: &Definition{Name: "a", Description: "d", Mode: perm.ModeDefault, Prompt: "body", Path: "a.md",
				Warnings: []string{
					`a.md:4: skills (a Claude Code key) is not supported by gen and is ignored`,
					`a.md:5: mcpServers (a Claude Code key) is not supported by gen and is ignored`,
					`a.md:6: background (a Claude Code key) is not supported by gen and is ignored`,
					`a.md:7: effort (a Claude Code key) is not supported by gen and is ignored`,
					`a.md:8: isolation (a Claude Code key) is not supported by gen and is ignored`,
					`a.md:9: initialPrompt (a Claude Code key) is not supported by gen and is ignored`,
				}},
		},
		{
			name:    "an unknown key is an error with a suggestion",
			file:    "---\nname: a\ndescription: d\ncolour: blue\n---\nbody",
			wantErr: `a.md:4: unknown key "colour": did you mean "color"?`,
		},
		{
			name:    "denied_tools is an error with a suggestion",
			file:    "---\nname: a\ndescription: d\ndenied_tools: Bash\n---\nbody",
			wantErr: `a.md:4: unknown key "denied_tools": did you mean "deny_tools"?`,
		},
		{
			name:    "deniedTools is an error with a suggestion",
			file:    "---\nname: a\ndescription: d\ndeniedTools: Bash\n---\nbody",
			wantErr: `a.md:4: unknown key "deniedTools": did you mean "deny_tools"?`,
		},
		{
			name:    "deny is an error with a suggestion",
			file:    "---\nname: a\ndescription: d\ndeny: Bash\n---\nbody",
			wantErr: `a.md:4: unknown key "deny": did you mean "deny_tools"?`,
		},
		{
			name:    "disallowed is an error with a suggestion",
			file:    "---\nname: a\ndescription: d\ndisallowed: Bash\n---\nbody",
			wantErr: `a.md:4: unknown key "disallowed": did you mean "disallowedTools"?`,
		},
		{
			name:    "blockedTools is an error",
			file:    "---\nname: a\ndescription: d\nblockedTools: Bash\n---\nbody",
			wantErr: `a.md:4: unknown key "blockedTools" (gen reads ` + knownKeys + `)`,
		},
		{
			name:    "a key of no meaning is an error",
			file:    "---\nname: a\ndescription: d\nx-team: infra\n---\nbody",
			wantErr: `a.md:4: unknown key "x-team" (gen reads ` + knownKeys + `)`,
		},
		{
			name:    "a YAML merge key is an error",
			file:    "---\nbase: &b\n  deny_tools: Bash\nname: a\ndescription: d\n<<: *b\n---\nbody",
			wantErr: `a.md:6: YAML merge keys (<<) are not supported: write the keys out`,
		},
		// An agent's hooks parse as settings hooks do, with errors at
		// the line of the offending key.
		{
			name:    "empty hooks are an error",
			file:    "---\nname: a\ndescription: d\nhooks:\n  PreToolUse: []\n---\nbody",
			wantErr: `a.md:4: hooks is empty: configure a hook, or remove the key`,
		},
		{
			name:    "hooks that are not a mapping are an error",
			file:    "---\nname: a\ndescription: d\nhooks: [x]\n---\nbody",
			wantErr: `a.md:4: hooks must be a mapping of event names to lists of matcher groups`,
		},
		{
			name:    "a hook matcher naming no tool is an error at its line",
			file:    "---\nname: a\ndescription: d\nhooks:\n  PreToolUse:\n    - matcher: Bassh\n      hooks:\n        - type: command\n          command: ./check.sh\n---\nbody",
			wantErr: `a.md:6: hooks.PreToolUse[0].matcher: "Bassh" names no tool (matchers are exact, case-sensitive tool names): did you mean "Bash"?`,
		},
		{
			name:    "a bad hook timeout is an error at its line",
			file:    "---\nname: a\ndescription: d\nhooks:\n  PostToolUse:\n    - hooks:\n        - type: command\n          command: ./check.sh\n          timeout: 1e10\n---\nbody",
			wantErr: `a.md:9: hooks.PostToolUse[0].hooks[0].timeout: must be a positive number of seconds, at most 86400`,
		},
		{
			name:    "an unknown hook event is an error at its line",
			file:    "---\nname: a\ndescription: d\nhooks:\n  PreToolUse: []\n  BeforeTool: []\n---\nbody",
			wantErr: `a.md:6: hooks.BeforeTool: unknown hook event (want one of SessionStart, UserPromptSubmit, SubagentStart, PreToolUse, PermissionRequest, Notification, PermissionDenied, PostToolUse, PostToolUseFailure, SubagentStop, Stop, SessionEnd)`,
		},
		{
			name:    "a SessionStart hook of an agent is an error",
			file:    "---\nname: a\ndescription: d\nhooks:\n  SessionStart:\n    - hooks: [{type: command, command: x}]\n---\nbody",
			wantErr: `a.md:5: hooks.SessionStart: an agent's hooks run while it runs, and SessionStart does not come then: put the hook in a settings file`,
		},
		{
			name:    "a SubagentStop matcher naming another agent is an error",
			file:    "---\nname: a\ndescription: d\nhooks:\n  SubagentStop:\n    - matcher: b\n      hooks: [{type: command, command: x}]\n---\nbody",
			wantErr: `a.md:4: hooks.SubagentStop matcher "b" does not match the agent's name "a": the hook would never run`,
		},
		{
			name:    "a merge key in hooks is an error",
			file:    "---\nname: a\ndescription: d\nhooks:\n  PreToolUse:\n    - <<: {matcher: Bash}\n      hooks: [{type: command, command: x}]\n---\nbody",
			wantErr: `a.md:6: YAML merge keys (<<) are not supported: write the keys out`,
		},
		{
			name:    "a YAML merge key is an error at its line",
			file:    "---\nname: a\ndescription: d\n<<: {deny_tools: Bash}\n---\nbody",
			wantErr: `a.md:4: YAML merge keys (<<) are not supported: write the keys out`,
		},
		// Issue 8: a misspelt or foreign permission key is never dropped
		// silently. Claude Code's keys are mapped; near misses are errors.
		{
			name: "Claude Code disallowedTools is deny_tools",
			file: "---\nname: a\ndescription: d\ndeny_tools: Write\ndisallowedTools: Bash(rm:*), Edit\n---\nbody",
			want: &Definition{Name: "a", Description: "d", Mode: perm.ModeDefault, Prompt: "body", Path: "a.md",
				DenyTools: rules(t, "Write", "Bash(rm:*)"), Hidden: []string{"Edit"}},
		},
		{
			name:         "Claude Code permissionMode plan is explore",
			file:         "---\nname: a\ndescription: d\npermissionMode: plan\n---\nbody",
			want:         &Definition{Name: "a", Description: "d", Mode: perm.ModeExplore, Path: "a.md"},
			promptSuffix: exploreNotice,
		},
		{
			name: "Claude Code permissionMode acceptEdits",
			file: "---\nname: a\ndescription: d\npermissionMode: acceptEdits\n---\nbody",
			want: &Definition{Name: "a", Description: "d", Mode: perm.ModeAcceptEdits, Prompt: "body", Path: "a.md"},
		},
		{
			name:    "mode and permissionMode together are an error",
			file:    "---\nname: a\ndescription: d\nmode: explore\npermissionMode: bypassPermissions\n---\nbody",
			wantErr: `a.md:5: permissionMode repeats the permission mode already set by mode`,
		},
		{
			name: "Claude Code maxTurns is max_turns",
			file: "---\nname: a\ndescription: d\nmaxTurns: 7\n---\nbody",
			want: &Definition{Name: "a", Description: "d", Mode: perm.ModeDefault, Prompt: "body", Path: "a.md", MaxTurns: 7},
		},
		{
			// tools limits what the model sees; it never allows.
			name: "Claude Code tools denies every tool it does not list",
			file: "---\nname: a\ndescription: d\ntools: Read, Grep, Glob, Bash, WebFetch, WebSearch, NotebookEdit, TaskCreate, TaskGet, TaskList, TaskUpdate, AskUserQuestion, Agent, Skill, LSP, CronList\n---\nbody",
			want: &Definition{Name: "a", Description: "d", Mode: perm.ModeDefault, Prompt: "body", Path: "a.md",
				DenyTools: rules(t, "MCP(mcp__*)"), Hidden: []string{"Write", "Edit"}},
		},
		// Hiding a tool denies its own calls only (Hidden), not a Bash
		// command that reads or writes a file: tools: Bash keeps Bash
		// usable. A bare disallowedTools name hides the tool the same way;
		// gen's deny_tools stays a deny rule.
		{
			name: "Claude Code tools: Bash hides the other tools",
			file: "---\nname: a\ndescription: d\ntools: Bash\n---\nbody",
			want: &Definition{Name: "a", Description: "d", Mode: perm.ModeDefault, Prompt: "body", Path: "a.md",
				DenyTools: rules(t, "MCP(mcp__*)"),
				Hidden:    []string{"Read", "Glob", "Grep", "Write", "Edit", "NotebookEdit", "WebFetch", "WebSearch", "TaskCreate", "TaskGet", "TaskList", "TaskUpdate", "AskUserQuestion", "Agent", "Skill", "LSP", "CronList"}},
		},
		{
			name: "disallowedTools and tools hide a tool once",
			file: "---\nname: a\ndescription: d\ntools: Read, Bash, Edit, Grep, Glob, WebFetch, WebSearch, NotebookEdit, TaskCreate, TaskGet, TaskList, TaskUpdate, AskUserQuestion, Agent, Skill, LSP, CronList, mcp__x__y\ndisallowedTools: Write, Edit, mcp__x__y\n---\nbody",
			want: &Definition{Name: "a", Description: "d", Mode: perm.ModeDefault, Prompt: "body", Path: "a.md",
				DenyTools: rules(t, "mcp__x__y"), Hidden: []string{"Write", "Edit"}, MCPTools: []string{"mcp__x__y"}},
		},
		{
			name:    "tools with a pattern is an error",
			file:    "---\nname: a\ndescription: d\ntools: Bash(git *)\n---\nbody",
			wantErr: `a.md:4: tools lists tool names, not Bash(git *): use allow_tools for rules with patterns`,
		},
		{
			name:    "deny-tools is an error with a suggestion",
			file:    "---\nname: a\ndescription: d\ndeny-tools: Bash\n---\nbody",
			wantErr: `a.md:4: unknown key "deny-tools": did you mean "deny_tools"?`,
		},
		{
			name:    "allowTools is an error with a suggestion",
			file:    "---\nname: a\ndescription: d\nallowTools: Read\n---\nbody",
			wantErr: `a.md:4: unknown key "allowTools": did you mean "allow_tools"?`,
		},
		{
			name:    "allowed_tools is an error with a suggestion",
			file:    "---\nname: a\ndescription: d\nallowed_tools: Read\n---\nbody",
			wantErr: `a.md:4: unknown key "allowed_tools": did you mean "allow_tools"?`,
		},
		{
			name:    "a rule with an unknown tool is an error with a suggestion",
			file:    "---\nname: a\ndescription: d\ndeny_tools: bash(rm:*)\n---\nbody",
			wantErr: `a.md:4: malformed rule "bash(rm:*)": unknown tool "bash": did you mean Bash?`,
		},
		// An empty deny list denies nothing: more likely a rule lost
		// than meant, so it is refused as an empty allow_tools is.
		{
			name:    "empty deny_tools list is an error",
			file:    "---\nname: a\ndescription: d\ndeny_tools: []\n---\nbody",
			wantErr: `a.md:4: deny_tools is empty: list the rules to deny, or remove the key`,
		},
		{
			name:    "null deny_tools is an error",
			file:    "---\nname: a\ndescription: d\ndeny_tools: ~\n---\nbody",
			wantErr: `a.md:4: deny_tools is empty: list the rules to deny, or remove the key`,
		},
		{
			name:    "deny_tools with no value is an error",
			file:    "---\nname: a\ndescription: d\ndeny_tools:\n---\nbody",
			wantErr: `a.md:4: deny_tools is empty: list the rules to deny, or remove the key`,
		},
		{
			name:    "empty string deny_tools is an error",
			file:    "---\nname: a\ndescription: d\ndeny_tools: \"\"\n---\nbody",
			wantErr: `a.md:4: deny_tools is empty: list the rules to deny, or remove the key`,
		},
		{
			name:    "blank disallowedTools is an error",
			file:    "---\nname: a\ndescription: d\ndisallowedTools: '  '\n---\nbody",
			wantErr: `a.md:4: disallowedTools is empty: list the rules to deny, or remove the key`,
		},
		{
			name: "aliases are followed",
			file: "---\nname: &n a\ndescription: *n\n---\nbody",
			want: &Definition{Name: "a", Description: "a", Mode: perm.ModeDefault, Prompt: "body", Path: "a.md"},
		},
		{
			name: "CRLF line endings and a byte order mark",
			file: "\ufeff---\r\nname: a\r\ndescription: d\r\n---\r\nbody\r\n",
			want: &Definition{Name: "a", Description: "d", Mode: perm.ModeDefault, Prompt: "body", Path: "a.md"},
		},
		{
			name:    "blank lines before the frontmatter shift line numbers",
			file:    "\n\n---\nname: a\ndescription: d\nmode: edit\n---\nbody",
			wantErr: `a.md:6: unknown mode "edit" (want one of ` + modes + `)`,
		},
		{
			name:    "missing name",
			file:    "---\ndescription: d\n---\nbody",
			wantErr: `a.md:1: missing required field "name"`,
		},
		{
			name:    "missing name after blank lines names the delimiter's line",
			file:    "\n\n---\ndescription: d\n---\nbody",
			wantErr: `a.md:3: missing required field "name"`,
		},
		{
			name:    "missing description",
			file:    "---\nname: a\n---\nbody",
			wantErr: `a.md:1: missing required field "description"`,
		},
		{
			name:    "empty frontmatter",
			file:    "---\n---\nbody",
			wantErr: `a.md:1: missing required field "name"`,
		},
		{
			name:    "unknown mode",
			file:    "---\nname: a\ndescription: d\nmode: edit\n---\n",
			wantErr: `a.md:4: unknown mode "edit" (want one of ` + modes + `)`,
		},
		{
			name:    "empty mode",
			file:    "---\nname: a\ndescription: d\nmode:\n---\n",
			wantErr: `a.md:4: unknown mode "" (want one of ` + modes + `)`,
		},
		{
			name:    "mode is a list",
			file:    "---\nname: a\ndescription: d\nmode: [default]\n---\n",
			wantErr: `a.md:4: mode must be a string`,
		},
		{
			name:    "malformed rule in a list names the element's line",
			file:    "---\nname: a\ndescription: d\nallow_tools:\n  - Read\n  - Bash(\n---\n",
			wantErr: `a.md:6: malformed rule "Bash(": missing closing parenthesis`,
		},
		{
			name:    "malformed rule in a comma-separated string",
			file:    "---\nname: a\ndescription: d\ndeny_tools: Read, WebFetch(github.com)\n---\n",
			wantErr: `a.md:4: malformed rule "WebFetch(github.com)": WebFetch patterns are domain:HOST or domain:*.HOST`,
		},
		{
			name:    "unbalanced parenthesis swallows the rest of the string",
			file:    "---\nname: a\ndescription: d\nallow_tools: Bash(git diff, Read\n---\n",
			wantErr: `a.md:4: malformed rule "Bash(git diff, Read": missing closing parenthesis`,
		},
		{
			name:    "empty piece in a comma-separated string",
			file:    "---\nname: a\ndescription: d\nallow_tools: Read,,Grep\n---\n",
			wantErr: `a.md:4: malformed rule "": empty rule`,
		},
		{
			name:    "empty allow_tools list is refused",
			file:    "---\nname: a\ndescription: d\nallow_tools: []\n---\n",
			wantErr: `a.md:4: allow_tools is empty: list the tools the agent may use, or remove the key to leave tools to the mode`,
		},
		{
			name:    "empty allow_tools string is refused",
			file:    "---\nname: a\ndescription: d\nallow_tools: \"\"\n---\n",
			wantErr: `a.md:4: allow_tools is empty: list the tools the agent may use, or remove the key to leave tools to the mode`,
		},
		{
			name:    "allow_tools without a value is refused",
			file:    "---\nname: a\ndescription: d\nallow_tools:\n---\n",
			wantErr: `a.md:4: allow_tools is empty: list the tools the agent may use, or remove the key to leave tools to the mode`,
		},
		{
			name:    "allow_tools is a mapping",
			file:    "---\nname: a\ndescription: d\nallow_tools:\n  Read: true\n---\n",
			wantErr: `a.md:5: allow_tools must be a list of rule strings or one comma-separated string`,
		},
		{
			name:    "deny_tools holds a nested list",
			file:    "---\nname: a\ndescription: d\ndeny_tools:\n  - Read\n  - [Edit]\n---\n",
			wantErr: `a.md:6: deny_tools must be a list of rule strings`,
		},
		{
			name:    "deny_tools holds an empty element",
			file:    "---\nname: a\ndescription: d\ndeny_tools:\n  - Read\n  -\n---\n",
			wantErr: `a.md:6: deny_tools must be a list of rule strings`,
		},
		{
			name:    "max_turns zero",
			file:    "---\nname: a\ndescription: d\nmax_turns: 0\n---\n",
			wantErr: `a.md:4: max_turns must be a positive integer, not "0"`,
		},
		{
			name:    "max_turns negative",
			file:    "---\nname: a\ndescription: d\nmax_turns: -3\n---\n",
			wantErr: `a.md:4: max_turns must be a positive integer, not "-3"`,
		},
		{
			name:    "max_turns quoted",
			file:    "---\nname: a\ndescription: d\nmax_turns: \"5\"\n---\n",
			wantErr: `a.md:4: max_turns must be a positive integer, not "5"`,
		},
		{
			name:    "max_turns fractional",
			file:    "---\nname: a\ndescription: d\nmax_turns: 2.5\n---\n",
			wantErr: `a.md:4: max_turns must be a positive integer, not "2.5"`,
		},
		{
			name:    "max_turns overflows",
			file:    "---\nname: a\ndescription: d\nmax_turns: 99999999999999999999\n---\n",
			wantErr: `a.md:4: max_turns must be a positive integer, not "99999999999999999999"`,
		},
		{
			name:    "bad YAML with a line",
			file:    "---\nname: a\n  description: d\n---\n",
			wantErr: `a.md:3: mapping values are not allowed in this context`,
		},
		{
			name:    "bad YAML: unterminated quote",
			file:    "---\nname: a\ndescription: 'd\nmode: default\n---\n",
			wantErr: `a.md:3: found unexpected end of stream`, // where the quote opened
		},
		{
			name:    "bad YAML without a line points at the first frontmatter line",
			file:    "---\n\t- x\n---\n",
			wantErr: `a.md:2: found character that cannot start any token`,
		},
		{
			name:    "no frontmatter",
			file:    "# Reviewer\n\nYou review code.\n",
			wantErr: `a.md:1: no frontmatter: an agent file starts with a "---" line, YAML with at least name and description, and a closing "---" line`,
		},
		{
			name:    "text before the frontmatter",
			file:    "\nhello\n---\nname: a\n---\n",
			wantErr: `a.md:2: no frontmatter: an agent file starts with a "---" line, YAML with at least name and description, and a closing "---" line`,
		},
		{
			name:    "empty file",
			file:    "",
			wantErr: `a.md:1: no frontmatter: an agent file starts with a "---" line, YAML with at least name and description, and a closing "---" line`,
		},
		{
			name:    "frontmatter never closed",
			file:    "---\nname: a\ndescription: d\n",
			wantErr: `a.md:1: frontmatter is not closed by a "---" line`,
		},
		{
			name:    "frontmatter is a list",
			file:    "---\n- name\n---\n",
			wantErr: `a.md:2: frontmatter must be a mapping of keys to values`,
		},
		{
			name:    "frontmatter is a scalar",
			file:    "---\njust text\n---\n",
			wantErr: `a.md:2: frontmatter must be a mapping of keys to values`,
		},
		{
			name:    "duplicate key",
			file:    "---\nname: a\ndescription: d\nname: b\n---\n",
			wantErr: `a.md:4: duplicate key "name" (first at line 2)`,
		},
		{
			name:    "name with a space",
			file:    "---\nname: code reviewer\ndescription: d\n---\n",
			wantErr: `a.md:2: invalid name "code reviewer": use letters, digits, '-', '_' and '.', starting with a letter or digit`,
		},
		{
			name:    "name with parentheses",
			file:    "---\nname: x(y)\ndescription: d\n---\n",
			wantErr: `a.md:2: invalid name "x(y)": use letters, digits, '-', '_' and '.', starting with a letter or digit`,
		},
		{
			name:    "name is a list",
			file:    "---\nname: [a]\ndescription: d\n---\n",
			wantErr: `a.md:2: name must be a string`,
		},
		{
			name:    "name is null",
			file:    "---\nname:\ndescription: d\n---\n",
			wantErr: `a.md:2: name must not be empty`,
		},
		{
			name:    "description is blank",
			file:    "---\nname: a\ndescription: \"  \"\n---\n",
			wantErr: `a.md:3: description must not be empty`,
		},
		{
			name:    "key is not a scalar",
			file:    "---\nname: a\ndescription: d\n? [x]\n: y\n---\n",
			wantErr: `a.md:4: keys must be plain names`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Parse("a.md", []byte(tt.file))
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error:\n got %v\nwant %s", err, tt.wantErr)
				}
				var ae *Error
				if !errors.As(err, &ae) {
					t.Errorf("error %T is not an *Error", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			want := *tt.want
			if tt.promptSuffix != "" {
				if !strings.HasSuffix(d.Prompt, tt.promptSuffix) {
					t.Errorf("prompt %q does not end with %q", d.Prompt, tt.promptSuffix)
				}
				want.Prompt = d.Prompt
			}
			if !reflect.DeepEqual(d, &want) {
				t.Errorf("definition:\n got %+v\nwant %+v", d, &want)
			}
		})
	}
}

// TestParseHooks: Claude Code's hooks in agent frontmatter are the
// agent's own hooks, Stop running as SubagentStop, each with the file and
// key it came from.
func TestParseHooks(t *testing.T) {
	d, err := Parse("a.md", []byte(`---
name: a
description: d
hooks:
  PreToolUse:
    - matcher: "Bash"
      hooks:
        - type: command
          command: "./scripts/check.sh"
          timeout: 30
  Stop:
    - hooks:
        - {type: command, command: ./scripts/stop.sh}
---
body`))
	if err != nil {
		t.Fatal(err)
	}
	pre := d.Hooks.Matching(hook.PreToolUse, "Bash")
	if len(pre) != 1 || pre[0].Command != "./scripts/check.sh" || pre[0].Timeout != 30*time.Second || pre[0].Origin != "a.md: hooks.PreToolUse[0].hooks[0]" {
		t.Errorf("PreToolUse(Bash) = %+v", pre)
	}
	if len(d.Hooks.Matching(hook.PreToolUse, "Read")) != 0 {
		t.Error("a Bash hook matched Read")
	}
	if stop := d.Hooks.Matching(hook.SubagentStop, "a"); len(stop) != 1 || stop[0].Command != "./scripts/stop.sh" {
		t.Errorf("SubagentStop = %+v, want the Stop hook", stop)
	}
	if d.Warnings != nil {
		t.Errorf("warnings %q", d.Warnings)
	}
}

// An agent's hooks for one of Claude Code's events that gen has no twin
// for are warned about at their line and never run; an agent whose only
// hooks are such is no error (its hooks are not "empty", they were meant).
func TestParseHooksClaudeEvents(t *testing.T) {
	d, err := Parse("a.md", []byte(`---
name: a
description: d
hooks:
  PreCompact:
    - hooks:
        - {type: command, command: ./scripts/notify.sh}
---
body`))
	if err != nil {
		t.Fatal(err)
	}
	if !d.Hooks.Empty() {
		t.Errorf("hooks %+v, want none that run", d.Hooks)
	}
	want := []string{"a.md:5: hooks.PreCompact: gen has no PreCompact event (a Claude Code one); its hooks never run"}
	if !slices.Equal(d.Warnings, want) {
		t.Errorf("warnings\n got %q\nwant %q", d.Warnings, want)
	}
}

func TestParseRuleErrorUnwraps(t *testing.T) {
	_, err := Parse("a.md", []byte("---\nname: a\ndescription: d\nallow_tools: Bash(\n---\n"))
	var re *perm.RuleError
	if !errors.As(err, &re) || re.Rule != "Bash(" {
		t.Fatalf("error %v does not unwrap to the perm.RuleError", err)
	}
}

func TestSplitRules(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"   ", nil},
		{"Read", []string{"Read"}},
		{"Read, Bash(git diff a,b), Grep", []string{"Read", "Bash(git diff a,b)", "Grep"}},
		{"Bash(echo (a, b), c),Edit", []string{"Bash(echo (a, b), c)", "Edit"}},
		{"Read,", []string{"Read", ""}},
		{"Bash(a, b", []string{"Bash(a, b"}},
		{"a), b", []string{"a)", "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := SplitRules(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("SplitRules(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func agentFile(name, extra string) *fstest.MapFile {
	return &fstest.MapFile{Data: []byte("---\nname: " + name + "\ndescription: the " + name + " agent\n" + extra + "---\nYou are " + name + ".\n")}
}

// summary renders a catalog as "name=source@path" in name order.
func summary(c *Catalog) []string {
	var out []string
	for _, d := range c.All() {
		out = append(out, d.Name+"="+d.Source+"@"+d.Path)
	}
	return out
}

func TestLoad(t *testing.T) {
	tests := []struct {
		name          string
		project, user fstest.MapFS // nil = no directory
		want          []string
		// wantErrs are the messages of Catalog.Errors; broken maps names
		// to the error Lookup returns for them.
		wantErrs []string
		broken   map[string]string
	}{
		{
			name: "no directories: only the built-ins",
			want: []string{"Explore=builtin@", "general-purpose=builtin@"},
		},
		{
			name:    "both scopes, nested directories, other files ignored",
			project: fstest.MapFS{"reviewer.md": agentFile("reviewer", ""), "README.txt": {Data: []byte("not an agent")}},
			user:    fstest.MapFS{"team/writer.md": agentFile("writer", ""), "notes.md.bak": {Data: []byte("x")}},
			want: []string{
				"Explore=builtin@", "general-purpose=builtin@",
				"reviewer=project@.gen/agents/reviewer.md", "writer=user@~/.gen/agents/team/writer.md",
			},
		},
		{
			name:    "project wins a name clash with user",
			project: fstest.MapFS{"r.md": agentFile("reviewer", "")},
			user:    fstest.MapFS{"reviewer.md": agentFile("reviewer", "")},
			want:    []string{"Explore=builtin@", "general-purpose=builtin@", "reviewer=project@.gen/agents/r.md"},
		},
		{
			name: "a user file replaces a built-in",
			user: fstest.MapFS{"explore.md": agentFile("Explore", "mode: explore\n")},
			want: []string{"Explore=user@~/.gen/agents/explore.md", "general-purpose=builtin@"},
		},
		{
			name:    "names are case-sensitive",
			project: fstest.MapFS{"e.md": agentFile("explore", "")},
			want:    []string{"Explore=builtin@", "explore=project@.gen/agents/e.md", "general-purpose=builtin@"},
		},
		{
			name:     "same name twice in one scope is an error naming both files, and the name is broken",
			project:  fstest.MapFS{"a.md": agentFile("dup", ""), "sub/b.md": agentFile("dup", ""), "ok.md": agentFile("ok", "")},
			want:     []string{"Explore=builtin@", "general-purpose=builtin@", "ok=project@.gen/agents/ok.md"},
			wantErrs: []string{`agent: .gen/agents/a.md and .gen/agents/sub/b.md both define the agent "dup"`},
			broken:   map[string]string{"dup": `agent type "dup" cannot be used: agent: .gen/agents/a.md and .gen/agents/sub/b.md both define the agent "dup"`},
		},
		{
			name:     "same name twice in the user scope: the project file still wins",
			user:     fstest.MapFS{"a.md": agentFile("dup", ""), "b.md": agentFile("dup", "")},
			project:  fstest.MapFS{"dup.md": agentFile("dup", "")},
			want:     []string{"Explore=builtin@", "dup=project@.gen/agents/dup.md", "general-purpose=builtin@"},
			wantErrs: []string{`agent: ~/.gen/agents/a.md and ~/.gen/agents/b.md both define the agent "dup"`},
		},
		{
			name:     "a broken user file does not hide the others",
			user:     fstest.MapFS{"ok.md": agentFile("ok", ""), "bad.md": agentFile("bad", "mode: edit\n")},
			want:     []string{"Explore=builtin@", "general-purpose=builtin@", "ok=user@~/.gen/agents/ok.md"},
			wantErrs: []string{`~/.gen/agents/bad.md:4: unknown mode "edit" (want one of ` + modes + `)`},
			broken:   map[string]string{"bad": `agent type "bad" cannot be used: ~/.gen/agents/bad.md:4: unknown mode "edit" (want one of ` + modes + `)`},
		},
		{
			name:     "a broken project file without frontmatter is known by its file name",
			project:  fstest.MapFS{"bad.md": {Data: []byte("no frontmatter")}},
			want:     []string{"Explore=builtin@", "general-purpose=builtin@"},
			wantErrs: []string{`.gen/agents/bad.md:1: no frontmatter: an agent file starts with a "---" line, YAML with at least name and description, and a closing "---" line`},
			broken:   map[string]string{"bad": `agent type "bad" cannot be used: .gen/agents/bad.md:1: no frontmatter: an agent file starts with a "---" line, YAML with at least name and description, and a closing "---" line`},
		},
		{
			name:     "a broken project file shadows the user file of the same name",
			project:  fstest.MapFS{"x.md": agentFile("deploy", "tools: Bash(rm *)\n")},
			user:     fstest.MapFS{"deploy.md": agentFile("deploy", "")},
			want:     []string{"Explore=builtin@", "general-purpose=builtin@"},
			wantErrs: []string{`.gen/agents/x.md:4: tools lists tool names, not Bash(rm *): use allow_tools for rules with patterns`},
			broken:   map[string]string{"deploy": `agent type "deploy" cannot be used: .gen/agents/x.md:4: tools lists tool names, not Bash(rm *): use allow_tools for rules with patterns`},
		},
		{
			name:     "a broken file shadows the built-in of its name",
			user:     fstest.MapFS{"e.md": agentFile("Explore", "mode: sometimes\n")},
			want:     []string{"general-purpose=builtin@"},
			wantErrs: []string{`~/.gen/agents/e.md:4: unknown mode "sometimes" (want one of ` + modes + `)`},
			broken:   map[string]string{"Explore": `agent type "Explore" cannot be used: ~/.gen/agents/e.md:4: unknown mode "sometimes" (want one of ` + modes + `)`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var project, user = fsOrNil(tt.project), fsOrNil(tt.user)
			c, err := Load(project, user)
			if err != nil {
				t.Fatal(err)
			}
			var errs []string
			for _, e := range c.Errors() {
				errs = append(errs, e.Error())
			}
			if !reflect.DeepEqual(errs, tt.wantErrs) {
				t.Errorf("errors:\n got %q\nwant %q", errs, tt.wantErrs)
			}
			for name, want := range tt.broken {
				if _, err := c.Lookup(name); err == nil || err.Error() != want {
					t.Errorf("Lookup(%q):\n got %v\nwant %s", name, err, want)
				}
			}
			if got := summary(c); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("catalog:\n got %q\nwant %q", got, tt.want)
			}
			for _, d := range c.All() {
				if got, ok := c.Get(d.Name); !ok || got != d {
					t.Errorf("Get(%q) = %v, %v", d.Name, got, ok)
				}
			}
		})
	}
}

// fsOrNil keeps a nil MapFS from becoming a non-nil fs.FS.
func fsOrNil(m fstest.MapFS) fs.FS {
	if m == nil {
		return nil
	}
	return m
}

func TestBuiltins(t *testing.T) {
	c, err := Load(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	ex, ok := c.Get("Explore")
	if !ok {
		t.Fatal("no Explore")
	}
	if ex.Mode != perm.ModeExplore || !reflect.DeepEqual(ex.AllowTools, rules(t, "Read", "Glob", "Grep")) ||
		ex.Source != SourceBuiltin || ex.Path != "" || !strings.HasSuffix(ex.Prompt, exploreNotice) ||
		!strings.Contains(ex.Prompt, "read-only codebase investigator") {
		t.Errorf("Explore = %+v", ex)
	}
	gp, ok := c.Get("general-purpose")
	if !ok {
		t.Fatal("no general-purpose")
	}
	if gp.Mode != perm.ModeAcceptEdits || gp.AllowTools != nil || gp.Source != SourceBuiltin || gp.Prompt == "" || gp.Description == "" {
		t.Errorf("general-purpose = %+v", gp)
	}
	if _, ok := c.Get("explore"); ok {
		t.Error("Get is not case-sensitive")
	}
	// Each catalog has its own built-ins: changing one does not leak.
	ex.AllowTools[0].Tool = "Bash"
	c2, _ := Load(nil, nil)
	if ex2, _ := c2.Get("Explore"); ex2.AllowTools[0].Tool != "Read" {
		t.Error("built-in definitions are shared between catalogs")
	}
}

func TestCatalogWarnings(t *testing.T) {
	c, err := Load(fstest.MapFS{"b.md": agentFile("b", "effort: high\n")}, fstest.MapFS{"a.md": agentFile("a", "background: true\n")})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`~/.gen/agents/a.md:4: background (a Claude Code key) is not supported by gen and is ignored`, `.gen/agents/b.md:4: effort (a Claude Code key) is not supported by gen and is ignored`}
	if got := c.Warnings(); !reflect.DeepEqual(got, want) {
		t.Errorf("warnings:\n got %q\nwant %q", got, want)
	}
}

func TestDiscover(t *testing.T) {
	write := func(t *testing.T, path, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	file := func(name string) string { return string(agentFile(name, "").Data) }

	t.Run("project and user directories with real paths", func(t *testing.T) {
		tmp := t.TempDir()
		root, home := filepath.Join(tmp, "proj"), filepath.Join(tmp, "home")
		cwd := filepath.Join(root, "src", "pkg")
		write(t, filepath.Join(root, ".git", "HEAD"), "ref: x\n")
		write(t, filepath.Join(root, ".gen", "agents", "rev.md"), file("reviewer"))
		write(t, filepath.Join(home, ".gen", "agents", "w.md"), file("writer"))
		write(t, filepath.Join(home, ".gen", "agents", "r.md"), file("reviewer"))
		if err := os.MkdirAll(cwd, 0o755); err != nil {
			t.Fatal(err)
		}
		c, err := Discover(cwd, home)
		if err != nil {
			t.Fatal(err)
		}
		want := []string{
			"Explore=builtin@", "general-purpose=builtin@",
			"reviewer=project@" + filepath.Join(root, ".gen", "agents", "rev.md"),
			"writer=user@" + filepath.Join(home, ".gen", "agents", "w.md"),
		}
		if got := summary(c); !reflect.DeepEqual(got, want) {
			t.Errorf("catalog:\n got %q\nwant %q", got, want)
		}
	})
	// A project's agent is text the model is given (its prompt, its
	// description): a link out of the project, to another repository's
	// or the home directory's file, was loaded as the project's agent,
	// as a skill or a memory file is not. Links inside the project load.
	t.Run("a project agent linked out of the project", func(t *testing.T) {
		tmp, err := filepath.EvalSymlinks(t.TempDir()) // as the errors name it
		if err != nil {
			t.Fatal(err)
		}
		root, home := filepath.Join(tmp, "proj"), filepath.Join(tmp, "home")
		write(t, filepath.Join(root, ".git", "HEAD"), "ref: x\n")
		write(t, filepath.Join(tmp, "elsewhere", "secret.md"), file("secret"))
		write(t, filepath.Join(root, "docs", "inside.md"), file("inside"))
		agents := filepath.Join(root, ".claude", "agents")
		if err := os.MkdirAll(agents, 0o755); err != nil {
			t.Fatal(err)
		}
		for link, target := range map[string]string{"x.md": "../../../elsewhere/secret.md", "in.md": "../../docs/inside.md"} {
			if err := os.Symlink(target, filepath.Join(agents, link)); err != nil {
				t.Fatal(err)
			}
		}
		c, err := Discover(root, home)
		if err != nil {
			t.Fatal(err)
		}
		if d, ok := c.Get("inside"); !ok || d.Source != SourceProject {
			t.Errorf("the agent linked inside the project: %v, %v; want it loaded", d, ok)
		}
		if _, ok := c.Get("secret"); ok {
			t.Error("the agent linked out of the project loaded")
		}
		want := "agent: reading " + filepath.Join(agents, "x.md") + ": " + filepath.Join(agents, "x.md") + " is a link to " + filepath.Join(tmp, "elsewhere", "secret.md") + ", outside " + root
		if errs := c.Errors(); len(errs) != 1 || errs[0].Error() != want {
			t.Errorf("errors %q, want one: %s", errs, want)
		}

		// The agents directory itself a link out of the project.
		if err := os.RemoveAll(agents); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("../../elsewhere", agents); err != nil {
			t.Fatal(err)
		}
		_, err = Discover(root, home)
		want = "agent: " + agents + " is a link to " + filepath.Join(tmp, "elsewhere") + ", outside the project " + root + ": a project's agents must live in its tree"
		if err == nil || err.Error() != want {
			t.Errorf("Discover error %v, want %s", err, want)
		}
	})
	t.Run("missing directories mean built-ins only", func(t *testing.T) {
		tmp := t.TempDir()
		c, err := Discover(tmp, filepath.Join(tmp, "nohome"))
		if err != nil {
			t.Fatal(err)
		}
		if got := len(c.All()); got != 2 {
			t.Errorf("%d agents, want the 2 built-ins", got)
		}
	})
	t.Run("errors name the real path", func(t *testing.T) {
		tmp := t.TempDir()
		home := filepath.Join(tmp, "home")
		bad := filepath.Join(home, ".gen", "agents", "bad.md")
		write(t, bad, "---\nname: a\n---\n")
		c, err := Discover(filepath.Join(tmp, "elsewhere"), home)
		if err != nil {
			t.Fatal(err)
		}
		if want := bad + `:1: missing required field "description"`; len(c.Errors()) != 1 || c.Errors()[0].Error() != want {
			t.Fatalf("errors:\n got %v\nwant %s", c.Errors(), want)
		}
	})
	t.Run("agents path that is a file is an error", func(t *testing.T) {
		tmp := t.TempDir()
		write(t, filepath.Join(tmp, ".git"), "gitdir: x\n")
		agents := filepath.Join(tmp, ".gen", "agents")
		write(t, agents, "not a directory")
		_, err := Discover(tmp, filepath.Join(tmp, "home"))
		if want := "agent: " + agents + " is not a directory"; err == nil || err.Error() != want {
			t.Fatalf("error:\n got %v\nwant %s", err, want)
		}
	})
	// A dangling link is not "no agents": a user agent of the same name
	// (bypassPermissions, say) would run instead of the project's.
	t.Run("dangling agents link is an error naming the link", func(t *testing.T) {
		for _, link := range []string{".gen/agents", ".claude/agents", ".gen", "home/.gen/agents"} {
			tmp := t.TempDir()
			write(t, filepath.Join(tmp, ".git"), "gitdir: x\n")
			home := filepath.Join(tmp, "home")
			write(t, filepath.Join(home, ".gen", "agents", "a.md"), file("a"))
			l := filepath.Join(tmp, link)
			if link == "home/.gen/agents" {
				if err := os.RemoveAll(l); err != nil {
					t.Fatal(err)
				}
			}
			testtree.Write(t, tmp, map[string]string{link: "->missing"})
			_, err := Discover(tmp, home)
			if want := l + " is a symbolic link to a directory that does not exist"; err == nil || !strings.HasPrefix(err.Error(), "agent: ") || !strings.HasSuffix(err.Error(), want) {
				t.Errorf("%s: error\n got %v\nwant %s", link, err, want)
			}
		}
	})
	t.Run("project root at home reads the agents once", func(t *testing.T) {
		home := t.TempDir()
		write(t, filepath.Join(home, ".git", "HEAD"), "ref: x\n")
		write(t, filepath.Join(home, ".gen", "agents", "a.md"), file("a"))
		c, err := Discover(home, home)
		if err != nil {
			t.Fatal(err)
		}
		if d, ok := c.Get("a"); !ok || d.Source != SourceUser {
			t.Errorf("Get(a) = %+v, %v; want the user definition", d, ok)
		}
	})
}

// BenchmarkLoad1000 loads 1,000 agent files from memory.
func BenchmarkLoad1000(b *testing.B) {
	fsys := fstest.MapFS{}
	for i := range 1000 {
		p, text := agenttest.File(i)
		fsys[p] = &fstest.MapFile{Data: []byte(text)}
	}
	b.ReportAllocs()
	for b.Loop() {
		c, err := Load(fsys, nil)
		if err != nil {
			b.Fatal(err)
		}
		if len(c.All()) != 1002 {
			b.Fatalf("%d agents", len(c.All()))
		}
	}
}

// TestLoadParallelSameAsSequential loads a scope large enough to be parsed
// in parallel, with broken files, a name two files define and a file that
// cannot be read, and checks that the catalog is the one a sequential load
// makes: the same definitions, errors in the same (walk) order, the same
// warnings.
func TestLoadParallelSameAsSequential(t *testing.T) {
	fsys := fstest.MapFS{}
	for i := range 200 {
		text := fmt.Sprintf("---\nname: a%03d\ndescription: d\neffort: e%d\n---\nbody\n", i, i)
		switch {
		case i%17 == 0:
			text = "no frontmatter"
		case i%23 == 0:
			text = "---\nname: dup\ndescription: d\n---\nbody\n"
		case i == 101:
			text = "---\nname: [\n---\n"
		}
		fsys[fmt.Sprintf("t%d/a%03d.md", i%3, i)] = &fstest.MapFile{Data: []byte(text)}
	}
	fsys["t1/dir.md"] = &fstest.MapFile{Mode: fs.ModeDir}
	fsys["t2/fifo.md"] = &fstest.MapFile{Mode: fs.ModeNamedPipe}
	type result struct {
		names, errs, warns []string
	}
	load := func(procs int) result {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		c, err := Load(fsys, nil)
		if err != nil {
			t.Fatal(err)
		}
		var r result
		for _, d := range c.All() {
			r.names = append(r.names, d.Name+" "+d.Path)
		}
		for _, e := range c.Errors() {
			r.errs = append(r.errs, e.Error())
		}
		r.warns = c.Warnings()
		return r
	}
	seq, par := load(1), load(4)
	if len(seq.errs) < 10 || len(seq.names) < 150 || len(seq.warns) < 150 {
		t.Fatalf("the scope does not exercise what it should: %d errors, %d agents, %d warnings", len(seq.errs), len(seq.names), len(seq.warns))
	}
	if !reflect.DeepEqual(seq, par) {
		t.Errorf("parallel load differs from sequential:\nsequential %q\nparallel   %q", seq, par)
	}
}

// A project file that takes the name of a user's agent replaces the
// user's definition, its deny_tools and mode included: the person running
// `gen agent run --type reviewer` in a cloned repository is told.
func TestLoadProjectShadowingUserIsWarned(t *testing.T) {
	c, err := Load(fstest.MapFS{"r.md": agentFile("reviewer", "")}, fstest.MapFS{"reviewer.md": agentFile("reviewer", "deny_tools: Bash\n"), "other.md": agentFile("other", "")})
	if err != nil {
		t.Fatal(err)
	}
	d, err := c.Lookup("reviewer")
	if err != nil {
		t.Fatal(err)
	}
	want := `.gen/agents/r.md: the project's agent "reviewer" replaces yours in ~/.gen/agents/reviewer.md`
	if !slices.Contains(d.Warnings, want) {
		t.Errorf("warnings %q lack %q", d.Warnings, want)
	}
	if o, _ := c.Lookup("other"); len(o.Warnings) != 0 {
		t.Errorf("an agent nobody shadows has warnings %q", o.Warnings)
	}
}

// Claude Code's agent files list its tools that gen does not have
// (tools: Read, Edit, MultiEdit, TodoWrite): in tools and as bare names
// in disallowedTools they are left out with a warning, since they only
// hide tools; a disallowedTools rule with a pattern naming one is a deny
// rule, and stays an error.
func TestParseClaudeTools(t *testing.T) {
	d, err := Parse("a.md", []byte("---\nname: a\ndescription: d\ntools: Read, Edit, MultiEdit, TodoWrite\ndisallowedTools: LS\n---\nbody"))
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(d.Hidden, "Read") || slices.Contains(d.Hidden, "Edit") || !slices.Contains(d.Hidden, "Bash") {
		t.Errorf("hidden %q, want Read and Edit shown and Bash hidden", d.Hidden)
	}
	want := []string{
		`a.md:4: tools: malformed rule "MultiEdit": unknown tool "MultiEdit": a Claude Code tool gen does not have, so the rule matches no call; left out`,
		`a.md:4: tools: malformed rule "TodoWrite": unknown tool "TodoWrite": a Claude Code tool gen does not have, so the rule matches no call; left out`,
		`a.md:5: disallowedTools: malformed rule "LS": unknown tool "LS": a Claude Code tool gen does not have, so the rule matches no call; left out`,
	}
	if !slices.Equal(d.Warnings, want) {
		t.Errorf("warnings\n got %q\nwant %q", d.Warnings, want)
	}
	// Only tools gen lacks: every tool of gen's is hidden.
	d, err = Parse("a.md", []byte("---\nname: a\ndescription: d\ntools: MultiEdit\n---\nbody"))
	if err != nil || !slices.Contains(d.Hidden, "Read") || !slices.Contains(d.Hidden, "Edit") {
		t.Errorf("tools: MultiEdit: %v, hidden %q; want every tool of gen's hidden", err, d.Hidden)
	}
	for _, fm := range []string{"disallowedTools: MultiEdit(./src/**)", "deny_tools: MultiEdit", "allow_tools: TodoWrite"} {
		if _, err := Parse("a.md", []byte("---\nname: a\ndescription: d\n"+fm+"\n---\nbody")); err == nil || !strings.Contains(err.Error(), "a Claude Code tool gen does not have") {
			t.Errorf("%s: error %v, want the rule refused", fm, err)
		}
	}
}

// Claude Code's Task is its old name for Agent, and Agent(type, ...) in
// tools limits which agents a main-thread agent (--agent) starts
// (Delegates); a bare Agent or Task starts any.
func TestParseClaudeAgentTool(t *testing.T) {
	d, err := Parse("a.md", []byte("---\nname: a\ndescription: d\ntools: Read, Agent(Explore), Task\ndisallowedTools: Task(general-purpose)\n---\nbody"))
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(d.Hidden, "Read") || slices.Contains(d.Hidden, "Agent") || !slices.Contains(d.Hidden, "Bash") {
		t.Errorf("hidden %q, want Read and Agent listed and Bash hidden", d.Hidden)
	}
	if !slices.ContainsFunc(d.DenyTools, func(r perm.Rule) bool { return r.String() == "Agent(general-purpose)" }) {
		t.Errorf("deny_tools %v, want Task(general-purpose) read as Agent(general-purpose)", d.DenyTools)
	}
	if d.Delegates != nil || len(d.Warnings) > 0 {
		t.Errorf("delegates %q, warnings %q: a bare Task starts any agent", d.Delegates, d.Warnings)
	}
	for front, want := range map[string][]string{
		"tools: Read, Agent(worker, researcher)\n": {"worker", "researcher"},
		"tools: [Read, \"Task(worker)\"]\n":        {"worker"},
		"tools: Read\n":                            nil,
	} {
		d, err := Parse("a.md", []byte("---\nname: a\ndescription: d\n"+front+"---\nbody"))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(d.Delegates, want) || slices.Contains(d.Hidden, "Agent") != (want == nil) {
			t.Errorf("%q: delegates %q, hidden %q; want delegates %q", front, d.Delegates, d.Hidden, want)
		}
	}
	_, err = Parse("a.md", []byte("---\nname: a\ndescription: d\ntools: Agent(worker, no good)\n---\nbody"))
	if want := `a.md:4: tools lists Agent(worker, no good): invalid name "no good"`; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %v, want %s...", err, want)
	}
}

// An agent's mode plan, under either key, is explore: plan mode is the
// main loop's, left with the person's approval.
func TestPlanModeAgentIsExplore(t *testing.T) {
	for _, key := range []string{"mode", "permissionMode"} {
		d, err := Parse("a.md", []byte("---\nname: a\ndescription: d\n"+key+": plan\n---\nbody"))
		if err != nil {
			t.Fatalf("%s: plan: %v", key, err)
		}
		if d.Mode != perm.ModeExplore {
			t.Errorf("%s: plan: mode %s, want explore", key, d.Mode)
		}
	}
}
