package subagent

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gen-run/gen/agent"
	"github.com/gen-run/gen/internal/testmodel"
	"github.com/gen-run/gen/loop/offline"
	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/settings"
)

// fixture is the seed's test-perm agent as the repository ships it.
var fixture = func() string {
	b, err := os.ReadFile("../.gen/agents/test-perm.md")
	if err != nil {
		panic(err)
	}
	return string(b)
}()

func setup(t *testing.T) (*settings.Settings, *agent.Definition, string) {
	t.Helper()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".git"), 0o755)
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello\n"), 0o644)
	set, err := settings.Load(settings.Options{Cwd: dir, Home: dir, ManagedPath: filepath.Join(dir, "none.json")})
	if err != nil {
		t.Fatal(err)
	}
	def, err := agent.Parse(".gen/agents/test-perm.md", []byte(fixture))
	if err != nil {
		t.Fatal(err)
	}
	return set, def, dir
}

// Over the OpenAI wire (streaming): the tools list the model receives is
// the filtered one; a denied call has no side effect; the model receives
// the denial as the tool message.
func TestRunOverTheWire(t *testing.T) {
	for _, stream := range []bool{false, true} {
		set, def, dir := setup(t)
		srv := testmodel.New(t, offline.New())
		rep := Run(context.Background(), Config{Def: def, Settings: set, Model: srv.Model(stream)},
			"Write b.txt: should not exist\nRun bash: git stash list\nRead: a.txt")
		if rep.Err != nil {
			t.Fatal(rep.Err)
		}
		reqs := srv.Requests()
		var names []string
		for _, tl := range reqs[0].Tools {
			names = append(names, tl.Function.Name)
		}
		if !slices.Equal(names, []string{"Read", "Bash"}) {
			t.Errorf("stream=%v: tools on the wire = %v, want [Read Bash]", stream, names)
		}
		if _, err := os.Stat(filepath.Join(dir, "b.txt")); err == nil {
			t.Errorf("stream=%v: the Write to an invisible tool ran", stream)
		}
		last := reqs[len(reqs)-1].Messages
		var toolMsgs []string
		for _, m := range last {
			if m.Role == "tool" {
				toolMsgs = append(toolMsgs, m.Content)
			}
		}
		if len(toolMsgs) != 3 || !strings.HasPrefix(toolMsgs[0], `ERROR: tool "Write" is not available`) ||
			toolMsgs[1] != "DENIED: tool Bash is blocked by deny_tools" || !strings.Contains(toolMsgs[2], "hello") {
			t.Errorf("stream=%v: tool messages = %q", stream, toolMsgs)
		}
		if len(rep.Outcome.Denials) != 1 || rep.Outcome.Denials[0].ToolName != "Bash" {
			t.Errorf("stream=%v: denials = %+v", stream, rep.Outcome.Denials)
		}
	}
}

func TestPolicy(t *testing.T) {
	set, def, _ := setup(t)
	set.Deny = append(set.Deny, perm.Entry{Rule: perm.Rule{Tool: "Read", Pattern: "./a.txt", HasPattern: true}, Source: perm.SourceProject})
	set.Allow = append(set.Allow, perm.Entry{Rule: perm.Rule{Tool: "Bash"}, Source: perm.SourceUser})
	set.Ask = append(set.Ask, perm.Entry{Rule: perm.Rule{Tool: "Bash", Pattern: "git log*", HasPattern: true}, Source: perm.SourceUser})
	p, _ := Policy(set, def, &Parent{Deny: []perm.Entry{{Rule: perm.Rule{Tool: "Glob"}, Source: perm.SourceSession}}})
	check := func(req perm.Request, want perm.Decision, reason string) {
		t.Helper()
		if r := perm.Evaluate(req, &p); r.Decision != want || !strings.Contains(r.Reason, reason) {
			t.Errorf("%v: %v %q, want %v %q", req.Input, r.Decision, r.Reason, want, reason)
		}
	}
	// No settings allow rule reaches the subagent: its allow_tools do.
	check(perm.Request{Tool: "Bash", Input: map[string]any{"command": "npm test"}}, perm.Deny, "allow_tools")
	check(perm.Request{Tool: "Bash", Input: map[string]any{"command": "git diff --stat"}}, perm.Allow, "")
	// git diff prints tracked contents, and a Read deny rule covers a file
	// in the repository (issue 8).
	check(perm.Request{Tool: "Bash", Input: map[string]any{"command": "git diff"}}, perm.Deny, "prints tracked file contents")
	// Settings deny, parent deny and deny_tools all apply.
	check(perm.Request{Tool: "Read", Input: map[string]any{"file_path": "a.txt"}}, perm.Deny, "deny rule Read(./a.txt)")
	check(perm.Request{Tool: "Glob", Input: map[string]any{"pattern": "*"}}, perm.Deny, "deny rule Glob")
	// Settings ask rules deny, as nobody can be asked.
	check(perm.Request{Tool: "Bash", Input: map[string]any{"command": "git log"}}, perm.Deny, "ask rule")
	if !p.NoPrompt || p.Mode != perm.ModeExplore {
		t.Errorf("policy = %+v", p)
	}
	// bypassPermissions falls back to default where managed settings disable it.
	set.DisableBypass = true
	d := *def
	d.Mode = perm.ModeBypass
	if p, warns := Policy(set, &d, nil); p.Mode != perm.ModeDefault || len(warns) != 1 {
		t.Errorf("mode %s, warnings %q", p.Mode, warns)
	}
}
