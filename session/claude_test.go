package session

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gen-run/gen/internal/testmodel"
	"github.com/gen-run/gen/loop/offline"
	"github.com/gen-run/gen/settings"
)

// The main loop's system prompt carries the project memory and the
// environment; the Agent tool lists the agent types; a subagent sees the
// memory only when its definition sets project_memory.
func TestMemoryAndAgentTypes(t *testing.T) {
	root, home := project(t, map[string]string{
		"AGENTS.md":          "Always run go vet. See @docs/rules.md and @.env",
		"docs/rules.md":      "No globals.",
		".env":               "API_KEY=hunter2",
		".gen/settings.json": `{"permissions": {"deny": ["Read(./.env)"]}}`,
		"CLAUDE.md":          "not this one",
		".claude/agents/remembers.md": "---\nname: remembers\ndescription: Knows the rules: reads AGENTS.md.\n" +
			"project_memory: true\ncolor: cyan\n---\nYou remember.\n",
		".claude/agents/forgets.md": "---\nname: forgets\ndescription: Works from its prompt alone.\n---\nYou forget.\n",
	})
	srv := testmodel.New(t, offline.New())
	var warns []string
	s, err := New(Config{
		Settings:    settings.Options{Cwd: root, Home: home, ManagedPath: filepath.Join(home, "none.json")},
		Model:       srv.Model(false),
		AllowBypass: true,
		OnWarning:   func(w string) { warns = append(warns, w) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetMode("bypassPermissions"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Submit(context.Background(), "Delegate remembers: Read: AGENTS.md\nDelegate forgets: Read: AGENTS.md", nil, nil); err != nil {
		t.Fatal(err)
	}
	systems := map[string]string{} // first line of the system prompt's body -> prompt
	var agentDesc string
	for _, req := range srv.Requests() {
		sys := req.Messages[0].Content
		switch {
		case strings.HasPrefix(sys, DefaultSystem):
			systems["main"] = sys
			for _, tl := range req.Tools {
				if tl.Function.Name == "Agent" {
					agentDesc = tl.Function.Description
				}
			}
		case strings.HasPrefix(sys, "You remember."):
			systems["remembers"] = sys
		case strings.HasPrefix(sys, "You forget."):
			systems["forgets"] = sys
		}
	}
	for _, who := range []string{"main", "remembers"} {
		sys := systems[who]
		if !strings.Contains(sys, "# Project memory ("+filepath.Join(root, "AGENTS.md")+")\nAlways run go vet.") ||
			!strings.Contains(sys, "# Project memory: imported by "+filepath.Join(root, "AGENTS.md")+":1 ("+filepath.Join(root, "docs", "rules.md")+")\nNo globals.") ||
			strings.Contains(sys, "hunter2") ||
			!strings.Contains(sys, "Working directory: "+root) || !strings.Contains(sys, "Git repository: yes") ||
			strings.Contains(sys, "not this one") {
			t.Errorf("%s system prompt:\n%s", who, sys)
		}
	}
	// The import a deny rule covers is left out with a warning, once
	// for the main loop and once for the subagent that reads the memory.
	wantWarn := "memory: " + filepath.Join(root, "AGENTS.md") + ":1: @.env is not imported: a Read of it is deny: "
	if n := len(slices.DeleteFunc(slices.Clone(warns), func(w string) bool { return !strings.HasPrefix(w, wantWarn) })); n != 2 {
		t.Errorf("warnings %q, want two starting %q", warns, wantWarn)
	}
	if sys := systems["forgets"]; sys != "You forget." {
		t.Errorf("forgets system prompt = %q, want its own prompt only", sys)
	}
	for _, line := range []string{
		"\n- remembers: Knows the rules: reads AGENTS.md.",
		"\n- forgets: Works from its prompt alone.",
		"\n- Explore: ",
		"\n- general-purpose: ",
	} {
		if !strings.Contains(agentDesc, line) {
			t.Errorf("Agent description lacks %q:\n%s", line, agentDesc)
		}
	}
}
