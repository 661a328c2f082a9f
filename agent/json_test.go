package agent

import (
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gen-run/gen/hook"
	"github.com/gen-run/gen/internal/testtree"
	"github.com/gen-run/gen/perm"
)

// TestParseJSONSameAsFile: an agent given as JSON (--agents) is the agent
// the file with the same fields and its prompt as body is, but for where
// it came from: the fields go through the file's parser.
func TestParseJSONSameAsFile(t *testing.T) {
	for _, tt := range []struct {
		name, frontmatter, json string
	}{
		{"minimal",
			"description: d\n",
			`{"description": "d"}`},
		{"gen's keys, rules as a string and as a list",
			"description: d\nmode: acceptEdits\nallow_tools: Read, Bash(git log:*)\ndeny_tools: [Bash(git push:*)]\nmodel: m\nmax_turns: 3\nproject_memory: true\n",
			`{"description": "d", "mode": "acceptEdits", "allow_tools": "Read, Bash(git log:*)", "deny_tools": ["Bash(git push:*)"], "model": "m", "max_turns": 3, "project_memory": true}`},
		{"Claude Code's keys",
			"description: d\ntools: [Read, Grep, Bash]\ndisallowedTools: [Grep, Bash(rm:*)]\npermissionMode: plan\nmaxTurns: 5\ncolor: red\nmodel: inherit\n",
			`{"description": "d", "tools": ["Read", "Grep", "Bash"], "disallowedTools": ["Grep", "Bash(rm:*)"], "permissionMode": "plan", "maxTurns": 5, "color": "red", "model": "inherit"}`},
		{"hooks, Stop as SubagentStop",
			"description: d\nhooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks: [{type: command, command: ./check.sh, timeout: 30}]\n  Stop:\n    - hooks: [{type: command, command: ./stop.sh}]\n",
			`{"description": "d", "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./check.sh", "timeout": 30}]}], "Stop": [{"hooks": [{"type": "command", "command": "./stop.sh"}]}]}}`},
		{"a name that repeats the key",
			"description: d\n",
			`{"name": "a", "description": "d"}`},
		{"JSON escapes YAML lacks",
			"description: \"\U0001F600 a/b\"\ndeny_tools: Read(/etc/**)\n",
			`{"description": "\ud83d\ude00 a\/b", "deny_tools": "Read(\/etc\/**)"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			file, err := Parse("a.md", []byte("---\nname: a\n"+tt.frontmatter+"---\n  Do it.\n"))
			if err != nil {
				t.Fatal(err)
			}
			entry := strings.TrimSuffix(tt.json, "}") + `, "prompt": "  Do it.\n"}`
			defs, err := ParseJSON("--agents", []byte(`{"a": `+entry+`}`))
			if err != nil {
				t.Fatal(err)
			}
			if len(defs) != 1 {
				t.Fatalf("%d definitions, want 1", len(defs))
			}
			got := defs[0]
			if got.Path != "--agents a" || got.Source != SourceCLI {
				t.Errorf("path %q, source %q; want --agents a, cli", got.Path, got.Source)
			}
			// Hooks keep where they came from; compare what they are.
			hooksEqual(t, got.Hooks, file.Hooks)
			file.Path, file.Source, file.Hooks = got.Path, got.Source, got.Hooks
			if !reflect.DeepEqual(got, file) {
				t.Errorf("from JSON\n got %+v\nwant %+v (the file's)", got, file)
			}
		})
	}
}

// hooksEqual checks that got and want run the same commands for the same
// events and subjects.
func hooksEqual(t *testing.T, got, want hook.Config) {
	t.Helper()
	for _, ev := range hook.Events {
		for _, subject := range []string{"Bash", "Read", "a"} {
			g, w := got.Matching(ev, subject), want.Matching(ev, subject)
			if len(g) != len(w) {
				t.Errorf("%s(%s): %d hooks, want %d", ev, subject, len(g), len(w))
				continue
			}
			for i := range g {
				if g[i].Command != w[i].Command || g[i].Timeout != w[i].Timeout {
					t.Errorf("%s(%s) hook %d: %+v, want %+v", ev, subject, i, g[i], w[i])
				}
			}
		}
	}
}

// TestParseJSONErrors: what an agent file refuses, --agents refuses too,
// naming the flag, the agent and the key; so do JSON that is not an
// object of objects, a missing prompt or description, and a name that is
// not the agent's key.
func TestParseJSONErrors(t *testing.T) {
	const unknownTool = `unknown tool "Foo" (want a built-in tool such as Bash, Read or Edit, mcp__server__tool, MCP(...), Agent(...) or Skill(...))`
	for _, tt := range []struct {
		name, json, wantErr string // exact
	}{
		{"unknown key", `{"r": {"description": "d", "prompt": "p", "colour": "red"}}`,
			`--agents r: colour: unknown key "colour": did you mean "color"?`},
		{"near miss of a permission key", `{"r": {"description": "d", "prompt": "p", "allowedTools": ["Read"]}}`,
			`--agents r: allowedTools: unknown key "allowedTools": did you mean "allow_tools"?`},
		{"the file's body is no field", `{"r": {"description": "d", "prompt": "p", "body": "x"}}`,
			`--agents r: body: unknown key "body" (gen reads ` + knownKeys + `)`},
		{"unknown tool in a list", `{"r": {"description": "d", "prompt": "p", "tools": ["Read", "Foo"]}}`,
			`--agents r: tools[1]: malformed rule "Foo": ` + unknownTool},
		{"malformed rule in a string", `{"r": {"description": "d", "prompt": "p", "deny_tools": "Read, Bash(git"}}`,
			`--agents r: deny_tools: malformed rule "Bash(git": missing closing parenthesis`},
		{"unknown mode", `{"r": {"description": "d", "prompt": "p", "permissionMode": "nope"}}`,
			`--agents r: permissionMode: unknown mode "nope" (want one of ` + modes + `)`},
		{"mode twice", `{"r": {"description": "d", "prompt": "p", "mode": "explore", "permissionMode": "plan"}}`,
			`--agents r: permissionMode: permissionMode repeats the permission mode already set by mode`},
		{"empty allow_tools", `{"r": {"description": "d", "prompt": "p", "allow_tools": []}}`,
			`--agents r: allow_tools: allow_tools is empty: list the tools the agent may use, or remove the key to leave tools to the mode`},
		{"turns not an integer", `{"r": {"description": "d", "prompt": "p", "maxTurns": 1.5}}`,
			`--agents r: maxTurns: maxTurns must be a positive integer, not "1.5"`},
		{"project_memory not a bool", `{"r": {"description": "d", "prompt": "p", "project_memory": "yes"}}`,
			`--agents r: project_memory: project_memory must be true or false, not "yes"`},
		{"description not a string", `{"r": {"description": ["d"], "prompt": "p"}}`,
			`--agents r: description: description must be a string`},
		{"bad hook", `{"r": {"description": "d", "prompt": "p", "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "x", "timeout": "a"}]}]}}}`,
			`--agents r: hooks.PreToolUse[0].hooks[0].timeout: must be a positive number of seconds, at most 86400`},
		{"hook for another agent", `{"r": {"description": "d", "prompt": "p", "hooks": {"SubagentStop": [{"matcher": "other", "hooks": [{"type": "command", "command": "x"}]}]}}}`,
			`--agents r: hooks: hooks.SubagentStop matcher "other" does not match the agent's name "r": the hook would never run`},
		{"empty hooks", `{"r": {"description": "d", "prompt": "p", "hooks": {}}}`,
			`--agents r: hooks: hooks is empty: configure a hook, or remove the key`},
		{"name not the key", `{"r": {"name": "s", "description": "d", "prompt": "p"}}`,
			`--agents r: name: name "s" is not the agent's name "r"`},
		{"invalid name field", `{"r": {"name": "a b", "description": "d", "prompt": "p"}}`,
			`--agents r: name: invalid name "a b": use letters, digits, '-', '_' and '.', starting with a letter or digit`},
		{"invalid key", `{"a(b)": {"description": "d", "prompt": "p"}}`,
			`--agents: invalid name "a(b)": use letters, digits, '-', '_' and '.', starting with a letter or digit`},
		{"no prompt", `{"r": {"description": "d"}}`,
			`--agents r: missing required field "prompt"`},
		{"no description", `{"r": {"prompt": "p"}}`,
			`--agents r: missing required field "description"`},
		{"prompt not a string", `{"r": {"description": "d", "prompt": null}}`,
			`--agents r: prompt: prompt must be a string`},
		{"entry not an object", `{"r": "You review."}`,
			`--agents r must be a JSON object of the agent's fields (description, prompt, tools, ...)`},
		{"not an object", `[{"r": {}}]`,
			`--agents must be a JSON object that maps agent names to definitions`},
		{"an agent twice", `{"r": {"description": "d", "prompt": "p"}, "r": {"description": "e", "prompt": "p"}}`,
			`--agents:1:44: duplicate key "r"`},
		{"a key twice", `{"r": {"description": "d", "prompt": "p", "deny_tools": ["Bash"], "deny_tools": []}}`,
			`--agents:1:67: duplicate key "r.deny_tools"`},
		{"not JSON", `{"r": {description: "d"}}`,
			`--agents:1:8: invalid character 'd' looking for beginning of object key string`},
		{"more after the object", `{} {}`,
			`--agents:1:4: invalid character '{' after top-level value`},
		{"empty", ``,
			`--agents:1:1: unexpected end of JSON input`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			defs, err := ParseJSON("--agents", []byte(tt.json))
			if err == nil || err.Error() != tt.wantErr {
				t.Fatalf("ParseJSON = %v, %v\nwant error %s", defs, err, tt.wantErr)
			}
		})
	}
}

// TestParseJSONWarnings: what a file is warned about, --agents is too,
// at the agent and key.
func TestParseJSONWarnings(t *testing.T) {
	defs, err := ParseJSON("--agents", []byte(`{"r": {"description": "d", "prompt": " ", "effort": "high", "tools": ["Read", "TodoWrite"], "hooks": {"PreCompact": [{"hooks": [{"type": "command", "command": "x"}]}]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"--agents r: effort: effort (a Claude Code key) is not supported by gen and is ignored",
		`--agents r: tools[1]: tools: malformed rule "TodoWrite": unknown tool "TodoWrite": a Claude Code tool gen does not have, so the rule matches no call; left out`,
		"--agents r: hooks.PreCompact: gen has no PreCompact event (a Claude Code one); its hooks never run",
		"--agents r: prompt is empty: the agent has no system prompt",
	}
	if !slices.Equal(defs[0].Warnings, want) {
		t.Errorf("warnings\n got %q\nwant %q", defs[0].Warnings, want)
	}
}

// TestDiscoverFlagAgents: agents given on the command line take
// precedence over the files of the same name, project or user, and over
// a broken file and a built-in; the others stay, and a broken file is
// still an error.
func TestDiscoverFlagAgents(t *testing.T) {
	tmp := t.TempDir()
	root, home := filepath.Join(tmp, "proj"), filepath.Join(tmp, "home")
	file := func(name, extra string) string { return string(agentFile(name, extra).Data) }
	testtree.Write(t, tmp, map[string]string{
		"proj/.git/HEAD":               "ref: x\n",
		"proj/.gen/agents/rev.md":      file("reviewer", "tools: Bash\n"),
		"proj/.gen/agents/broken.md":   "---\nname: broken\ndescription: d\nmode: edit\n---\n",
		"proj/.claude/agents/w.md":     file("writer", ""),
		"home/.gen/agents/mine.md":     file("mine", ""),
		"home/.gen/agents/keep.md":     file("keep", ""),
		"home/.claude/agents/rev.md":   file("reviewer", ""),
		"home/.claude/agents/other.md": file("other", ""),
	})
	flag, err := ParseJSON("--agents", []byte(`{
		"reviewer": {"description": "flag", "prompt": "p", "tools": ["Read"]},
		"writer": {"description": "flag", "prompt": "p"},
		"mine": {"description": "flag", "prompt": "p"},
		"broken": {"description": "flag", "prompt": "p"},
		"Explore": {"description": "flag", "prompt": "p"}}`))
	if err != nil {
		t.Fatal(err)
	}
	c, err := Discover(root, home, flag...)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"Explore=cli@--agents Explore",
		"broken=cli@--agents broken",
		"general-purpose=builtin@",
		"keep=user@" + filepath.Join(home, ".gen", "agents", "keep.md"),
		"mine=cli@--agents mine",
		"other=user@" + filepath.Join(home, ".claude", "agents", "other.md"),
		"reviewer=cli@--agents reviewer",
		"writer=cli@--agents writer",
	}
	if got := summary(c); !reflect.DeepEqual(got, want) {
		t.Errorf("catalog:\n got %q\nwant %q", got, want)
	}
	d, err := c.Lookup("reviewer")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(d.Hidden, "Bash") || slices.Contains(d.Hidden, "Read") {
		t.Errorf("reviewer hides %q, want the flag's tools: Read, not the file's Bash", d.Hidden)
	}
	if _, err := c.Lookup("broken"); err != nil {
		t.Errorf("Lookup(broken): %v, want the flag's agent", err)
	}
	if errs := c.Errors(); len(errs) != 1 || !strings.Contains(errs[0].Error(), `broken.md:4: unknown mode "edit"`) {
		t.Errorf("errors %v, want the broken file's", errs)
	}
	if w := c.Warnings(); len(w) != 0 {
		t.Errorf("warnings %q, want none: the flag is the user's choice", w)
	}
	// Without the flag the files are back.
	c, err = Discover(root, home)
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := c.Get("reviewer"); d == nil || d.Source != SourceProject {
		t.Errorf("without --agents reviewer is %+v, want the project's", d)
	}
}

// An explore agent given as JSON gets the read-only notice after its
// prompt, as a file's does, and a mode the flag gives is the agent's.
func TestParseJSONExplore(t *testing.T) {
	defs, err := ParseJSON("--agents", []byte(`{"r": {"description": "d", "prompt": "Look.", "permissionMode": "plan"}, "w": {"description": "d", "prompt": "Go.", "mode": "bypassPermissions"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if defs[0].Mode != perm.ModeExplore || defs[0].Prompt != withExploreNotice("Look.") {
		t.Errorf("r: mode %s, prompt %q; want explore with the notice", defs[0].Mode, defs[0].Prompt)
	}
	if defs[1].Name != "w" || defs[1].Mode != perm.ModeBypass || defs[1].Prompt != "Go." {
		t.Errorf("w: %+v", defs[1])
	}
}
