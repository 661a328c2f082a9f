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
	all := schema.Names
	without := func(drop ...string) []string {
		var out []string
		for _, n := range schema.Names {
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
