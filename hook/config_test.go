package hook

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/gen-run/gen/perm"
)

func mustParse(t *testing.T, origin, raw string) Config {
	t.Helper()
	c, err := Parse(origin, []byte(raw))
	if err != nil {
		t.Fatalf("Parse(%s): %v", origin, err)
	}
	return c
}

func TestParse(t *testing.T) {
	c := mustParse(t, ".gen/settings.json", `{
		"PreToolUse": [
			{"matcher": "Bash|Edit", "hooks": [{"type": "command", "command": "a.sh", "timeout": 5}]},
			{"hooks": [{"type": "command", "command": "b.sh"}, {"type": "command", "command": "c.sh", "timeout": 0.5}]}
		],
		"Stop": [{"hooks": [{"type": "command", "command": "stop.sh", "statusMessage": "Checking..."}]}],
		"PostToolUse": []
	}`)
	got := c.Matching(PreToolUse, "Bash")
	want := []Handler{
		{Command: "a.sh", Timeout: 5 * time.Second, Origin: ".gen/settings.json: hooks.PreToolUse[0].hooks[0]"},
		{Command: "b.sh", Origin: ".gen/settings.json: hooks.PreToolUse[1].hooks[0]"},
		{Command: "c.sh", Timeout: 500 * time.Millisecond, Origin: ".gen/settings.json: hooks.PreToolUse[1].hooks[1]"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("Matching(PreToolUse, Bash) =\n%+v\nwant\n%+v", got, want)
	}
	if !c.Has(Stop) || c.Has(PostToolUse) || c.Has(SessionStart) {
		t.Errorf("Has: Stop %v PostToolUse %v SessionStart %v, want true false false", c.Has(Stop), c.Has(PostToolUse), c.Has(SessionStart))
	}
	for _, raw := range []string{``, `null`, `{}`} {
		c, err := Parse("x.json", []byte(raw))
		if err != nil || c.Has(PreToolUse) {
			t.Errorf("Parse(%q) = %v, %v; want an empty config", raw, c, err)
		}
	}
}

// Claude Code's events that gen has no twin for and whose hooks decide
// nothing gen does load, and never run: a user's PreCompact hook must
// not make the whole settings file unusable.
func TestParseClaudeEvents(t *testing.T) {
	c := mustParse(t, "f.json", `{
		"PostCompact": [{"hooks": [{"type": "http", "url": "http://x"}]}],
		"PreCompact": [{"matcher": "", "hooks": [{"type": "command", "command": "notify-send hi"}]}],
		"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "a.sh"}]}]
	}`)
	if got, want := c.Ignored(), []string{"PostCompact", "PreCompact"}; !slices.Equal(got, want) {
		t.Errorf("Ignored() = %q, want %q", got, want)
	}
	if got := c.Matching(PreToolUse, "Bash"); len(got) != 1 || got[0].Command != "a.sh" {
		t.Errorf("Matching(PreToolUse, Bash) = %+v, want a.sh alone", got)
	}
	for _, ev := range Events {
		if ev != PreToolUse && c.Has(ev) {
			t.Errorf("Has(%s) = true, want only PreToolUse hooks", ev)
		}
	}
	if c := mustParse(t, "f.json", `{"Stop": []}`); c.Ignored() != nil {
		t.Errorf("Ignored() = %q for no Claude Code event, want none", c.Ignored())
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, raw, want string
	}{
		{"not an object", `[1]`, `f.json: hooks: must be an object mapping event names to lists of matcher groups`},
		{"unknown event", `{"PreToolUse": [], "BeforeTool": []}`,
			`f.json: hooks.BeforeTool: unknown hook event (want one of SessionStart, UserPromptSubmit, SubagentStart, PreToolUse, PermissionRequest, Notification, PermissionDenied, PostToolUse, PostToolUseFailure, SubagentStop, Stop, SessionEnd)`},
		{"a Claude Code event whose hooks could refuse", `{"ConfigChange": [{"hooks": [{"type": "command", "command": "exit 2"}]}]}`,
			`f.json: hooks.ConfigChange: gen has no ConfigChange event (a Claude Code one), and a hook there could refuse what gen would do without asking it; remove the hook`},
		{"event not a list", `{"Stop": {"hooks": []}}`, `f.json: hooks.Stop: must be a list of matcher groups`},
		{"unknown group key", `{"Stop": [{"hooks": [], "matchers": "x"}]}`, `f.json: hooks.Stop[0].matchers: unknown key (want one of matcher, hooks)`},
		{"missing hooks", `{"Stop": [{"matcher": "x"}]}`, `f.json: hooks.Stop[0]: missing "hooks"`},
		{"bad regex", `{"PreToolUse": [{"matcher": "Bash(", "hooks": []}]}`,
			"f.json: hooks.PreToolUse[0].matcher: invalid regular expression \"Bash(\": error parsing regexp: missing closing ): `Bash(`"},
		{"matcher not a string", `{"PreToolUse": [{"matcher": 1, "hooks": []}]}`, `f.json: hooks.PreToolUse[0].matcher: must be a string`},
		{"prompt hook", `{"Stop": [{"hooks": [{"type": "prompt", "prompt": "x"}]}]}`, `f.json: hooks.Stop[0].hooks[0].prompt: unknown key (want one of type, command, timeout, statusMessage, if, shell, async)`},
		{"http type", `{"Stop": [{"hooks": [{"type": "http", "command": "x"}]}]}`, `f.json: hooks.Stop[0].hooks[0].type: unsupported hook type "http" (gen runs only "command" hooks)`},
		{"missing type", `{"Stop": [{"hooks": [{"command": "x"}]}]}`, `f.json: hooks.Stop[0].hooks[0].type: missing or not a string (want "command")`},
		{"unknown hook key", `{"Stop": [{"hooks": [{"type": "command", "command": "x", "once": true}]}]}`,
			`f.json: hooks.Stop[0].hooks[0].once: unknown key (want one of type, command, timeout, statusMessage, if, shell, async)`},
		{"async hook", `{"Stop": [{"hooks": [{"type": "command", "command": "x", "async": true}]}]}`,
			`f.json: hooks.Stop[0].hooks[0].async: gen waits for every hook (want false, or no async): a hook run in the background could not refuse what it guards`},
		{"powershell hook", `{"Stop": [{"hooks": [{"type": "command", "command": "x", "shell": "powershell"}]}]}`,
			`f.json: hooks.Stop[0].hooks[0].shell: gen runs hooks with bash only (want "bash", or no shell)`},
		{"empty command", `{"Stop": [{"hooks": [{"type": "command", "command": " "}]}]}`, `f.json: hooks.Stop[0].hooks[0].command: missing, empty or not a string`},
		{"if of a Stop hook", `{"Stop": [{"hooks": [{"type": "command", "command": "x", "if": "Bash(git *)"}]}]}`, `f.json: hooks.Stop[0].hooks[0].if: applies to the hooks of tool events only, not Stop`},
		{"if not a string", `{"PreToolUse": [{"hooks": [{"type": "command", "command": "x", "if": true}]}]}`, `f.json: hooks.PreToolUse[0].hooks[0].if: must be a string: a permission rule, such as "Bash(git *)"`},
		{"if not a rule", `{"PreToolUse": [{"hooks": [{"type": "command", "command": "x", "if": "Bash(git *"}]}]}`, `f.json: hooks.PreToolUse[0].hooks[0].if: malformed rule "Bash(git *": missing closing parenthesis`},
		{"zero timeout", `{"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": 0}]}]}`,
			`f.json: hooks.Stop[0].hooks[0].timeout: must be a positive number of seconds, at most 86400`},
		{"string timeout", `{"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": "60"}]}]}`,
			`f.json: hooks.Stop[0].hooks[0].timeout: must be a positive number of seconds, at most 86400`},
		{"timeout past the bound", `{"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": 86401}]}]}`,
			`f.json: hooks.Stop[0].hooks[0].timeout: must be a positive number of seconds, at most 86400`},
		// 1e10 seconds overflows a time.Duration to a negative value,
		// which must not pass the bound and become the default.
		{"timeout that overflows a duration", `{"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": 1e10}]}]}`,
			`f.json: hooks.Stop[0].hooks[0].timeout: must be a positive number of seconds, at most 86400`},
		{"huge timeout", `{"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": 1e300}]}]}`,
			`f.json: hooks.Stop[0].hooks[0].timeout: must be a positive number of seconds, at most 86400`},
		{"timeout below a nanosecond", `{"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": 1e-12}]}]}`,
			`f.json: hooks.Stop[0].hooks[0].timeout: must be a positive number of seconds, at most 86400`},
		// A tool event's matcher of plain names must name tools: one
		// that names none never matches, and its hook never runs.
		{"misspelt tool", `{"PreToolUse": [{"matcher": "Bassh", "hooks": []}]}`,
			`f.json: hooks.PreToolUse[0].matcher: "Bassh" names no tool (matchers are exact, case-sensitive tool names): did you mean "Bash"?`},
		{"lower-case tool", `{"PostToolUse": [{"matcher": "bash", "hooks": []}]}`,
			`f.json: hooks.PostToolUse[0].matcher: "bash" names no tool (matchers are exact, case-sensitive tool names): did you mean "Bash"?`},
		{"trailing space", `{"PreToolUse": [{"matcher": "Bash ", "hooks": []}]}`,
			`f.json: hooks.PreToolUse[0].matcher: "Bash " names no tool (matchers are exact, case-sensitive tool names): did you mean "Bash"?`},
		{"spaces around a bar", `{"PreToolUse": [{"matcher": "Edit | Write", "hooks": []}]}`,
			`f.json: hooks.PreToolUse[0].matcher: "Edit " names no tool (matchers are exact, case-sensitive tool names): did you mean "Edit"?`},
		{"one alternative misspelt", `{"PermissionRequest": [{"matcher": "Edit|Writ", "hooks": []}]}`,
			`f.json: hooks.PermissionRequest[0].matcher: "Writ" names no tool (matchers are exact, case-sensitive tool names): did you mean "Write"?`},
		{"empty alternative", `{"PreToolUse": [{"matcher": "Edit|", "hooks": []}]}`,
			`f.json: hooks.PreToolUse[0].matcher: "Edit|" has an empty name between bars: it matches no tool`},
		{"unknown name", `{"PermissionDenied": [{"matcher": "Deploy", "hooks": []}]}`,
			`f.json: hooks.PermissionDenied[0].matcher: "Deploy" names no tool (matchers are exact, case-sensitive tool names, mcp__server__tool, a regular expression, or * for every tool)`},
		{"a permission rule", `{"PreToolUse": [{"matcher": "Bash(git:*)", "hooks": []}]}`,
			`f.json: hooks.PreToolUse[0].matcher: "Bash(git:*)" is a permission rule, not a tool name: match "Bash" and read the call's tool_input in the hook`},
		{"a permission rule in a list", `{"PreToolUse": [{"matcher": "Read|Edit(./src/**)", "hooks": []}]}`,
			`f.json: hooks.PreToolUse[0].matcher: "Edit(./src/**)" is a permission rule, not a tool name: match "Edit" and read the call's tool_input in the hook`},
		{"an MCP server alone", `{"PreToolUse": [{"matcher": "mcp__github", "hooks": []}]}`,
			`f.json: hooks.PreToolUse[0].matcher: "mcp__github" names no tool (MCP tools are mcp__server__tool): did you mean "mcp__github__.*"?`},
		{"an MCP tool by its server's name for it", `{"PreToolUse": [{"matcher": "mcp__files__read file", "hooks": []}]}`,
			`f.json: hooks.PreToolUse[0].matcher: "mcp__files__read file" names no tool: MCP tools are mcp__server__tool with only letters, digits, '_' and '-' (a server's tool get file is mcp__server__get_file)`},
		{"no server of that name", `{"PreToolUse": [{"matcher": "mcp___x__y", "hooks": []}]}`,
			`f.json: hooks.PreToolUse[0].matcher: "mcp___x__y" names no tool: MCP tools are mcp__server__tool with only letters, digits, '_' and '-' (a server's tool get file is mcp__server__get_file)`},
		{"hooks not a list", `{"Stop": [{"hooks": {"type": "command"}}]}`, `f.json: hooks.Stop[0].hooks: must be a list of hooks`},
		// encoding/json keeps the last of two keys: a guard hook, a
		// command or a whole event would silently give way to another.
		{"event twice", `{"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh"}]}], "PreToolUse": []}`,
			`f.json: hooks.PreToolUse: duplicate key: a JSON object keeps only one of them, so which applies would be a guess; remove one`},
		{"hooks twice in a group", `{"Stop": [{"hooks": [{"type": "command", "command": "x"}], "hooks": []}]}`,
			`f.json: hooks.Stop[0].hooks: duplicate key: a JSON object keeps only one of them, so which applies would be a guess; remove one`},
		{"command twice", `{"Stop": [{"hooks": [{"type": "command", "command": "guard.sh", "command": "true"}]}]}`,
			`f.json: hooks.Stop[0].hooks[0].command: duplicate key: a JSON object keeps only one of them, so which applies would be a guess; remove one`},
		{"statusMessage not a string", `{"Stop": [{"hooks": [{"type": "command", "command": "x", "statusMessage": 1}]}]}`,
			`f.json: hooks.Stop[0].hooks[0].statusMessage: must be a string`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("f.json", []byte(tt.raw))
			if err == nil {
				t.Fatalf("Parse succeeded, want %q", tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("error\n%s\nwant\n%s", err, tt.want)
			}
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Origin != "f.json" {
				t.Errorf("error %T does not carry the origin", err)
			}
		})
	}
}

// TestParseMatchers: the matchers that parse. A tool event's plain names
// are gen's tools or Claude Code's (a hook written for Edit|MultiEdit|Write
// guards gen's Edit and Write), MCP tools, or a regular expression, which
// is not checked. Other events match other things (a SessionStart source,
// a subagent type), which are not tool names.
func TestParseMatchers(t *testing.T) {
	for ev, ms := range map[Event][]string{
		PreToolUse:        {"", "*", "Bash", "Edit|MultiEdit|Write", "Agent", "Skill", "mcp__github__create_issue", "mcp__github__.*", "Notebook.*", "^(Write|Edit)$", "LoadToolGroup", "TodoWrite|ExitPlanMode"},
		PostToolUse:       {"Read|Grep|Glob", "WebFetch|WebSearch"},
		PermissionRequest: {"Bash"},
		PermissionDenied:  {"Bash"},
		SessionStart:      {"startup", "resume|clear"},
		SubagentStop:      {"code-reviewer", "reviewer"},
		Stop:              {"anything"},
		UserPromptSubmit:  {"anything"},
	} {
		for _, m := range ms {
			raw := fmt.Sprintf(`{%q: [{"matcher": %q, "hooks": [{"type": "command", "command": "x"}]}]}`, ev, m)
			if _, err := Parse("f.json", []byte(raw)); err != nil {
				t.Errorf("%s matcher %q: %v", ev, m, err)
			}
		}
	}
}

func TestMatches(t *testing.T) {
	tests := []struct {
		matcher string
		yes, no []string
	}{
		{"", []string{"Bash", "mcp__x__y"}, nil},
		{"*", []string{"Bash", "Read"}, nil},
		{"Bash", []string{"Bash"}, []string{"BashOutput", "bash", "xBash"}},
		{"Bash|Edit", []string{"Bash", "Edit"}, []string{"Write", "Bash|Edit"}},
		{"mcp__github__.*", []string{"mcp__github__create_issue"}, []string{"mcp__gitlab__x", "Bash"}},
		{"Notebook.*", []string{"NotebookEdit"}, []string{"Edit"}},
		{"^(Write|Edit)$", []string{"Write", "Edit"}, []string{"NotebookEdit"}},
	}
	for _, tt := range tests {
		g := Group{Matcher: tt.matcher}
		if err := g.compile(); err != nil {
			t.Fatalf("%q: %v", tt.matcher, err)
		}
		for _, s := range tt.yes {
			if !g.Matches(s) {
				t.Errorf("matcher %q does not match %q", tt.matcher, s)
			}
		}
		for _, s := range tt.no {
			if g.Matches(s) {
				t.Errorf("matcher %q matches %q", tt.matcher, s)
			}
		}
	}
}

func TestFilterMergeDedup(t *testing.T) {
	managed := mustParse(t, "/etc/gen/managed-settings.json", `{"PreToolUse": [{"hooks": [{"type": "command", "command": "audit.sh"}]}]}`).WithSource(perm.SourceManaged)
	project := mustParse(t, ".gen/settings.json", `{"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "p.sh"}, {"type": "command", "command": "audit.sh"}]}]}`).WithSource(perm.SourceProject)
	user := mustParse(t, "~/.gen/settings.json", `{"Stop": [{"hooks": [{"type": "command", "command": "u.sh"}]}]}`).WithSource(perm.SourceUser)
	all := Merge(managed, project, user)

	cmds := func(hs []Handler) []string {
		var s []string
		for _, h := range hs {
			s = append(s, string(h.Source)+":"+h.Command)
		}
		return s
	}
	if got, want := cmds(all.Matching(PreToolUse, "Bash")), []string{"managed:audit.sh", "project:p.sh"}; !slices.Equal(got, want) {
		t.Errorf("merged PreToolUse(Bash) = %v, want %v (audit.sh once, managed first)", got, want)
	}
	if got, want := cmds(all.Matching(PreToolUse, "Read")), []string{"managed:audit.sh"}; !slices.Equal(got, want) {
		t.Errorf("merged PreToolUse(Read) = %v, want %v", got, want)
	}
	untrusted := all.Filter(func(s perm.Source) bool { return s != perm.SourceProject && s != perm.SourceLocal })
	if got, want := cmds(untrusted.Matching(PreToolUse, "Bash")), []string{"managed:audit.sh"}; !slices.Equal(got, want) {
		t.Errorf("without project hooks = %v, want %v", got, want)
	}
	if !untrusted.Has(Stop) {
		t.Error("filtering project hooks dropped the user's Stop hook")
	}
	managedOnly := all.Filter(func(s perm.Source) bool { return s == perm.SourceManaged })
	if managedOnly.Has(Stop) || len(managedOnly.Matching(PreToolUse, "Bash")) != 1 {
		t.Errorf("managed only: Stop %v, PreToolUse %v", managedOnly.Has(Stop), managedOnly.Matching(PreToolUse, "Bash"))
	}
	// The original is unchanged.
	if len(all.Matching(PreToolUse, "Bash")) != 2 {
		t.Error("Filter modified its receiver")
	}
}

// TestParseAgent: an agent's own hooks (Claude Code's hooks: in agent
// frontmatter) parse as settings hooks do; Stop becomes SubagentStop, as
// it runs when the agent, a subagent, finishes (its matcher, ignored
// under Stop, stays ignored), and the events that never come while an
// agent runs are errors rather than hooks that silently never run.
func TestParseAgent(t *testing.T) {
	c, err := ParseAgent("a.md", []byte(`{
		"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "check.sh"}]}],
		"Stop": [{"matcher": "whatever", "hooks": [{"type": "command", "command": "stop.sh"}]}],
		"SubagentStop": [{"hooks": [{"type": "command", "command": "sub.sh"}]}]
	}`))
	if err != nil {
		t.Fatal(err)
	}
	if c.Has(Stop) || !c.Has(SubagentStop) {
		t.Errorf("Has(Stop) %v, Has(SubagentStop) %v: want Stop run as SubagentStop", c.Has(Stop), c.Has(SubagentStop))
	}
	var got []string
	for _, h := range c.Matching(SubagentStop, "reviewer") {
		got = append(got, h.Command+" "+h.Origin)
	}
	if want := []string{"stop.sh a.md: hooks.Stop[0].hooks[0]", "sub.sh a.md: hooks.SubagentStop[0].hooks[0]"}; !slices.Equal(got, want) {
		t.Errorf("SubagentStop hooks %q, want %q", got, want)
	}
	if hs := c.Matching(PreToolUse, "Bash"); len(hs) != 1 || hs[0].Command != "check.sh" {
		t.Errorf("PreToolUse(Bash) = %+v", hs)
	}
	for raw, want := range map[string]string{
		`{"SessionStart": [{"hooks": [{"type": "command", "command": "x"}]}]}`:     `a.md: hooks.SessionStart: an agent's hooks run while it runs, and SessionStart does not come then: put the hook in a settings file`,
		`{"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "x"}]}]}`: `a.md: hooks.UserPromptSubmit: an agent's hooks run while it runs, and UserPromptSubmit does not come then: put the hook in a settings file`,
		`{"PreToolUse": [{"matcher": "Bassh", "hooks": []}]}`:                      `a.md: hooks.PreToolUse[0].matcher: "Bassh" names no tool (matchers are exact, case-sensitive tool names): did you mean "Bash"?`,
	} {
		if _, err := ParseAgent("a.md", []byte(raw)); err == nil || err.Error() != want {
			t.Errorf("ParseAgent(%s) = %v, want %s", raw, err, want)
		}
	}
}

// TestAsMain: the hooks of an agent run as the main loop (--agent) end
// its run at Stop: the stop hooks that would run at its end as a
// subagent (its Stop hooks, and its SubagentStop hooks whose matcher
// names it) become Stop hooks, one naming another agent is dropped, and
// its other hooks are as they were. The receiver is not changed.
func TestAsMain(t *testing.T) {
	c, err := ParseAgent("a.md", []byte(`{
		"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "check.sh"}]}],
		"Stop": [{"hooks": [{"type": "command", "command": "stop.sh"}]}],
		"SubagentStop": [{"matcher": "reviewer", "hooks": [{"type": "command", "command": "mine.sh"}]},
			{"matcher": "other", "hooks": [{"type": "command", "command": "other.sh"}]}]
	}`))
	if err != nil {
		t.Fatal(err)
	}
	m := c.AsMain("reviewer")
	var got []string
	for _, h := range m.Matching(Stop, "") {
		got = append(got, h.Command)
	}
	if want := []string{"stop.sh", "mine.sh"}; !slices.Equal(got, want) || m.Has(SubagentStop) {
		t.Errorf("Stop hooks %q (SubagentStop left: %v), want %q", got, m.Has(SubagentStop), want)
	}
	if hs := m.Matching(PreToolUse, "Bash"); len(hs) != 1 || hs[0].Command != "check.sh" {
		t.Errorf("PreToolUse(Bash) = %+v", hs)
	}
	if c.Has(Stop) || len(c.Matching(SubagentStop, "reviewer")) != 2 {
		t.Error("AsMain modified its receiver")
	}
}

// TestRunnerWith: a runner With an agent's hooks runs the session's and
// the agent's, each command once, the session's first; the agent's are
// asked for at each event.
func TestRunnerWith(t *testing.T) {
	session := &Runner{Config: mustParse(t, "s.json", `{"PreToolUse": [{"hooks": [{"type": "command", "command": "s.sh"}, {"type": "command", "command": "both.sh"}]}]}`), ProjectDir: "/p"}
	agentHooks := mustParse(t, "a.md", `{"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "both.sh"}, {"type": "command", "command": "a.sh"}]}]}`)
	on := true
	r := session.With(func() Config {
		if on {
			return agentHooks
		}
		return Config{}
	}, "/other")
	cmds := func(ev Event, subject string) []string {
		var out []string
		for _, h := range r.config().Matching(ev, subject) {
			out = append(out, h.Command)
		}
		return out
	}
	if got, want := cmds(PreToolUse, "Bash"), []string{"s.sh", "both.sh", "a.sh"}; !slices.Equal(got, want) {
		t.Errorf("with the agent's hooks: %q, want %q", got, want)
	}
	if got, want := cmds(PreToolUse, "Read"), []string{"s.sh", "both.sh"}; !slices.Equal(got, want) {
		t.Errorf("Read: %q, want %q", got, want)
	}
	on = false
	if got, want := cmds(PreToolUse, "Bash"), []string{"s.sh", "both.sh"}; !slices.Equal(got, want) {
		t.Errorf("once the agent's hooks may not run: %q, want %q", got, want)
	}
	if r.ProjectDir != "/p" {
		t.Errorf("ProjectDir %q, want the session's", r.ProjectDir)
	}
	on = true
	alone := (*Runner)(nil).With(func() Config { return agentHooks }, "/other")
	if !alone.Has(PreToolUse) || alone.ProjectDir != "/other" {
		t.Errorf("With on no session runner: Has %v, ProjectDir %q", alone.Has(PreToolUse), alone.ProjectDir)
	}
}

// Task, Claude Code's old name for the Agent tool, names Agent in a tool
// event's matcher, plain or in a regular expression, as Claude Code still
// takes it; elsewhere (a subagent type) it is only itself.
func TestTaskMatchesAgent(t *testing.T) {
	for _, m := range []string{"Task", "Task|Bash", "^Ta.k$"} {
		c := mustParse(t, "f.json", `{"PreToolUse": [{"matcher": "`+m+`", "hooks": [{"type": "command", "command": "x"}]}]}`)
		if len(c.Matching(PreToolUse, "Agent")) != 1 {
			t.Errorf("PreToolUse matcher %q does not match Agent", m)
		}
		if len(c.Matching(PreToolUse, "Read")) != 0 {
			t.Errorf("PreToolUse matcher %q matches Read", m)
		}
	}
	c := mustParse(t, "f.json", `{"SubagentStop": [{"matcher": "Task", "hooks": [{"type": "command", "command": "x"}]}]}`)
	if len(c.Matching(SubagentStop, "Agent")) != 0 {
		t.Error("a SubagentStop matcher Task matches the subagent type Agent")
	}
}
