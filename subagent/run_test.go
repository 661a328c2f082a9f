package subagent

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gen-run/gen/agent"
	"github.com/gen-run/gen/internal/testmodel"
	"github.com/gen-run/gen/loop"
	"github.com/gen-run/gen/loop/offline"
	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/policy"
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
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
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

// A subagent's Grep and Glob hide files a Read deny covers: the walk filter
// is wired where the subagent's tools are assembled.
func TestWalkFilter(t *testing.T) {
	dir := t.TempDir()
	for p, c := range map[string]string{
		".git/HEAD":          "ref: refs/heads/main\n",
		".gen/settings.json": `{"permissions": {"deny": ["Read(./.env)"]}}`,
		".env":               "SECRET=topsecret\n",
		"notes.txt":          "SECRET is kept elsewhere\n",
	} {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	set, err := settings.Load(settings.Options{Cwd: dir, Home: dir, ManagedPath: filepath.Join(dir, "none.json")})
	if err != nil {
		t.Fatal(err)
	}
	def := &agent.Definition{Name: "walker", Mode: perm.ModeExplore}
	var outputs []string
	rep := Run(context.Background(), Config{Def: def, Settings: set, Model: offline.New(), OnEvent: func(e loop.Event) {
		if e.Kind == loop.EventToolResult {
			outputs = append(outputs, e.Tool+": "+e.Output)
		}
	}}, "Grep: SECRET\nGlob: **/*")
	if rep.Err != nil {
		t.Fatal(rep.Err)
	}
	if len(outputs) != 2 || !strings.Contains(outputs[0], "notes.txt") || !strings.Contains(outputs[1], "notes.txt") {
		t.Fatalf("tool outputs = %q; want Grep and Glob to find notes.txt", outputs)
	}
	for _, o := range outputs {
		if strings.Contains(o, "topsecret") || strings.Contains(o, ".env") {
			t.Errorf("a walk showed the Read-denied .env: %q", o)
		}
	}
}

// afterFirst runs f before the model's second answer.
type afterFirst struct {
	loop.Model
	n int
	f func()
}

func (m *afterFirst) Complete(ctx context.Context, req loop.Request) (loop.Response, error) {
	if m.n++; m.n == 2 {
		m.f()
	}
	return m.Model.Complete(ctx, req)
}

// A run given Live settings (gen agent run, delegated subagents) sees a
// deny rule added while it runs at its next call; a settings file that
// becomes malformed denies every call with the file named.
func TestRunFollowsSettings(t *testing.T) {
	cases := []struct {
		name, content, want string
	}{
		{"a new deny rule", `{"permissions": {"deny": ["Read(./a.txt)"]}}`, "blocked by deny rule Read(./a.txt)"},
		{"a malformed file", `{"permissions": {"deny": [`, "settings.local.json"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, def, dir := setup(t)
			live, err := settings.Watch(settings.Options{Cwd: dir, Home: dir, ManagedPath: filepath.Join(dir, "none.json")})
			if err != nil {
				t.Fatal(err)
			}
			m := &afterFirst{Model: offline.New(), f: func() {
				os.MkdirAll(filepath.Join(dir, ".gen"), 0o755)
				if err := os.WriteFile(filepath.Join(dir, ".gen", "settings.local.json"), []byte(tc.content), 0o644); err != nil {
					t.Error(err)
				}
			}}
			rep := Run(context.Background(), Config{Def: def, Live: live, Model: m}, "Read: a.txt\nRead: a.txt")
			if rep.Err != nil {
				t.Fatal(rep.Err)
			}
			final := rep.Outcome.Final
			if !strings.HasPrefix(final, "RESULT: Read(a.txt) -> ALLOWED\nRESULT: Read(a.txt) -> DENIED") || !strings.Contains(final, tc.want) {
				t.Fatalf("final = %q, want the second Read denied with %q", final, tc.want)
			}
		})
	}
}

// A subagent a main loop delegates to (ParentNow) sees a deny or ask rule
// the main loop gains while it runs (a PermissionRequest hook's or an
// approver's session rule) at its next call: it never gets more than its
// parent. It kept the rules its parent had when it started.
func TestRunFollowsParent(t *testing.T) {
	r, err := perm.ParseRule("Read(./a.txt)")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		gain func(*policy.Parent)
		want string
	}{
		{"a deny rule", func(p *policy.Parent) { p.Deny = []perm.Entry{{Rule: r, Source: perm.SourceSession}} }, "blocked by deny rule Read(./a.txt)"},
		{"an ask rule", func(p *policy.Parent) { p.Ask = []perm.Entry{{Rule: r, Source: perm.SourceSession}} }, "ask rule Read(./a.txt)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			set, def, _ := setup(t)
			var gained atomic.Bool
			now := func() policy.Parent {
				p := policy.Parent{Mode: perm.ModeDefault}
				if gained.Load() {
					tc.gain(&p)
				}
				return p
			}
			start := now()
			m := &afterFirst{Model: offline.New(), f: func() { gained.Store(true) }}
			rep := Run(context.Background(), Config{Def: def, Settings: set, Parent: &start, ParentNow: now, Model: m}, "Read: a.txt\nRead: a.txt")
			if rep.Err != nil {
				t.Fatal(rep.Err)
			}
			final := rep.Outcome.Final
			if !strings.HasPrefix(final, "RESULT: Read(a.txt) -> ALLOWED\nRESULT: Read(a.txt) -> DENIED") || !strings.Contains(final, tc.want) {
				t.Fatalf("final = %q, want the second Read denied with %q", final, tc.want)
			}
		})
	}
}

// An agent's deny_tools keep a file from its project memory as from its
// Read tool: AGENTS.md importing @secret.md put the file into the prompt
// of an agent whose deny_tools denied Read(./secret.md), and so did a
// deny rule of the main loop's agent (its parent's).
func TestMemoryUnderAgentDeny(t *testing.T) {
	for _, viaParent := range []bool{false, true} {
		set, _, dir := setup(t)
		for name, body := range map[string]string{"AGENTS.md": "Notes.\n@secret.md\n", "secret.md": "TOPSECRET\n"} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		front, parent := "deny_tools: [\"Read(./secret.md)\"]\n", (*policy.Parent)(nil)
		if viaParent {
			r, err := perm.ParseRule("Read(./secret.md)")
			if err != nil {
				t.Fatal(err)
			}
			front, parent = "", &policy.Parent{Mode: perm.ModeDefault, Deny: []perm.Entry{{Rule: r, Source: perm.SourceAgent}}}
		}
		def, err := agent.Parse(".gen/agents/m.md", []byte("---\nname: m\ndescription: d\nproject_memory: true\n"+front+"---\nx\n"))
		if err != nil {
			t.Fatal(err)
		}
		srv := testmodel.New(t, offline.New())
		rep := Run(context.Background(), Config{Def: def, Settings: set, Parent: parent, Model: srv.Model(false)}, "hi")
		if rep.Err != nil {
			t.Fatal(rep.Err)
		}
		sys := srv.Requests()[0].Messages[0].Content
		if !strings.Contains(sys, "Notes.") || strings.Contains(sys, "TOPSECRET") {
			t.Errorf("via parent %v: system prompt %q", viaParent, sys)
		}
	}
}
