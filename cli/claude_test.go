package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/settings"
)

// A broken agent file does not hide the others: gen agent list prints the
// rest, names the broken file and line on stderr and exits 1; running the
// broken agent is an error naming the file and line.
func TestAgentListWithBrokenFile(t *testing.T) {
	dir := project(t)
	broken := filepath.Join(dir, ".claude", "agents", "deployer.md")
	for p, c := range map[string]string{
		broken: "---\nname: deployer\ndescription: Ships it.\npermissionMode: yolo\n---\nYou deploy.\n",
		filepath.Join(dir, ".claude", "agents", "reviewer.md"): "---\nname: reviewer\ndescription: Reviews code: bugs first.\ncolor: blue\n---\nYou review.\n",
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	wantErr := broken + `:4: unknown mode "yolo"`

	code, out, errs := run("agent", "list", "--cwd", dir)
	if code != ExitFailed {
		t.Errorf("exit %d, want %d", code, ExitFailed)
	}
	for _, name := range []string{"test-perm", "reviewer", "Explore"} {
		if !strings.Contains(out, name) {
			t.Errorf("list lacks %s:\n%s", name, out)
		}
	}
	if !strings.Contains(errs, "gen: error: "+wantErr) || !strings.Contains(errs, `reviewer.md:3: description has an unquoted ": "`) {
		t.Errorf("stderr:\n%s", errs)
	}
	if strings.Contains(errs, "color") {
		t.Errorf("color is warned about:\n%s", errs)
	}

	code, _, errs = run("agent", "run", "--cwd", dir, "--type", "deployer", "--prompt", "x", "--model", "offline")
	if code != ExitUsage || !strings.Contains(errs, wantErr) {
		t.Errorf("run broken: exit %d, stderr:\n%s", code, errs)
	}
	code, _, errs = run("agent", "run", "--cwd", dir, "--type", "reviewer", "--prompt", "Read: a.txt", "--model", "offline")
	if code != ExitOK {
		t.Errorf("run reviewer: exit %d, stderr:\n%s", code, errs)
	}
}

// allowManagedMcpServersOnly: only the servers of managed settings start;
// the others are skipped with a warning naming them.
func TestManagedMCPOnly(t *testing.T) {
	srv := func(name string) []byte {
		return []byte(`{"mcpServers": {"` + name + `": {"command": "true"}}}`)
	}
	set := &settings.Settings{
		ManagedMCPOnly: true,
		Trusted:        true,
		Files: []settings.File{
			{Scope: perm.SourceManaged, Path: "/etc/gen/managed-settings.json", MCPServers: srv("corp")},
			{Scope: perm.SourceUser, Path: "/home/u/.gen/settings.json", MCPServers: srv("mine")},
		},
	}
	set.Workspace.Root = t.TempDir()
	var warns []string
	servers, skipped, err := mcpServers(set, &mcpFlags{configs: []string{`{"mcpServers": {"cli": {"command": "true"}}}`}}, func(w string) { warns = append(warns, w) })
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := servers["corp"]; !ok || len(servers) != 1 {
		t.Errorf("servers = %v, want only corp", servers)
	}
	if len(skipped) != 2 || len(warns) != 2 || !strings.Contains(warns[0], "allowManagedMcpServersOnly") {
		t.Errorf("skipped = %v, warnings = %q", skipped, warns)
	}
}

// allowedMcpServers and deniedMcpServers (Claude Code's lists) decide which
// configured servers start: a deny entry always wins; with an allow list
// only matching servers start; entries match by name, exact command line or
// URL pattern.
func TestMCPServerLists(t *testing.T) {
	cfg := `{"mcpServers": {
	  "github": {"command": "github-mcp", "args": ["stdio"]},
	  "fs": {"command": "npx", "args": ["fs-server", "/tmp"]},
	  "corp": {"type": "http", "url": "https://mcp.corp.example/v1"},
	  "evil": {"type": "http", "url": "https://evil.example/mcp"}}}`
	rule := func(kind, val string) settings.MCPServerRule {
		r := settings.MCPServerRule{Origin: "/etc/gen/managed-settings.json"}
		switch kind {
		case "name":
			r.Name = val
		case "url":
			r.URL = val
		case "cmd":
			r.Command = strings.Fields(val)
		}
		return r
	}
	for _, tc := range []struct {
		name        string
		allow, deny []settings.MCPServerRule
		want        []string
	}{
		{"no lists: everything", nil, nil, []string{"corp", "evil", "fs", "github"}},
		{"deny by name", nil, []settings.MCPServerRule{rule("name", "evil")}, []string{"corp", "fs", "github"}},
		{"deny by url pattern", nil, []settings.MCPServerRule{rule("url", "https://*.example/*")}, []string{"fs", "github"}},
		{"deny by exact command", nil, []settings.MCPServerRule{rule("cmd", "npx fs-server /tmp")}, []string{"corp", "evil", "github"}},
		{"command must match exactly", nil, []settings.MCPServerRule{rule("cmd", "npx fs-server")}, []string{"corp", "evil", "fs", "github"}},
		{"allow list", []settings.MCPServerRule{rule("name", "github"), rule("url", "https://mcp.corp.example/*")}, nil, []string{"corp", "github"}},
		{"empty allow list: nothing", []settings.MCPServerRule{}, nil, nil},
		{"deny beats allow", []settings.MCPServerRule{rule("name", "github")}, []settings.MCPServerRule{rule("name", "github")}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set := &settings.Settings{MCP: settings.MCPRules{Allow: tc.allow, Deny: tc.deny}}
			set.Workspace.Root = t.TempDir()
			var warns []string
			servers, skipped, err := mcpServers(set, &mcpFlags{configs: []string{cfg}}, func(w string) { warns = append(warns, w) })
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for name := range servers {
				got = append(got, name)
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("started %v, want %v", got, tc.want)
			}
			if len(skipped) != 4-len(tc.want) || len(warns) != len(skipped) {
				t.Errorf("skipped %d, warnings %q", len(skipped), warns)
			}
		})
	}
}

// Claude Code's managed-mcp.json takes exclusive control of MCP servers:
// where it exists only its servers start, not the user's, the project's
// or --mcp-config's, with a warning naming it; with no server in it,
// none. Unread, every other server started.
func TestClaudeManagedMCPExclusive(t *testing.T) {
	tmp := t.TempDir()
	old := settings.ClaudeManagedPath
	t.Cleanup(func() { settings.ClaudeManagedPath = old })
	settings.ClaudeManagedPath = filepath.Join(tmp, "etc", "claude-code", "managed-settings.json")
	home, root := filepath.Join(tmp, "home"), filepath.Join(tmp, "proj")
	for p, c := range map[string]string{
		settings.ClaudeManagedMCPPath():                 `{"mcpServers": {"corp": {"command": "true"}}}`,
		filepath.Join(home, ".claude", "settings.json"): `{"mcpServers": {"mine": {"command": "true"}}}`,
		filepath.Join(root, ".mcp.json"):                `{"mcpServers": {"proj": {"command": "true"}}}`,
		filepath.Join(root, ".git", "HEAD"):             "ref: refs/heads/main\n",
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	load := func() *settings.Settings {
		t.Helper()
		set, err := settings.Load(settings.Options{Cwd: root, Home: home, ManagedPath: "", Trust: true})
		if err != nil {
			t.Fatal(err)
		}
		return set
	}
	var warns []string
	servers, skipped, err := mcpServers(load(), &mcpFlags{configs: []string{`{"mcpServers": {"cli": {"command": "true"}}}`}}, func(w string) { warns = append(warns, w) })
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := servers["corp"]; !ok || len(servers) != 1 {
		t.Errorf("servers = %v, want only corp", servers)
	}
	if len(skipped) != 3 || len(warns) != 3 || !strings.Contains(warns[0], "only the servers of "+settings.ClaudeManagedMCPPath()) {
		t.Errorf("skipped = %v, warnings = %q", skipped, warns)
	}

	// An empty server map turns MCP off.
	if err := os.WriteFile(settings.ClaudeManagedMCPPath(), []byte(`{"mcpServers": {}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	servers, _, err = mcpServers(load(), &mcpFlags{}, func(string) {})
	if err != nil || len(servers) != 0 {
		t.Errorf("with no managed server: servers = %v, err %v; want none", servers, err)
	}

	// Any other key is an error naming file and line.
	if err := os.WriteFile(settings.ClaudeManagedMCPPath(), []byte("{\n\"servers\": {}}"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = settings.Load(settings.Options{Cwd: root, Home: home})
	if want := settings.ClaudeManagedMCPPath() + ":2:"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("unknown key: err %v, want one naming %s", err, want)
	}
}

// Claude Code's managed strictPluginOnlyCustomization locks surfaces to
// managed sources (gen has no plugins): locked agents, skills, hooks and
// MCP servers of the user and the project are not loaded, each named in a
// warning; an array locks only what it lists; anywhere but in managed
// settings it is ignored with a warning. Read as an unknown key, it left
// every one of them loaded.
func TestStrictPluginOnlyCustomization(t *testing.T) {
	dir := project(t) // also the home directory
	old := settings.ClaudeManagedPath
	t.Cleanup(func() { settings.ClaudeManagedPath = old })
	settings.ClaudeManagedPath = filepath.Join(t.TempDir(), "managed-settings.json")
	write := func(p, c string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, ".claude", "skills", "deploy", "SKILL.md"), "---\nname: deploy\ndescription: Deploys.\n---\nDeploy.\n")
	write(filepath.Join(dir, ".claude", "settings.json"), `{"mcpServers": {"mine": {"command": "true"}},
 "hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "true"}]}]}}`)

	write(settings.ClaudeManagedPath, `{"strictPluginOnlyCustomization": true, "mcpServers": {"corp": {"command": "true"}}}`)
	code, out, errs := run("agent", "list", "--cwd", dir)
	if code != ExitOK || strings.Contains(out, "test-perm") || !strings.Contains(out, "Explore") ||
		!strings.Contains(errs, filepath.Join(dir, ".gen", "agents")+": agents not loaded: strictPluginOnlyCustomization in "+settings.ClaudeManagedPath) {
		t.Errorf("agent list: exit %d, stdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	code, out, errs = run("skills", "list", "--cwd", dir)
	if code != ExitOK || strings.Contains(out, "deploy") || !strings.Contains(errs, "skills not loaded") {
		t.Errorf("skills list: exit %d, stdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	set, err := settings.Load(settings.Options{Cwd: dir, Home: dir})
	if err != nil {
		t.Fatal(err)
	}
	if !set.ManagedHooksOnly || !set.Hooks.Empty() {
		t.Errorf("hooks not locked: ManagedHooksOnly %v, hooks %+v", set.ManagedHooksOnly, set.Hooks)
	}
	var warns []string
	servers, _, err := mcpServers(set, &mcpFlags{}, func(w string) { warns = append(warns, w) })
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := servers["corp"]; !ok || len(servers) != 1 || len(warns) != 1 || !strings.Contains(warns[0], "locks mcp to managed settings") {
		t.Errorf("servers = %v, warnings %q; want only corp", servers, warns)
	}

	// An array locks what it lists.
	write(settings.ClaudeManagedPath, `{"strictPluginOnlyCustomization": ["skills"]}`)
	if code, out, _ := run("agent", "list", "--cwd", dir); code != ExitOK || !strings.Contains(out, "test-perm") {
		t.Errorf("agents locked by [skills]: exit %d\n%s", code, out)
	}
	if _, out, _ := run("skills", "list", "--cwd", dir); strings.Contains(out, "deploy") {
		t.Errorf("skills not locked by [skills]:\n%s", out)
	}

	// Only managed settings lock.
	if err := os.Remove(settings.ClaudeManagedPath); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(dir, ".claude", "settings.json"), `{"strictPluginOnlyCustomization": true}`)
	code, out, errs = run("skills", "list", "--cwd", dir)
	if code != ExitOK || !strings.Contains(out, "deploy") || !strings.Contains(errs, "strictPluginOnlyCustomization is read only from managed settings; ignored") {
		t.Errorf("user setting: exit %d, stdout:\n%s\nstderr:\n%s", code, out, errs)
	}
}
