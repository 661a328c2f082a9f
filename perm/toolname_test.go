package perm_test

import (
	"strings"
	"testing"

	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/schema"
)

// TestRuleToolNames checks issue 8 section 4: a rule naming an unknown
// tool is an error with a suggestion, since a misspelt deny rule would
// deny nothing.
func TestRuleToolNames(t *testing.T) {
	for _, tc := range []struct{ rule, err string }{
		{"bash(rm:*)", `unknown tool "bash": did you mean Bash?`},
		{"Bsah", `unknown tool "Bsah": did you mean Bash?`},
		{"READ(./.env)", `unknown tool "READ": did you mean Read?`},
		{"WebFecth(domain:x.org)", `did you mean WebFetch?`},
		{"mcp_github", `did you mean mcp__server__tool?`},
		{"Frobnicate", `unknown tool "Frobnicate" (want a built-in tool`},
		{"Bash(rm:*)", ""}, {"mcp__github__get_issue", ""}, {"mcp__github", ""}, {"MCP(mcp__x__*)", ""},
		{"Agent(Explore)", ""}, {"Skill(pdf)", ""}, {"Edit", ""}, {"NotebookEdit(x.ipynb)", ""},
	} {
		_, err := perm.ParseRule(tc.rule)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("ParseRule(%q) = %v, want no error", tc.rule, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("ParseRule(%q) = %v, want an error containing %q", tc.rule, err, tc.err)
		}
	}
	// Every tool the model can call can be named in a rule.
	for _, name := range schema.Names() {
		if _, err := perm.ParseRule(name); err != nil {
			t.Errorf("built-in tool %s cannot be named in a rule: %v", name, err)
		}
	}
}

// TestParseListRule checks what each kind of list does with a rule naming
// one of Claude Code's tools gen does not have: an allow list leaves it
// out, with or without a pattern; a tool list leaves out its bare name
// only; a deny list refuses it. Other rules parse as ParseRule parses
// them, whatever the list.
func TestParseListRule(t *testing.T) {
	const claude = `a Claude Code tool gen does not have`
	for _, tc := range []struct {
		name string
		text string
		kind perm.ListKind
		want perm.Rule
		left string // what leftOut contains; "" for a rule kept or refused
		err  string // what the error contains; "" for none
	}{
		{"allow bare", "MultiEdit", perm.AllowList, perm.Rule{}, `malformed rule "MultiEdit": unknown tool "MultiEdit": ` + claude + `, so the rule matches no call; left out`, ""},
		{"allow pattern", "MultiEdit(./src/**)", perm.AllowList, perm.Rule{}, `malformed rule "MultiEdit(./src/**)"`, ""},
		{"allow gen's", "Edit(./src/**)", perm.AllowList, perm.Rule{Tool: "Edit", Pattern: "./src/**", HasPattern: true}, "", ""},
		{"allow misspelt", "Bassh", perm.AllowList, perm.Rule{}, "", "did you mean Bash?"},
		{"allow unknown", "Frobnicate", perm.AllowList, perm.Rule{}, "", `unknown tool "Frobnicate"`},
		{"allow malformed", "TodoWrite(", perm.AllowList, perm.Rule{}, "", "missing closing parenthesis"},
		{"tools bare", "TodoWrite", perm.ToolList, perm.Rule{}, `unknown tool "TodoWrite": ` + claude, ""},
		{"tools pattern", "TodoWrite(x)", perm.ToolList, perm.Rule{}, "", claude},
		{"tools gen's", "Read", perm.ToolList, perm.Rule{Tool: "Read"}, "", ""},
		{"tools Task", "Task", perm.ToolList, perm.Rule{Tool: "Agent"}, "", ""},
		{"tools MCP", "mcp__github", perm.ToolList, perm.Rule{Tool: "mcp__github"}, "", ""},
		{"tools misspelt", "read", perm.ToolList, perm.Rule{}, "", "did you mean Read?"},
		{"deny bare", "MultiEdit", perm.DenyList, perm.Rule{}, "", claude},
		{"deny pattern", "LS(./src)", perm.DenyList, perm.Rule{}, "", claude},
		{"deny gen's", "Bash(rm:*)", perm.DenyList, perm.Rule{Tool: "Bash", Pattern: "rm:*", HasPattern: true}, "", ""},
		{"deny Task", "Task(Explore)", perm.DenyList, perm.Rule{Tool: "Agent", Pattern: "Explore", HasPattern: true}, "", ""},
		{"deny misspelt", "bash(rm:*)", perm.DenyList, perm.Rule{}, "", "did you mean Bash?"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, left, err := perm.ParseListRule(tc.text, tc.kind)
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("ParseListRule(%q) error = %v, want none", tc.text, err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("ParseListRule(%q) error = %v, want one containing %q", tc.text, err, tc.err)
			}
			if r != tc.want {
				t.Errorf("ParseListRule(%q) rule = %+v, want %+v", tc.text, r, tc.want)
			}
			if (left == "") != (tc.left == "") || !strings.Contains(left, tc.left) {
				t.Errorf("ParseListRule(%q) leftOut = %q, want %q", tc.text, left, tc.left)
			}
			if left != "" && !strings.HasSuffix(left, "; left out") {
				t.Errorf("ParseListRule(%q) leftOut = %q, want it to end in \"; left out\"", tc.text, left)
			}
		})
	}
}
