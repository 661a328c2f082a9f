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
	for _, name := range schema.Names {
		if _, err := perm.ParseRule(name); err != nil {
			t.Errorf("built-in tool %s cannot be named in a rule: %v", name, err)
		}
	}
}
