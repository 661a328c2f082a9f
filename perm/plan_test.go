package perm

import (
	"strings"
	"testing"

	"github.com/gen-run/gen/sandbox"
)

// Plan mode reads and plans: read-only calls run as in default mode, and
// nothing that changes anything runs, whatever an allow rule, a session
// grant or a bypass-immune question would otherwise let through, until
// the plan is approved (ExitPlanMode, which asks whatever a grant or an
// allow rule says). A command the gate cannot parse may change anything.
// Deny rules still deny.
func TestPlanMode(t *testing.T) {
	f := newFixture(t)
	p := &Policy{Mode: ModePlan, Workspace: f.ws(), Deny: entries(SourceUser, "Read(./secrets/**)"),
		Allow: entries(SourceUser, "Bash(npm test)", "Edit", "Bash(git status)", "Read(//"+strings.TrimPrefix(f.outside, "/")+"/**)", "mcp__db", "ExitPlanMode")}
	p.Session = rules("Write", "ExitPlanMode")
	for _, tc := range []struct {
		tool string
		in   map[string]any
		want Decision
		step int
		why  string
	}{
		{"Read", map[string]any{"file_path": "src/a.go"}, Allow, 7, "safe tool"},
		{"Read", map[string]any{"file_path": f.outside + "/data"}, Allow, 6, "allowed by rule"},
		{"Read", map[string]any{"file_path": "secrets/k"}, Deny, 1, "deny rule"},
		{"Grep", map[string]any{"pattern": "x"}, Allow, 7, "safe tool"},
		{"Bash", map[string]any{"command": "ls -la && cat src/a.go"}, Allow, 7, "read-only command"},
		// A read outside the workspace asks, saying why, as in default mode.
		{"Bash", map[string]any{"command": "cat " + f.outside + "/data"}, Ask, 7, "Bash requires approval in plan mode (not read-only: reads outside the workspace: " + f.outside + "/data)"},
		{"Bash", map[string]any{"command": "git status"}, Allow, 6, "allowed by rule"},
		{"Bash", map[string]any{"command": "npm test"}, Deny, 7, "plan mode"},
		{"Bash", map[string]any{"command": "touch x"}, Deny, 7, "plan mode"},
		{"Bash", map[string]any{"command": "echo hi > out.txt"}, Deny, 7, "plan mode"},
		{"Bash", map[string]any{"command": "rm -rf src"}, Deny, 2, "plan mode"},
		// bash runs it as $( (touch x) ): the parser reads arithmetic.
		{"Bash", map[string]any{"command": "echo $((touch x) )"}, Deny, 2, "plan mode"},
		{"Edit", map[string]any{"file_path": "src/a.go", "old_string": "x", "new_string": "y"}, Deny, 7, "plan mode"},
		{"Write", map[string]any{"file_path": "src/b.go", "content": "y"}, Deny, 7, "plan mode"},
		{"Write", map[string]any{"file_path": ".git/hooks/pre-commit", "content": "y"}, Deny, 2, "plan mode"},
		{"mcp__db__query", map[string]any{}, Deny, 7, "plan mode"},
		{"Agent", map[string]any{"subagent_type": "Explore", "prompt": "p", "description": "d"}, Ask, 7, "plan mode"},
		{"ExitPlanMode", map[string]any{"plan": "1. do it"}, Ask, 5, "approval"},
	} {
		r := Evaluate(Request{Tool: tc.tool, Input: tc.in}, p)
		if r.Decision != tc.want || r.Step != tc.step || !strings.Contains(r.Reason, tc.why) {
			t.Errorf("%s %v: %s step %d (%s); want %s step %d, reason with %q", tc.tool, tc.in, r.Decision, r.Step, r.Reason, tc.want, tc.step, tc.why)
		}
	}
	// What plan mode runs only reads, and the kernel holds it to that:
	// a command a rule allows runs in the read-only sandbox too.
	if r := Evaluate(Request{Tool: "Bash", Input: map[string]any{"command": "git status"}}, p); r.Decision != Allow || r.Sandbox != sandbox.ReadOnly {
		t.Errorf("git status in plan mode: %s, sandbox %q; want allowed, read-only", r.Decision, r.Sandbox)
	}
	// Outside plan mode ExitPlanMode has nothing to leave; a subagent
	// under a plan-mode main loop plans too, whatever its own mode.
	if r := Evaluate(Request{Tool: "ExitPlanMode", Input: map[string]any{"plan": "x"}}, &Policy{Mode: ModeDefault, Workspace: f.ws()}); r.Decision != Deny {
		t.Errorf("ExitPlanMode in default mode: %s (%s)", r.Decision, r.Reason)
	}
	for _, m := range []Mode{ModeAcceptEdits, ModeExplore, ModeBypass} {
		if got := CapMode(m, ModePlan); got != ModePlan {
			t.Errorf("CapMode(%s, plan) = %s, want plan", m, got)
		}
	}
	if m := CapMode(ModePlan, ModeExplore); m != ModeExplore {
		t.Errorf("CapMode(plan, explore) = %s, want explore: plan may be left, explore may not", m)
	}
	if m := CapMode(ModePlan, ModeDefault); m != ModePlan {
		t.Errorf("CapMode(plan, default) = %s, want plan", m)
	}
}

// The mode switches (ModeTools) are the person's, each time: in every
// mode someone may be asked about them they ask, whatever
// bypassPermissions, an allow rule or a session grant says; where nobody
// can be asked they are denied, and so is a switch to where the session
// is already. A deny rule denies them as any tool.
func TestModeSwitch(t *testing.T) {
	f := newFixture(t)
	enter := Request{Tool: "EnterPlanMode", Input: map[string]any{}}
	exit := Request{Tool: "ExitPlanMode", Input: map[string]any{"plan": "1. do it"}}
	granted := func(m Mode) *Policy {
		p := &Policy{Mode: m, Workspace: f.ws(), Allow: entries(SourceUser, "EnterPlanMode", "ExitPlanMode")}
		p.Session = rules("EnterPlanMode", "ExitPlanMode")
		return p
	}
	for _, tc := range []struct {
		name string
		req  Request
		p    *Policy
		want Decision
		step int
		why  string
	}{
		{"enter default", enter, granted(ModeDefault), Ask, 5, "switching to plan mode needs the person's approval"},
		{"enter acceptEdits", enter, granted(ModeAcceptEdits), Ask, 5, "person's approval"},
		{"enter auto", enter, granted(ModeAuto), Ask, 5, "person's approval"},
		{"enter bypassPermissions", enter, granted(ModeBypass), Ask, 5, "person's approval"},
		{"enter dontAsk", enter, granted(ModeDontAsk), Deny, 8, "person's approval"},
		{"enter with nobody to ask", enter, &Policy{Mode: ModeDefault, Workspace: f.ws(), NoPrompt: true}, Deny, 8, "person's approval"},
		{"enter in plan mode", enter, granted(ModePlan), Deny, 7, "in plan mode already"},
		{"enter denied", enter, &Policy{Mode: ModeDefault, Workspace: f.ws(), Deny: entries(SourceUser, "EnterPlanMode")}, Deny, 1, "EnterPlanMode"},
		{"exit in plan mode", exit, granted(ModePlan), Ask, 5, "the plan needs the person's approval"},
		{"exit bypassPermissions", exit, granted(ModeBypass), Deny, 7, "not in plan mode"},
		{"exit default", exit, granted(ModeDefault), Deny, 7, "not in plan mode"},
	} {
		r := Evaluate(tc.req, tc.p)
		if r.Decision != tc.want || r.Step != tc.step || !strings.Contains(r.Reason, tc.why) {
			t.Errorf("%s: %s step %d (%s); want %s step %d, reason with %q", tc.name, r.Decision, r.Step, r.Reason, tc.want, tc.step, tc.why)
		}
	}
	for _, list := range []ListKind{DenyList, AllowList, ToolList} {
		if r, left, err := ParseListRule("EnterPlanMode", list); err != nil || left != "" || r.Tool != "EnterPlanMode" {
			t.Errorf("EnterPlanMode in list %d: %v %q %v, want gen's tool", list, r, left, err)
		}
	}
}
