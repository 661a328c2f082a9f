package policy

import (
	"slices"
	"strings"
	"testing"

	"github.com/gen-run/gen/agent"
	"github.com/gen-run/gen/perm"
)

// parseAgent parses an agent file with frontmatter front, as the user's.
func parseAgent(t *testing.T, front string) *agent.Definition {
	t.Helper()
	d, err := agent.Parse("/home/u/.gen/agents/a.md", []byte("---\nname: a\ndescription: d\n"+front+"---\nYou are agent a.\n"))
	if err != nil {
		t.Fatal(err)
	}
	d.Source = agent.SourceUser
	return d
}

func bashReq(cmd string) perm.Request {
	return perm.Request{Tool: "Bash", Input: map[string]any{"command": cmd}}
}

func readReq(path string) perm.Request {
	return perm.Request{Tool: "Read", Input: map[string]any{"file_path": path}}
}

// TestMainAsAgent: the main loop run as an agent (--agent) is held to the
// agent's rules as the agent run on its own is: its allow_tools constrain
// every call (settings allow rules and session grants included), its
// deny_tools deny in bypassPermissions, the tools it does not have are
// denied, and its mode caps the session's. It stays the main loop: an
// Ask is left for the person.
func TestMainAsAgent(t *testing.T) {
	s := load(t, map[string]string{
		".gen/settings.json": `{"permissions": {"allow": ["Bash(echo:*)"], "deny": ["Bash(git push:*)"]}}`,
		"a.txt":              "x\n",
		"secret.txt":         "s\n",
	})
	s.Trusted = true
	d := parseAgent(t, "mode: acceptEdits\nallow_tools: Read, Bash(git:*), Edit\ndeny_tools: Read(./secret*)\ndisallowedTools: Write\n")
	rt := Runtime{Mode: perm.ModeBypass, Grants: []perm.Rule{{Tool: "WebFetch"}}, Agent: d}
	p := Main(s, rt)
	if p.Mode != perm.ModeAcceptEdits || p.NoPrompt {
		t.Errorf("mode %s, NoPrompt %v: want acceptEdits (the agent's cap), and a person to ask", p.Mode, p.NoPrompt)
	}
	for _, tc := range []struct {
		req    perm.Request
		want   perm.Decision
		reason string
	}{
		{readReq("a.txt"), perm.Allow, ""},
		{readReq("secret.txt"), perm.Deny, "deny_tools"},
		{bashReq("git status"), perm.Allow, ""},
		{bashReq("git commit -m x"), perm.Allow, "Bash(git:*)"},
		{bashReq("git push origin"), perm.Deny, "deny rule Bash(git push:*)"},
		// The settings allow rule and the session grant allow nothing
		// outside allow_tools.
		{bashReq("echo hi"), perm.Deny, "allow_tools"},
		{perm.Request{Tool: "WebFetch", Input: map[string]any{"url": "https://example.com/"}}, perm.Deny, "allow_tools"},
		// Write is not one of its tools (disallowedTools).
		{perm.Request{Tool: "Write", Input: map[string]any{"file_path": "b.txt", "content": "y"}}, perm.Deny, "not one of the agent's tools"},
		{perm.Request{Tool: "Edit", Input: map[string]any{"file_path": "a.txt", "old_string": "x", "new_string": "y"}}, perm.Allow, ""},
	} {
		r := perm.Evaluate(tc.req, &p)
		if r.Decision != tc.want || !strings.Contains(r.Reason, tc.reason) {
			t.Errorf("%s %v = %v (step %d: %s), want %v %q", tc.req.Tool, tc.req.Input, r.Decision, r.Step, r.Reason, tc.want, tc.reason)
		}
	}
	if got, want := Visible(&p, nil), []string{"Read", "Edit", "NotebookEdit", "Bash"}; !sameSet(got, want) {
		t.Errorf("the model sees %v, want %v", got, want)
	}
	// Without the agent the same runtime state is the plain main loop.
	rt.Agent = nil
	plain := Main(s, rt)
	if r := perm.Evaluate(bashReq("echo hi"), &plain); plain.Mode != perm.ModeBypass || r.Decision != perm.Allow {
		t.Errorf("without the agent: mode %s, echo hi %v (%s)", plain.Mode, r.Decision, r.Reason)
	}
}

// TestMainAsAgentDenyInBypass: an agent in bypassPermissions run as the
// main loop has its deny_tools honoured, as the settings' deny rules are.
func TestMainAsAgentDenyInBypass(t *testing.T) {
	s := load(t, map[string]string{"secret.txt": "s\n", "a.txt": "x\n"})
	d := parseAgent(t, "mode: bypassPermissions\ndeny_tools: Read(./secret*), Bash(rm:*)\n")
	p := Main(s, Runtime{Mode: perm.ModeBypass, Agent: d})
	if p.Mode != perm.ModeBypass {
		t.Fatalf("mode %s, want bypassPermissions", p.Mode)
	}
	for _, req := range []perm.Request{readReq("secret.txt"), bashReq("rm a.txt")} {
		if r := perm.Evaluate(req, &p); r.Decision != perm.Deny || !strings.Contains(r.Reason, "deny_tools") && !strings.Contains(r.Reason, "(agent)") {
			t.Errorf("%s %v = %v (%s), want denied by the agent's deny_tools", req.Tool, req.Input, r.Decision, r.Reason)
		}
	}
	if r := perm.Evaluate(bashReq("touch b.txt"), &p); r.Decision != perm.Allow {
		t.Errorf("touch b.txt = %v (%s): bypassPermissions allows what no rule denies", r.Decision, r.Reason)
	}
}

// TestMainModeAsAgent: the person may run the main loop in any mode up
// to the agent's, and in none above it; the agent's own mode is capped
// as an agent's is (a project's agent in a project that is not trusted
// asks at least as often as default, and managed settings disable modes).
func TestMainModeAsAgent(t *testing.T) {
	for _, tc := range []struct {
		name          string
		source        string
		agentMode, rt perm.Mode
		trusted       bool
		disableBypass bool
		want          perm.Mode
		warn          string
	}{
		{"above the agent's", agent.SourceUser, perm.ModeDefault, perm.ModeBypass, false, false, perm.ModeDefault, ""},
		{"acceptEdits above default", agent.SourceUser, perm.ModeDefault, perm.ModeAcceptEdits, false, false, perm.ModeDefault, ""},
		{"the same rank", agent.SourceUser, perm.ModeDefault, perm.ModeDontAsk, false, false, perm.ModeDontAsk, ""},
		{"below the agent's", agent.SourceUser, perm.ModeBypass, perm.ModeAcceptEdits, false, false, perm.ModeAcceptEdits, ""},
		{"explore caps all", agent.SourceUser, perm.ModeExplore, perm.ModeDefault, false, false, perm.ModeExplore, ""},
		{"a user's agent in an untrusted project", agent.SourceUser, perm.ModeBypass, perm.ModeBypass, false, false, perm.ModeBypass, ""},
		{"a project's agent, untrusted", agent.SourceProject, perm.ModeBypass, perm.ModeBypass, false, false, perm.ModeDefault, "ignoring project agent mode"},
		{"a project's agent, untrusted, acceptEdits", agent.SourceProject, perm.ModeAcceptEdits, perm.ModeAcceptEdits, false, false, perm.ModeDefault, "ignoring project agent mode"},
		{"a project's agent, trusted", agent.SourceProject, perm.ModeBypass, perm.ModeBypass, true, false, perm.ModeBypass, ""},
		{"bypass disabled", agent.SourceUser, perm.ModeBypass, perm.ModeBypass, false, true, perm.ModeDefault, "disabled by managed settings"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := load(t, nil)
			s.Trusted, s.DisableBypass = tc.trusted, tc.disableBypass
			d := &agent.Definition{Name: "a", Mode: tc.agentMode, Source: tc.source, Path: "/proj/.gen/agents/a.md"}
			rt := Runtime{Mode: tc.rt, Agent: d}
			m, warns := MainMode(s, rt)
			if p := Main(s, rt); m != tc.want || p.Mode != tc.want {
				t.Errorf("MainMode %s, Main's mode %s, want %s", m, p.Mode, tc.want)
			}
			warned := strings.Join(warns, "\n")
			if tc.warn == "" && warned != "" || !strings.Contains(warned, tc.warn) {
				t.Errorf("warnings %q, want %q", warns, tc.warn)
			}
			if all := MainWarnings(s, rt); !slices.Equal(all, warns) {
				t.Errorf("MainWarnings %q, want the mode's %q", all, warns)
			}
		})
	}
	// Without an agent the mode is the person's.
	if m, _ := MainMode(load(t, nil), Runtime{Mode: perm.ModeBypass}); m != perm.ModeBypass {
		t.Errorf("no agent: mode %s", m)
	}
}

// TestMainAsUntrustedProjectAgent: a project's agent run as the main loop
// in a project that is not trusted is capped as it would be run on its
// own: its allow_tools only restrict and its mode is at most default,
// with the warnings Subagent gives.
func TestMainAsUntrustedProjectAgent(t *testing.T) {
	s := load(t, map[string]string{"a.txt": "x\n"})
	bash, _ := perm.ParseRule("Bash")
	d := &agent.Definition{Name: "pwn", Mode: perm.ModeBypass, Source: agent.SourceProject, Path: "/proj/.gen/agents/pwn.md", AllowTools: []perm.Rule{bash}}
	rt := Runtime{Mode: perm.ModeBypass, Agent: d}
	p := Main(s, rt)
	if p.Mode != perm.ModeDefault {
		t.Errorf("mode %s, want default", p.Mode)
	}
	if r := perm.Evaluate(bashReq("curl https://x.example"), &p); r.Decision != perm.Ask {
		t.Errorf("curl = %v (%s): allow_tools must not allow, and the person is asked", r.Decision, r.Reason)
	}
	if r := perm.Evaluate(readReq("a.txt"), &p); r.Decision != perm.Deny || !strings.Contains(r.Reason, "allow_tools") {
		t.Errorf("Read = %v (%s): the constraint still holds", r.Decision, r.Reason)
	}
	_, subWarns := Subagent(s, d, nil)
	if warns := MainWarnings(s, rt); len(warns) != 2 || !slices.Equal(warns, subWarns) {
		t.Errorf("warnings %q, want the two Subagent gives: %q", warns, subWarns)
	}
	s.Trusted = true
	p = Main(s, rt)
	if r := perm.Evaluate(bashReq("curl https://x.example"), &p); p.Mode != perm.ModeBypass || r.Decision != perm.Allow {
		t.Errorf("trusted: mode %s, curl %v (%s)", p.Mode, r.Decision, r.Reason)
	}
}

// TestMainParentAsAgent: what the main loop run as an agent passes down
// to its subagents: its capped mode and the agent's deny_tools; the
// tools it does not have and its allow_tools bind only its own calls.
func TestMainParentAsAgent(t *testing.T) {
	s := load(t, nil)
	d := parseAgent(t, "mode: acceptEdits\ntools: Read, Agent\ndeny_tools: Bash(rm:*)\n")
	par := MainParent(s, Runtime{Mode: perm.ModeBypass, Dirs: []string{"/added"}, Agent: d})
	if par.Mode != perm.ModeAcceptEdits || !slices.Equal(par.Dirs, []string{"/added"}) {
		t.Errorf("parent = %+v", par)
	}
	child := &agent.Definition{Name: "c", Mode: perm.ModeBypass}
	p, _ := Subagent(s, child, &par)
	if r := perm.Evaluate(bashReq("rm -rf x"), &p); r.Decision != perm.Deny || r.Rule != "Bash(rm:*)" {
		t.Errorf("the child's rm = %v (%s, rule %q), want the parent agent's deny rule", r.Decision, r.Reason, r.Rule)
	}
	write := perm.Request{Tool: "Write", Input: map[string]any{"file_path": s.Workspace.Root + "/x", "content": "y"}}
	if r := perm.Evaluate(write, &p); r.Decision != perm.Allow {
		t.Errorf("the child's Write = %v (%s): the parent's tools do not bind it", r.Decision, r.Reason)
	}
	if p.Mode != perm.ModeAcceptEdits {
		t.Errorf("child mode %s, want the parent's acceptEdits", p.Mode)
	}
	if plain := MainParent(s, Runtime{Mode: perm.ModeDefault}); len(plain.Deny) != 0 || plain.Mode != perm.ModeDefault {
		t.Errorf("without an agent: %+v", plain)
	}
}

// TestVisibleMainAsAgent: the main loop run as an agent shows what the
// agent has, and, unlike a subagent, the Agent and AskUserQuestion tools
// and the tools a mode would ask about, for a person to answer.
func TestVisibleMainAsAgent(t *testing.T) {
	s := load(t, nil)
	for _, tc := range []struct {
		front string
		want  []string
	}{
		{"tools: Read, Bash, Agent, AskUserQuestion\n", []string{"Read", "Bash", "Agent", "AskUserQuestion"}},
		{"tools: Read\n", []string{"Read"}},
		{"allow_tools: Read, Write\n", []string{"Read", "Write"}},
		{"deny_tools: Agent, Bash\ntools: Read, Bash, Agent, Edit\n", []string{"Read", "Edit"}},
	} {
		d := parseAgent(t, tc.front)
		p := Main(s, Runtime{Mode: perm.ModeDefault, Agent: d})
		if got := Visible(&p, nil); !sameSet(got, tc.want) {
			t.Errorf("%q: shows %v, want %v", tc.front, got, tc.want)
		}
		if ShowsSkill(&p, nil) {
			t.Errorf("%q: shows Skill, which the agent does not have", tc.front)
		}
		if ShowsMCP(&p, nil)("mcp__gh__issues") {
			t.Errorf("%q: shows an MCP tool the agent does not name", tc.front)
		}
	}
}

// sameSet reports whether a and b hold the same names.
func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// TestMainAsAgentDelegates: Claude Code's tools: Agent(worker) lets the
// main loop run as the agent start the worker only; a bare Agent, any.
func TestMainAsAgentDelegates(t *testing.T) {
	s := load(t, nil)
	agents := []*agent.Definition{{Name: "worker"}, {Name: "worker2"}, {Name: "Explore"}}
	start := func(p *perm.Policy, typ string) perm.Result {
		return perm.Evaluate(perm.Request{Tool: "Agent", Input: map[string]any{"subagent_type": typ, "prompt": "x"}}, p)
	}
	d := parseAgent(t, "tools: Read, Agent(worker)\n")
	p := Main(s, Runtime{Mode: perm.ModeDefault, Agents: append(agents, d), Agent: d})
	if r := start(&p, "worker"); r.Decision != perm.Ask {
		t.Errorf("Agent(worker) = %v (%s), want it left to the person", r.Decision, r.Reason)
	}
	for _, typ := range []string{"worker2", "Explore", "a"} {
		if r := start(&p, typ); r.Decision != perm.Deny || r.Rule != "Agent("+typ+")" {
			t.Errorf("Agent(%s) = %v (%s, rule %q), want denied", typ, r.Decision, r.Reason, r.Rule)
		}
	}
	if !slices.Contains(Visible(&p, nil), "Agent") {
		t.Error("the Agent tool is hidden")
	}
	any := parseAgent(t, "tools: Read, Agent\n")
	p = Main(s, Runtime{Mode: perm.ModeDefault, Agents: agents, Agent: any})
	if r := start(&p, "Explore"); r.Decision != perm.Ask {
		t.Errorf("a bare Agent: Agent(Explore) = %v (%s)", r.Decision, r.Reason)
	}
}

// An agent's tools list names the MCP tools it has: the others are
// denied and hidden, in bypassPermissions and whatever rule allows
// them, run as the main loop or as a subagent (whose allow_tools naming
// the server do not add them either).
func TestAgentToolsListMCP(t *testing.T) {
	s := load(t, map[string]string{".gen/settings.json": `{"permissions": {"allow": ["mcp__srv", "mcp__other"]}}`})
	s.Trusted = true
	mcpReq := func(name string) perm.Request { return perm.Request{Tool: name, Input: map[string]any{}} }
	d := parseAgent(t, "mode: bypassPermissions\ntools: Read, mcp__srv__echo, mcp__other\nallow_tools: Read, mcp__srv, mcp__other\n")
	main := Main(s, Runtime{Mode: perm.ModeBypass, Agent: d})
	sub, _ := Subagent(s, d, nil)
	for name, p := range map[string]*perm.Policy{"main": &main, "subagent": &sub} {
		shows := ShowsMCP(p, nil)
		if name == "subagent" {
			shows = ShowsMCP(p, d)
		}
		for tool, want := range map[string]bool{"mcp__srv__echo": true, "mcp__other__x": true, "mcp__srv__pid": false, "mcp__third__x": false} {
			r := perm.Evaluate(mcpReq(tool), p)
			if (r.Decision == perm.Allow) != want || shows(tool) != want {
				t.Errorf("%s: %s: %s (%s), shown %v; want allowed and shown %v", name, tool, r.Decision, r.Reason, shows(tool), want)
			}
		}
	}
}
