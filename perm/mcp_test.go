package perm

import (
	"strings"
	"testing"
)

// MCP tools are decided by name only: the exact name, mcp__SERVER (the
// whole server, Claude Code's form) and MCP(glob) (the spec's form).
func TestEvaluateMCP(t *testing.T) {
	f := newFixture(t)
	req := func(name string) Request { return Request{Tool: name, Input: map[string]any{"q": "x"}} }
	headless := func(p *Policy) { p.NoPrompt = true }
	constrain := func(rs ...string) func(*Policy) { return func(p *Policy) { p.Constraint = rules(rs...) } }
	cases := []evalCase{
		// Deny by each form, also over an allow and in bypass mode.
		{"deny exact", deny("mcp__gh__delete_repo"), req("mcp__gh__delete_repo"), Deny, 1, "mcp__gh__delete_repo"},
		{"deny server", deny("mcp__gh"), req("mcp__gh__delete_repo"), Deny, 1, "mcp__gh"},
		{"deny glob", deny("MCP(mcp__gh__delete_*)"), req("mcp__gh__delete_repo"), Deny, 1, "MCP(mcp__gh__delete_*)"},
		{"deny server over allow", all(deny("mcp__gh"), allow("mcp__gh__delete_repo")), req("mcp__gh__delete_repo"), Deny, 1, ""},
		{"deny glob in bypass", all(deny("MCP(mcp__gh__*)"), mode(ModeBypass)), req("mcp__gh__list"), Deny, 1, ""},
		// Claude Code's bare glob is the MCP glob rule.
		{"deny bare glob", deny("mcp__gh__delete_*"), req("mcp__gh__delete_repo"), Deny, 1, "MCP(mcp__gh__delete_*)"},
		{"deny bare glob other tool", deny("mcp__gh__delete_*"), req("mcp__gh__list"), Ask, 7, ""},
		{"allow bare glob", allow("mcp__gh__list*"), req("mcp__gh__list_issues"), Allow, 6, ""},
		{"deny exact other tool", deny("mcp__gh__delete_repo"), req("mcp__gh__list"), Ask, 7, ""},
		{"deny glob other server", deny("MCP(mcp__gh__*)"), req("mcp__ghx__list"), Ask, 7, ""},

		// A server rule covers that server only, never a longer name.
		{"server rule not prefix", deny("mcp__gh"), req("mcp__ghx__list"), Ask, 7, ""},
		{"server rule not tool", allow("mcp__gh__list"), req("mcp__gh__list_all"), Ask, 7, ""},
		{"server rule is not a glob", allow("mcp__g"), req("mcp__gh__list"), Ask, 7, ""},

		// Allow by each form.
		{"allow exact", allow("mcp__gh__list"), req("mcp__gh__list"), Allow, 6, ""},
		{"allow server", allow("mcp__gh"), req("mcp__gh__list"), Allow, 6, ""},
		{"allow glob", allow("MCP(mcp__gh__list*)"), req("mcp__gh__list_issues"), Allow, 6, ""},
		{"ask rule beats allow", all(ask("mcp__gh"), allow("mcp__gh__list")), req("mcp__gh__list"), Ask, 5, ""},

		// MCP tools are Exec: Ask in default and acceptEdits, Deny where
		// nobody can be asked, whatever the server says about them.
		{"default asks", nil, req("mcp__gh__list"), Ask, 7, "requires approval"},
		{"acceptEdits asks", mode(ModeAcceptEdits), req("mcp__gh__list"), Ask, 7, ""},
		{"headless denies", headless, req("mcp__gh__list"), Deny, 8, "requires approval"},
		{"explore denies", mode(ModeExplore), req("mcp__gh__list"), Deny, 7, "explore"},
		{"dontAsk denies", mode(ModeDontAsk), req("mcp__gh__list"), Deny, 7, ""},
		{"headless allowed by rule", all(headless, allow("mcp__gh")), req("mcp__gh__list"), Allow, 6, ""},

		// A session rule (the delegate's "always allow") allows; a deny
		// rule still wins over it.
		{"session rule", all(headless, func(p *Policy) { p.Session = rules("mcp__gh") }), req("mcp__gh__list"), Allow, 4, ""},
		{"deny beats session", all(deny("MCP(mcp__gh__*)"), func(p *Policy) { p.Session = rules("mcp__gh") }), req("mcp__gh__list"), Deny, 1, ""},

		// An agent's allow_tools must name the tool.
		{"constraint names server", all(headless, constrain("mcp__gh"), allow("mcp__gh")), req("mcp__gh__list"), Allow, 6, ""},
		{"constraint glob", all(headless, constrain("MCP(mcp__gh__*)"), allow("MCP(mcp__gh__*)")), req("mcp__gh__list"), Allow, 6, ""},
		{"constraint misses", all(headless, constrain("mcp__other"), allow("mcp__gh")), req("mcp__gh__list"), Deny, 2, "allow_tools"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := &Policy{Mode: ModeDefault, Workspace: f.ws()}
			if tc.pol != nil {
				tc.pol(p)
			}
			got := Evaluate(tc.req, p)
			if got.Decision != tc.want || got.Step != tc.step || !strings.Contains(got.Reason+" "+got.Rule, tc.reason) {
				t.Errorf("Evaluate(%s) = %v step %d %q (rule %q); want %v step %d containing %q",
					tc.req.Tool, got.Decision, got.Step, got.Reason, got.Rule, tc.want, tc.step, tc.reason)
			}
		})
	}
}

func TestClassOfMCP(t *testing.T) {
	for name, want := range map[string]Class{
		"mcp__gh__list":  Exec,
		"mcp__x__read":   Exec,
		"ListToolGroups": Safe,
		"LoadToolGroup":  Safe,
	} {
		if got := ClassOf(name); got != want {
			t.Errorf("ClassOf(%s) = %v, want %v", name, got, want)
		}
	}
}

func TestRuleNamesTool(t *testing.T) {
	cases := []struct {
		rule, tool string
		want       bool
	}{
		{"mcp__gh__list", "mcp__gh__list", true},
		{"mcp__gh__list", "mcp__gh__list_all", false},
		{"mcp__gh", "mcp__gh__list", true},
		{"mcp__gh", "mcp__ghx__list", false},
		{"mcp__gh", "mcp__gh", true},
		{"MCP(mcp__gh__*)", "mcp__gh__list", true},
		{"MCP(mcp__gh__*)", "mcp__ghx__list", false},
		{"MCP(mcp__*__list)", "mcp__a__list", true},
		{"Bash", "Bash", true},
		{"Bash(git *)", "Bash", true},
		{"Bash", "mcp__Bash__x", false},
		{"Read", "mcp__gh__list", false},
	}
	for _, tc := range cases {
		r, err := ParseRule(tc.rule)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.NamesTool(tc.tool); got != tc.want {
			t.Errorf("%s.NamesTool(%s) = %v, want %v", tc.rule, tc.tool, got, tc.want)
		}
	}
}
