package schema

import (
	"strings"
	"testing"
)

func TestAgentDescription(t *testing.T) {
	static, _ := Get("Agent")
	if got := AgentDescription(nil); got != static.Description {
		t.Errorf("no types: %q, want the static description", got)
	}
	long := strings.Repeat("word ", 200)
	got := AgentDescription([]AgentType{
		{"code-reviewer", "Use this agent when:\n  a diff needs review."},
		{"Explore", "Read-only investigator."},
		{"verbose", long},
	})
	want := static.Description + "\n\nAvailable agent types (subagent_type):" +
		"\n- code-reviewer: Use this agent when: a diff needs review." +
		"\n- Explore: Read-only investigator." +
		"\n- verbose: " + strings.Repeat("word ", 79) + "word…"
	if got != want {
		t.Errorf("description:\n got %q\nwant %q", got, want)
	}
}
