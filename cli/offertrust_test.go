package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gen-run/gen/agent"
	"github.com/gen-run/gen/settings"
	"github.com/gen-run/gen/trust"
)

// The interactive trust prompt on first use (issue 8 section 5): asked
// only for an untrusted project that has code of its own to run, recorded
// only on yes, never asked again once trusted.
func TestOfferTrust(t *testing.T) {
	newProject := func(t *testing.T, files map[string]string) (root, home string) {
		base := t.TempDir()
		root, home = filepath.Join(base, "proj"), filepath.Join(base, "home")
		files[".git/HEAD"] = "ref: refs/heads/main\n"
		for p, c := range files {
			full := filepath.Join(root, p)
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.MkdirAll(home, 0o755); err != nil {
			t.Fatal(err)
		}
		return root, home
	}
	load := func(t *testing.T, root, home string) *settings.Settings {
		set, err := settings.Load(settings.Options{Cwd: root, Home: home, ManagedPath: filepath.Join(home, "none.json")})
		if err != nil {
			t.Fatal(err)
		}
		return set
	}
	hooks := `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]}}`
	for _, tc := range []struct {
		name   string
		files  map[string]string
		answer string
		asked  bool
		trust  bool
	}{
		{"project hooks, yes", map[string]string{".gen/settings.json": hooks}, "y\n", true, true},
		{"project hooks, no", map[string]string{".gen/settings.json": hooks}, "n\n", true, false},
		{"project hooks, end of input", map[string]string{".gen/settings.json": hooks}, "", true, false},
		{".mcp.json, yes", map[string]string{".mcp.json": `{"mcpServers": {}}`}, "yes\n", true, true},
		{"sandbox opt-out", map[string]string{".gen/settings.json": `{"sandbox": {"enabled": false}}`}, "n\n", true, false},
		{"a widening default mode", map[string]string{".gen/settings.local.json": `{"permissions": {"defaultMode": "bypassPermissions"}}`}, "y\n", true, true},
		{"additional directories", map[string]string{".claude/settings.json": `{"permissions": {"additionalDirectories": ["~"]}}`}, "n\n", true, false},
		{"a narrowing default mode: nothing to trust", map[string]string{".gen/settings.json": `{"permissions": {"defaultMode": "dontAsk"}}`}, "y\n", false, false},
		{"allow rules", map[string]string{".gen/settings.json": `{"permissions": {"allow": ["Bash(*)"]}}`}, "y\n", true, true},
		{"a project agent with allow_tools", map[string]string{".claude/agents/pwn.md": "---\nname: pwn\ndescription: d\nallow_tools: Bash\n---\nx\n"}, "y\n", true, true},
		{"a project agent with a widening mode", map[string]string{".gen/agents/pwn.md": "---\nname: pwn\ndescription: d\nmode: bypassPermissions\n---\nx\n"}, "n\n", true, false},
		{"a project agent with hooks", map[string]string{".claude/agents/h.md": "---\nname: h\ndescription: d\nhooks:\n  PreToolUse:\n    - hooks: [{type: command, command: ./x.sh}]\n---\nx\n"}, "y\n", true, true},
		{"a project agent that only narrows: nothing to trust", map[string]string{".gen/agents/ro.md": "---\nname: ro\ndescription: d\nmode: explore\ndeny_tools: Bash\n---\nx\n"}, "y\n", false, false},
		{"deny and ask rules only: nothing to trust", map[string]string{".gen/settings.json": `{"permissions": {"deny": ["Read"], "ask": ["Bash"]}}`}, "y\n", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, home := newProject(t, tc.files)
			var errw bytes.Buffer
			got, err := offerTrust(context.Background(), load(t, root, home), &agentsFlag{}, Streams{In: strings.NewReader(tc.answer), Err: &errw, InTerminal: true})
			if err != nil {
				t.Fatal(err)
			}
			if asked := strings.Contains(errw.String(), "Trust this project?"); asked != tc.asked {
				t.Fatalf("asked = %v, want %v; stderr %q", asked, tc.asked, errw.String())
			}
			trusted, err := trust.IsTrusted(home, root)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.trust || trusted != tc.trust {
				t.Fatalf("offerTrust = %v, recorded %v; want %v", got, trusted, tc.trust)
			}
			if tc.trust {
				// Trusted now: the next start does not ask again.
				errw.Reset()
				if again, _ := offerTrust(context.Background(), load(t, root, home), &agentsFlag{}, Streams{In: strings.NewReader("y\n"), Err: &errw}); again || errw.Len() > 0 {
					t.Errorf("asked again after trusting: %q", errw.String())
				}
			}
		})
	}
}

// A project agent that --agents replaces is not used, so it asks for no
// trust; one the flag leaves alone still does.
func TestOfferTrustFlagAgents(t *testing.T) {
	base := t.TempDir()
	root, home := filepath.Join(base, "proj"), filepath.Join(base, "home")
	pwn := filepath.Join(root, ".gen", "agents", "pwn.md")
	for _, d := range []string{root + "/.git", home, filepath.Dir(pwn)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(pwn, []byte("---\nname: pwn\ndescription: d\nallow_tools: Bash\n---\nx\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	set, err := settings.Load(settings.Options{Cwd: root, Home: home, ManagedPath: filepath.Join(home, "none.json")})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		flag  string
		asked bool
	}{
		{`{"pwn": {"description": "mine", "prompt": "p"}}`, false},
		{`{"other": {"description": "mine", "prompt": "p"}}`, true},
	} {
		defs, err := agent.ParseJSON("--agents", []byte(tc.flag))
		if err != nil {
			t.Fatal(err)
		}
		var errw bytes.Buffer
		if _, err := offerTrust(context.Background(), set, &agentsFlag{defs: defs}, Streams{In: strings.NewReader("n\n"), Err: &errw, InTerminal: true}); err != nil {
			t.Fatal(err)
		}
		if asked := strings.Contains(errw.String(), "Trust this project?"); asked != tc.asked {
			t.Errorf("--agents %s: asked = %v, want %v; stderr %q", tc.flag, asked, tc.asked, errw.String())
		}
	}
}

// A project whose configuration changed since it was trusted is asked
// about again, with the changed files listed, even when nothing in it
// asks for code to run now.
func TestOfferTrustAfterChange(t *testing.T) {
	base := t.TempDir()
	root, home := filepath.Join(base, "proj"), filepath.Join(base, "home")
	for _, d := range []string{root + "/.git", home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := trust.Trust(home, root); err != nil {
		t.Fatal(err)
	}
	load := func() *settings.Settings {
		set, err := settings.Load(settings.Options{Cwd: root, Home: home, ManagedPath: filepath.Join(home, "none.json")})
		if err != nil {
			t.Fatal(err)
		}
		return set
	}
	agent := filepath.Join(root, ".claude", "agents", "ro.md")
	if err := os.MkdirAll(filepath.Dir(agent), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(agent, []byte("---\nname: ro\ndescription: d\ndeny_tools: Bash\n---\nx\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var errw bytes.Buffer
	got, err := offerTrust(context.Background(), load(), &agentsFlag{}, Streams{In: strings.NewReader("y\n"), Err: &errw, InTerminal: true})
	if err != nil {
		t.Fatal(err)
	}
	if !got || !strings.Contains(errw.String(), "changed: .claude/agents/ro.md") || !strings.Contains(errw.String(), "Trust this project?") {
		t.Fatalf("offerTrust = %v, stderr %q; want asked, naming the changed file", got, errw.String())
	}
	if set := load(); !set.Trusted {
		t.Fatalf("not trusted after yes: %q", set.Warnings)
	}
}
