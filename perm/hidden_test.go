package perm

import (
	"os"
	"path/filepath"
	"testing"
)

// TestHidden: a tool the agent does not have (Policy.Hidden) is denied
// for its own calls only. A bare Read or Write deny rule also covers what
// a Bash command reads or writes; hiding Read or Write does not, so an
// agent whose Claude Code tools: list is only Bash can still run cat.
func TestHidden(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := Policy{Mode: ModeAcceptEdits, NoPrompt: true, Hidden: []string{"Read", "Edit", "Write", "Glob"}, Workspace: Workspace{Cwd: dir, Root: dir, Home: t.TempDir()}}
	for _, tc := range []struct {
		req  Request
		want Decision
		step int
	}{
		{Request{Tool: "Read", Input: map[string]any{"file_path": "a.txt"}}, Deny, 1},
		{Request{Tool: "Write", Input: map[string]any{"file_path": "b.txt", "content": "y"}}, Deny, 1},
		{Request{Tool: "Edit", Input: map[string]any{"file_path": "a.txt", "old_string": "x", "new_string": "y"}}, Deny, 1},
		{Request{Tool: "Glob", Input: map[string]any{"pattern": "*"}}, Deny, 1},
		{Request{Tool: "Grep", Input: map[string]any{"pattern": "x"}}, Allow, 7},
		{Request{Tool: "Bash", Input: map[string]any{"command": "cat a.txt"}}, Allow, 7},
		{Request{Tool: "Bash", Input: map[string]any{"command": "ls " + dir}}, Allow, 7},
		{Request{Tool: "Bash", Input: map[string]any{"command": "echo y > b.txt"}}, Allow, 7},
	} {
		r := Evaluate(tc.req, &p)
		if r.Decision != tc.want || r.Step != tc.step {
			t.Errorf("%s %v: %v at step %d (%s), want %v at step %d", tc.req.Tool, tc.req.Input, r.Decision, r.Step, r.Reason, tc.want, tc.step)
		}
		if tc.want == Deny && (r.Reason != "tool "+tc.req.Tool+" is not one of the agent's tools" || r.Source != SourceAgent) {
			t.Errorf("%s: reason %q source %q", tc.req.Tool, r.Reason, r.Source)
		}
	}
}
