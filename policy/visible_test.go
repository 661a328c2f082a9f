package policy

import (
	"slices"
	"testing"

	"github.com/gen-run/gen/agent"
	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/schema"
)

func rules(t *testing.T, ss ...string) []perm.Rule {
	t.Helper()
	var rs []perm.Rule
	for _, s := range ss {
		r, err := perm.ParseRule(s)
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, r)
	}
	return rs
}

func TestVisible(t *testing.T) {
	all := schema.Names()
	without := func(drop ...string) []string {
		var out []string
		for _, n := range schema.Names() {
			if !slices.Contains(drop, n) {
				out = append(out, n)
			}
		}
		return out
	}
	safe := []string{"Read", "Glob", "Grep", "WebFetch", "WebSearch", "TaskCreate", "TaskGet", "TaskList", "TaskUpdate", "AskUserQuestion"}
	// Bash stays visible: read-only commands are allowed in every mode.
	safeSub := []string{"Read", "Glob", "Grep", "Bash", "WebFetch", "WebSearch", "TaskCreate", "TaskGet", "TaskList", "TaskUpdate"}
	tests := []struct {
		name     string
		mode     perm.Mode
		allow    []string
		deny     []string
		subagent bool
		want     []string
	}{
		{"main loop default sees everything", perm.ModeDefault, nil, nil, false, all},
		{"main loop bypass sees everything", perm.ModeBypass, nil, nil, false, all},
		{"main loop acceptEdits sees everything", perm.ModeAcceptEdits, nil, nil, false, all},
		{"explore agent with git diff", perm.ModeExplore, []string{"Read", "Bash(git diff*)"}, nil, true, []string{"Read", "Bash"}},
		{"explore without allow_tools is read-only", perm.ModeExplore, nil, nil, true, []string{"Read", "Glob", "Grep", "WebFetch", "WebSearch", "TaskCreate", "TaskGet", "TaskList", "TaskUpdate"}},
		{"explore in main loop keeps the safe tools", perm.ModeExplore, nil, nil, false, safe},
		{"default subagent sees safe tools and Bash", perm.ModeDefault, nil, nil, true, safeSub},
		{"dontAsk subagent sees safe tools and Bash", perm.ModeDontAsk, nil, nil, true, safeSub},
		{"subagent with empty mode is default", "", nil, nil, true, safeSub},
		{"acceptEdits subagent loses exec tools but Bash", perm.ModeAcceptEdits, nil, nil, true,
			[]string{"Read", "Glob", "Grep", "Write", "Edit", "Bash", "WebFetch", "WebSearch", "NotebookEdit", "TaskCreate", "TaskGet", "TaskList", "TaskUpdate"}},
		{"acceptEdits subagent keeps allowed Bash", perm.ModeAcceptEdits, []string{"Read", "Edit", "Bash(go test:*)"}, nil, true,
			[]string{"Read", "Write", "Edit", "Bash", "NotebookEdit"}},
		{"default subagent keeps allowed Edit family", perm.ModeDefault, []string{"Edit(src/**)"}, nil, true,
			[]string{"Write", "Edit", "NotebookEdit"}},
		{"bypass subagent sees all but Agent and AskUserQuestion", perm.ModeBypass, nil, nil, true, without("Agent", "AskUserQuestion")},
		{"subagent never sees Agent even if allowed", perm.ModeBypass, []string{"Agent", "AskUserQuestion", "Read"}, nil, true, []string{"Read"}},
		{"allow list filters main loop", perm.ModeDefault, []string{"Grep", "Agent(Explore)"}, nil, false, []string{"Grep", "Agent"}},
		{"Write rule does not name Edit", perm.ModeDefault, []string{"Write"}, nil, false, []string{"Write"}},
		{"MCP allow names no built-in", perm.ModeDefault, []string{"MCP(mcp__fs__*)"}, nil, false, nil},
		{"deny Write removes Write", perm.ModeDefault, nil, []string{"Write"}, false, without("Write")},
		{"deny Bash pattern removes nothing", perm.ModeDefault, nil, []string{"Bash(rm:*)"}, false, all},
		{"deny beats allow", perm.ModeExplore, []string{"Read", "Bash"}, []string{"Bash"}, true, []string{"Read"}},
		{"bare Edit deny removes the Edit family", perm.ModeBypass, nil, []string{"Edit"}, false, without("Edit", "Write", "NotebookEdit")},
		{"dontAsk main loop is not filtered", perm.ModeDontAsk, nil, nil, false, all},
		{"auto subagent loses exec tools but Bash", perm.ModeAuto, nil, nil, true,
			[]string{"Read", "Glob", "Grep", "Write", "Edit", "Bash", "WebFetch", "WebSearch", "NotebookEdit", "TaskCreate", "TaskGet", "TaskList", "TaskUpdate"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := visible(filter{mode: tt.mode, allowTools: rules(t, tt.allow...), denyTools: rules(t, tt.deny...), subagent: tt.subagent})
			if !slices.Equal(got, tt.want) {
				t.Fatalf("Visible = %v\nwant      %v", got, tt.want)
			}
		})
	}
}

func TestShowsSkill(t *testing.T) {
	rule := func(s string) perm.Rule {
		r, err := perm.ParseRule(s)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	main := &perm.Policy{Mode: perm.ModeDefault}
	denied := &perm.Policy{Mode: perm.ModeDefault, Deny: []perm.Entry{{Rule: rule("Skill")}}}
	patterned := &perm.Policy{Mode: perm.ModeDefault, Deny: []perm.Entry{{Rule: rule("Skill(pdf)")}}}
	tests := []struct {
		name string
		p    *perm.Policy
		d    *agent.Definition
		want bool
	}{
		{"main loop", main, nil, true},
		{"bare deny rule hides it", denied, nil, false},
		{"patterned deny rule keeps it", patterned, nil, true},
		{"subagent without allow_tools", main, &agent.Definition{Name: "a"}, false},
		{"subagent naming Skill(git:*)", main, &agent.Definition{Name: "a", AllowTools: []perm.Rule{rule("Read"), rule("Skill(git:*)")}}, true},
		{"subagent denying Skill", main, &agent.Definition{Name: "a", AllowTools: []perm.Rule{rule("Skill")}, DenyTools: []perm.Rule{rule("Skill")}}, false},
		{"explore", &perm.Policy{Mode: perm.ModeExplore}, nil, false},
	}
	for _, tt := range tests {
		if got := ShowsSkill(tt.p, tt.d); got != tt.want {
			t.Errorf("%s: ShowsSkill = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// The main loop shows each mode switch where its call can be asked
// about: ExitPlanMode in plan mode, EnterPlanMode outside it but for
// dontAsk (which denies what it would ask), and only with ExitPlanMode,
// its way out. A bare deny rule, an agent
// without the tool and an agent's allow_tools that do not name it hide
// them as any tool; an agent's tools list does not (agent.Definition
// leaves them out of Hidden).
func TestShowsModeSwitch(t *testing.T) {
	deny := func(s string) []perm.Entry { return []perm.Entry{{Rule: rules(t, s)[0]}} }
	tests := []struct {
		name        string
		p           *perm.Policy
		enter, exit bool
	}{
		{"default", &perm.Policy{Mode: perm.ModeDefault}, true, false},
		{"acceptEdits", &perm.Policy{Mode: perm.ModeAcceptEdits}, true, false},
		{"bypassPermissions", &perm.Policy{Mode: perm.ModeBypass}, true, false},
		{"dontAsk", &perm.Policy{Mode: perm.ModeDontAsk}, false, false},
		{"plan", &perm.Policy{Mode: perm.ModePlan}, false, true},
		{"EnterPlanMode denied", &perm.Policy{Mode: perm.ModeDefault, Deny: deny("EnterPlanMode")}, false, false},
		{"ExitPlanMode denied", &perm.Policy{Mode: perm.ModePlan, Deny: deny("ExitPlanMode")}, false, false},
		{"hidden", &perm.Policy{Mode: perm.ModeDefault, Hidden: []string{"EnterPlanMode"}}, false, false},
		{"allow_tools without it", &perm.Policy{Mode: perm.ModeDefault, Constraint: rules(t, "Read")}, false, false},
		{"allow_tools naming only it", &perm.Policy{Mode: perm.ModeDefault, Constraint: rules(t, "Read", "EnterPlanMode")}, false, false},
		{"allow_tools naming both", &perm.Policy{Mode: perm.ModeDefault, Constraint: rules(t, "Read", "EnterPlanMode", "ExitPlanMode")}, true, false},
		// Plan mode entered with no ExitPlanMode would be left only by
		// Shift+Tab: a way in is offered only with the way out.
		{"ExitPlanMode denied outside plan mode", &perm.Policy{Mode: perm.ModeDefault, Deny: deny("ExitPlanMode")}, false, false},
	}
	for _, tt := range tests {
		if got := ShowsEnterPlan(tt.p); got != tt.enter {
			t.Errorf("%s: ShowsEnterPlan = %v, want %v", tt.name, got, tt.enter)
		}
		if got := ShowsExitPlan(tt.p); got != tt.exit {
			t.Errorf("%s: ShowsExitPlan = %v, want %v", tt.name, got, tt.exit)
		}
	}
}

// A bare deny rule in a subagent's policy (from a settings scope, a flag or
// the parent agent) hides the tool from the subagent, as it does in the
// main loop, for built-in, Skill and MCP tools alike; a patterned one
// leaves it shown for the gate to decide call by call.
func TestSubagentSeesPolicyDenies(t *testing.T) {
	deny := func(ss ...string) *perm.Policy {
		p := &perm.Policy{Mode: perm.ModeBypass}
		for _, r := range rules(t, ss...) {
			p.Deny = append(p.Deny, perm.Entry{Rule: r})
		}
		return p
	}
	// Spare capacity: filtering must not write the policy's rules into
	// the definition's slice, which concurrent subagents share.
	denyTools := make([]perm.Rule, 1, 4)
	denyTools[0] = rules(t, "WebSearch")[0]
	d := &agent.Definition{Name: "a", AllowTools: rules(t, "Read", "Grep", "WebFetch", "WebSearch", "Skill", "MCP(mcp__gh__*)"), DenyTools: denyTools}
	p := deny("WebFetch", "Grep(*.secret)", "Skill", "MCP(mcp__gh__delete*)")
	if got, want := Visible(p, d), []string{"Read", "Grep"}; !slices.Equal(got, want) {
		t.Errorf("Visible = %v, want %v", got, want)
	}
	if ShowsSkill(p, d) {
		t.Error("a bare Skill deny rule in the policy should hide Skill from a subagent")
	}
	shows := ShowsMCP(p, d)
	if !shows("mcp__gh__issues") || shows("mcp__gh__delete_repo") {
		t.Errorf("ShowsMCP: issues %v (want true), delete_repo %v (want false)", shows("mcp__gh__issues"), shows("mcp__gh__delete_repo"))
	}
	if full := d.DenyTools[:cap(d.DenyTools)]; full[1].Tool != "" {
		t.Errorf("the definition's deny_tools backing array was written: %v", full)
	}
}
