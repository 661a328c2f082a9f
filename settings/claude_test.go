package settings

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gen-run/gen/perm"
)

// TestClaudeManagedExamples parses managed policies written in the shapes
// Claude Code's own settings examples use (testdata/claude): each must
// load, with Claude Code's value forms read as restrictions.
func TestClaudeManagedExamples(t *testing.T) {
	tests := []struct {
		file string
		// check inspects the parsed file.
		disableBypass, disableAuto, rulesOnly, hooksOnly bool
		allow, ask, deny                                 int
		mode                                             perm.Mode
		dirs                                             []string
		missingDirs                                      []string // warned about: not on this machine
		aliases                                          map[string]string
		warnKeys                                         []string // unknown top-level keys warned about
		mcpOnly                                          bool
		// sandboxWarn are the Claude Code sandbox keys warned about;
		// noNetwork and required are what they map to.
		sandboxWarn         []string
		noNetwork, required bool
		// noUnsandboxed is allowUnsandboxedCommands: false, which gen
		// reads (a dangerouslyDisableSandbox call is denied).
		noUnsandboxed bool
	}{
		{file: "locked-down.json", disableBypass: true, rulesOnly: true, hooksOnly: true, ask: 1, deny: 2,
			warnKeys:    []string{"strictKnownMarketplaces"},
			sandboxWarn: []string{"autoAllowBashIfSandboxed", "network"}, noNetwork: true},
		{file: "guarded-git.json", disableBypass: true, allow: 5, deny: 8},
		// denyRead and denyWrite become Read and Edit deny rules (two each:
		// the path and what is under it).
		{file: "sandbox-only.json", rulesOnly: true, deny: 4, required: true, noUnsandboxed: true},
		{file: "org-policy.json", disableBypass: true, disableAuto: true, rulesOnly: true, hooksOnly: true, deny: 3,
			mode: perm.ModeDefault, missingDirs: []string{"/opt/shared-docs"}, mcpOnly: true,
			warnKeys: []string{"env", "model", "cleanupPeriodDays", "includeCoAuthoredBy", "companyAnnouncements"}},
		{file: "project.json", allow: 4, ask: 1, deny: 2, mode: perm.ModeAcceptEdits,
			aliases:  map[string]string{"sonnet": "qwen3-coder", "haiku": "qwen3-small"},
			warnKeys: []string{"env", "statusLine", "enabledPlugins", "apiKeyHelper", "includeCoAuthoredBy", "cleanupPeriodDays"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join("testdata", "claude", tt.file)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			f, warns, err := parseFile(perm.SourceManaged, path, data, "/work", "/home/u")
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			if f.DisableBypass != tt.disableBypass || f.DisableAuto != tt.disableAuto || f.ManagedRulesOnly != tt.rulesOnly || f.ManagedHooksOnly != tt.hooksOnly {
				t.Errorf("DisableBypass, DisableAuto, ManagedRulesOnly, ManagedHooksOnly = %v %v %v %v, want %v %v %v %v",
					f.DisableBypass, f.DisableAuto, f.ManagedRulesOnly, f.ManagedHooksOnly, tt.disableBypass, tt.disableAuto, tt.rulesOnly, tt.hooksOnly)
			}
			if len(f.Allow) != tt.allow || len(f.Ask) != tt.ask || len(f.Deny) != tt.deny {
				t.Errorf("allow/ask/deny = %d/%d/%d, want %d/%d/%d", len(f.Allow), len(f.Ask), len(f.Deny), tt.allow, tt.ask, tt.deny)
			}
			if f.DefaultMode != tt.mode {
				t.Errorf("DefaultMode = %q, want %q", f.DefaultMode, tt.mode)
			}
			if !reflect.DeepEqual(f.AdditionalDirectories, tt.dirs) {
				t.Errorf("dirs = %q, want %q", f.AdditionalDirectories, tt.dirs)
			}
			if !reflect.DeepEqual(f.ModelAliases, tt.aliases) {
				t.Errorf("aliases = %v, want %v", f.ModelAliases, tt.aliases)
			}
			var keys, sbKeys, missing []string
			for _, w := range warns {
				if _, d, ok := strings.Cut(w, "permissions.additionalDirectories: "); ok {
					missing = append(missing, strings.TrimSuffix(d, " is not an existing directory; ignored"))
					continue
				}
				if _, k, ok := strings.Cut(w, ": sandbox."); ok {
					sbKeys = append(sbKeys, k[:strings.IndexByte(k, ':')])
					continue
				}
				_, k, ok := strings.Cut(w, `unknown top-level key "`)
				if !ok {
					t.Errorf("unexpected warning %q", w)
					continue
				}
				keys = append(keys, k[:strings.IndexByte(k, '"')])
			}
			if !reflect.DeepEqual(missing, tt.missingDirs) {
				t.Errorf("missing directories warned about = %q, want %q", missing, tt.missingDirs)
			}
			if !reflect.DeepEqual(keys, tt.warnKeys) {
				t.Errorf("warned keys = %q, want %q", keys, tt.warnKeys)
			}
			if !reflect.DeepEqual(sbKeys, tt.sandboxWarn) {
				t.Errorf("warned sandbox keys = %q, want %q", sbKeys, tt.sandboxWarn)
			}
			if f.ManagedMCPOnly != tt.mcpOnly {
				t.Errorf("ManagedMCPOnly = %v, want %v", f.ManagedMCPOnly, tt.mcpOnly)
			}
			if got := f.Sandbox.Network != nil && !*f.Sandbox.Network; got != tt.noNetwork {
				t.Errorf("no network = %v, want %v", got, tt.noNetwork)
			}
			if got := f.Sandbox.Required != nil && *f.Sandbox.Required; got != tt.required {
				t.Errorf("required = %v, want %v", got, tt.required)
			}
			if got := f.Sandbox.AllowUnsandboxed != nil && !*f.Sandbox.AllowUnsandboxed; got != tt.noUnsandboxed {
				t.Errorf("allowUnsandboxedCommands false = %v, want %v", got, tt.noUnsandboxed)
			}
		})
	}
}

func TestClaudeValueForms(t *testing.T) {
	tests := []struct {
		name, json string
		wantErr    string // exact, with {f} for the file
		want       func(*File) bool
		warn       string // a warning that must be given
	}{
		{name: `disableBypassPermissionsMode "disable"`, json: `{"permissions": {"disableBypassPermissionsMode": "disable"}}`,
			want: func(f *File) bool { return f.DisableBypass }},
		{name: "disableBypassPermissionsMode true (gen's form)", json: `{"permissions": {"disableBypassPermissionsMode": true}}`,
			want: func(f *File) bool { return f.DisableBypass }},
		{name: "disableBypassPermissionsMode false", json: `{"permissions": {"disableBypassPermissionsMode": false}}`,
			want: func(f *File) bool { return !f.DisableBypass }},
		{name: "another word is an error", json: `{"permissions": {"disableBypassPermissionsMode": "disabled"}}`,
			wantErr: `{f}:1: permissions.disableBypassPermissionsMode must be "disable", true or false`},
		{name: "disableAutoMode at the top level", json: `{"disableAutoMode": "disable"}`,
			want: func(f *File) bool { return f.DisableAuto }},
		{name: "disableAutoMode inside permissions", json: `{"permissions": {"disableAutoMode": "disable"}}`,
			want: func(f *File) bool { return f.DisableAuto }},
		{name: "disableAutoMode false in one place does not undo true in the other", json: `{"disableAutoMode": true, "permissions": {"disableAutoMode": false}}`,
			want: func(f *File) bool { return f.DisableAuto }},
		{name: "allowManagedPermissionRulesOnly at the top level", json: `{"allowManagedPermissionRulesOnly": true}`,
			want: func(f *File) bool { return f.ManagedRulesOnly }},
		{name: "allowManagedPermissionRulesOnly inside permissions still works", json: `{"permissions": {"allowManagedPermissionRulesOnly": true}}`,
			want: func(f *File) bool { return f.ManagedRulesOnly }},
		{name: "allowManagedPermissionRulesOnly must be a boolean", json: `{"allowManagedPermissionRulesOnly": "yes"}`,
			wantErr: `{f}:1: allowManagedPermissionRulesOnly must be true or false`},
		{name: "allowManagedHooksOnly counts only in managed settings", json: `{"allowManagedHooksOnly": true}`,
			want: func(f *File) bool { return !f.ManagedHooksOnly },
			warn: `{f}:1: allowManagedHooksOnly is read only from managed settings; ignored`},
		{name: "allowManagedHooksOnly must be a boolean", json: "{\n\"allowManagedHooksOnly\": 1}",
			wantErr: `{f}:2: allowManagedHooksOnly must be true or false`},
		{name: "defaultMode plan", json: `{"permissions": {"defaultMode": "plan"}}`,
			want: func(f *File) bool { return f.DefaultMode == perm.ModePlan }},
		{name: "modelAliases", json: `{"modelAliases": {"opus": "big-model"}}`,
			want: func(f *File) bool { return f.ModelAliases["opus"] == "big-model" }},
		{name: "modelAliases must be an object", json: `{"modelAliases": ["opus"]}`,
			wantErr: `{f}:1: modelAliases must be an object of model names by alias, like {"sonnet": "my-model"}`},
		{name: "a model alias must not be empty", json: `{"modelAliases": {"opus": " "}}`,
			wantErr: `{f}:1: modelAliases.opus must be a non-empty model name`},
		{name: "disableBypassPermissionsMode at the top level still belongs inside", json: `{"disableBypassPermissionsMode": "disable"}`,
			wantErr: `{f}:1: "disableBypassPermissionsMode" belongs inside "permissions"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			const path = "/x/.claude/settings.json"
			f, warns, err := parseFile(perm.SourceProject, path, []byte(tt.json), "/x", "/home/u")
			if tt.wantErr != "" {
				if want := strings.ReplaceAll(tt.wantErr, "{f}", path); err == nil || err.Error() != want {
					t.Fatalf("error:\n got %v\nwant %s", err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tt.want(f) {
				t.Errorf("parsed %+v", f)
			}
			if tt.warn != "" && !slices.Contains(warns, strings.ReplaceAll(tt.warn, "{f}", path)) {
				t.Errorf("warnings %q lack %q", warns, tt.warn)
			}
		})
	}
}

// TestClaudeFiles checks that .claude settings are read at the scope of
// their .gen twins, after them, and merged by the same rules.
func TestClaudeFiles(t *testing.T) {
	l := newLayout(t)
	claude := func(p string) string { return strings.Replace(p, "/.gen/", "/.claude/", 1) }
	writeFile(t, l.managed, `{"permissions": {"deny": ["Bash(curl:*)"]}}`)
	writeFile(t, l.local, `{"permissions": {"allow": ["Bash(make:*)"]}}`)
	writeFile(t, claude(l.local), `{"permissions": {"deny": ["Read(./.env)"]}}`)
	writeFile(t, l.project, `{"permissions": {"defaultMode": "acceptEdits"}}`)
	writeFile(t, claude(l.project), `{"permissions": {"defaultMode": "dontAsk", "ask": ["Bash(git push:*)"], "additionalDirectories": ["../docs"]}, "modelAliases": {"sonnet": "from-project"}}`)
	writeFile(t, l.user, `{"modelAliases": {"sonnet": "from-user", "opus": "big"}}`)
	writeFile(t, claude(l.user), `{"permissions": {"deny": ["WebFetch"], "disableBypassPermissionsMode": "disable"}}`)
	if err := os.MkdirAll(filepath.Join(l.root, "..", "docs"), 0o755); err != nil {
		t.Fatal(err)
	}

	// Trusted: the project's acceptEdits and additional directory need it.
	s, err := Load(Options{Cwd: l.cwd, Home: l.home, ManagedPath: l.managed, Trust: true})
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, f := range s.Files {
		files = append(files, string(f.Scope)+"="+f.Path)
	}
	want := []string{
		"managed=" + l.managed,
		"local=" + l.local, "local=" + claude(l.local),
		"project=" + l.project, "project=" + claude(l.project),
		"user=" + l.user, "user=" + claude(l.user),
	}
	if !reflect.DeepEqual(files, want) {
		t.Errorf("files:\n got %q\nwant %q", files, want)
	}
	if got, want := entries(s.Deny), []string{"managed:Bash(curl:*)@" + l.managed, "local:Read(./.env)@" + claude(l.local), "user:WebFetch@" + claude(l.user)}; !reflect.DeepEqual(got, want) {
		t.Errorf("deny:\n got %q\nwant %q", got, want)
	}
	if got, want := entries(s.Ask), []string{"project:Bash(git push:*)@" + claude(l.project)}; !reflect.DeepEqual(got, want) {
		t.Errorf("ask:\n got %q\nwant %q", got, want)
	}
	if s.Mode != perm.ModeAcceptEdits || s.ModeSource != perm.SourceProject {
		t.Errorf("mode %s from %s, want acceptEdits from the .gen project file", s.Mode, s.ModeSource)
	}
	clash := l.expand(claude(l.project) + `:1: defaultMode "dontAsk" is overridden by "acceptEdits" in {project}`)
	if !slices.Contains(s.Warnings, clash) {
		t.Errorf("warnings %q lack %q", s.Warnings, clash)
	}
	if !s.DisableBypass || s.ModeAllowed(perm.ModeBypass) {
		t.Error("disableBypassPermissionsMode in ~/.claude/settings.json is not honoured")
	}
	if want := []string{filepath.Join(l.root, "..", "docs")}; !reflect.DeepEqual(s.Workspace.Dirs, []string{filepath.Clean(want[0])}) {
		t.Errorf("dirs = %q, want %q", s.Workspace.Dirs, want)
	}
	if want := map[string]string{"sonnet": "from-project", "opus": "big"}; !reflect.DeepEqual(s.ModelAliases, want) {
		t.Errorf("aliases = %v, want %v", s.ModelAliases, want)
	}

	// Untrusted, the project's aliases do not replace the user's: they
	// choose the model the user's agents run on.
	s, err = Load(Options{Cwd: l.cwd, Home: l.home, ManagedPath: l.managed})
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"sonnet": "from-user", "opus": "big"}; !reflect.DeepEqual(s.ModelAliases, want) {
		t.Errorf("untrusted: aliases = %v, want %v", s.ModelAliases, want)
	}
	refused := s.Refusal("modelAliases", claude(l.project))
	if !slices.Contains(s.Warnings, refused) {
		t.Errorf("untrusted: warnings %q lack %q", s.Warnings, refused)
	}
}

func TestDisableAutoMode(t *testing.T) {
	l := newLayout(t)
	writeFile(t, l.managed, `{"disableAutoMode": "disable"}`)
	writeFile(t, l.user, `{"permissions": {"defaultMode": "auto"}}`)
	s, err := Load(Options{Cwd: l.cwd, Home: l.home, ManagedPath: l.managed})
	if err != nil {
		t.Fatal(err)
	}
	if s.Mode != perm.ModeDefault || s.ModeAllowed(perm.ModeAuto) || !s.ModeAllowed(perm.ModeAcceptEdits) {
		t.Errorf("mode %s, auto allowed %v; want default with auto unavailable", s.Mode, s.ModeAllowed(perm.ModeAuto))
	}
	_, err = Load(Options{Cwd: l.cwd, Home: l.home, ManagedPath: l.managed, Mode: "auto"})
	if want := "permission mode flag: auto is disabled by disableAutoMode in " + l.managed; err == nil || err.Error() != want {
		t.Errorf("error:\n got %v\nwant %s", err, want)
	}
}

// TestClaudeManagedFile reads Claude Code's managed file beside gen's when
// no --managed-settings path is given; a deny in either holds.
func TestClaudeManagedFile(t *testing.T) {
	if _, err := os.Stat(DefaultManagedPath); err == nil {
		t.Skip(DefaultManagedPath + " exists on this machine")
	}
	l := newLayout(t)
	old := ClaudeManagedPath
	t.Cleanup(func() { ClaudeManagedPath = old })
	ClaudeManagedPath = filepath.Join(filepath.Dir(l.managed), "claude-managed.json")
	writeFile(t, ClaudeManagedPath, `{"permissions": {"deny": ["WebSearch"], "disableBypassPermissionsMode": "disable"}}`)
	writeFile(t, l.user, `{"permissions": {"allow": ["WebSearch"]}}`)

	s, err := Load(Options{Cwd: l.cwd, Home: l.home})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Files) != 2 || s.Files[0].Path != ClaudeManagedPath || s.Files[0].Scope != perm.SourceManaged {
		t.Fatalf("files = %+v", s.Files)
	}
	p := perm.Policy{Mode: s.Mode, Deny: s.Deny, Ask: s.Ask, Allow: s.Allow, Workspace: s.Workspace}
	if r := perm.Evaluate(perm.Request{Tool: "WebSearch", Input: map[string]any{"query": "x"}}, &p); r.Decision != perm.Deny {
		t.Errorf("WebSearch: %v, want the managed deny to win over the user allow", r.Decision)
	}
	// An explicit managed path (the what-if of gen permissions check)
	// replaces both.
	s, err = Load(Options{Cwd: l.cwd, Home: l.home, ManagedPath: l.managed})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Files) != 1 || s.Files[0].Path != l.user {
		t.Errorf("with ManagedPath, files = %+v", s.Files)
	}
}

func TestClaudeManagedPath(t *testing.T) {
	for goos, want := range map[string]string{
		"linux":   "/etc/claude-code/managed-settings.json",
		"darwin":  "/Library/Application Support/ClaudeCode/managed-settings.json",
		"windows": `C:\ProgramData\ClaudeCode\managed-settings.json`,
		"freebsd": "/etc/claude-code/managed-settings.json",
	} {
		if got := claudeManagedPath(goos); got != want {
			t.Errorf("%s: %s, want %s", goos, got, want)
		}
	}
}

// TestClaudeSandboxPathsDeny checks that Claude Code's sandbox.filesystem
// denyRead and denyWrite paths deny through the gate, Bash included, and
// that a project may require the sandbox (failIfUnavailable only
// tightens).
func TestClaudeSandboxPathsDeny(t *testing.T) {
	data := []byte(`{"sandbox": {"failIfUnavailable": true, "filesystem": {"denyRead": ["/srv/keys"], "denyWrite": ["generated/"]}}}`)
	f, warns, err := parseFile(perm.SourceProject, "/work/.claude/settings.json", data, "/work", "/home/u")
	if err != nil {
		t.Fatal(err)
	}
	if f.Sandbox.Required == nil || !*f.Sandbox.Required {
		t.Errorf("a project's failIfUnavailable did not require the sandbox")
	}
	if len(warns) != 0 {
		t.Errorf("warnings = %q", warns)
	}
	pol := perm.Policy{Mode: perm.ModeBypass, Deny: f.Deny, Workspace: perm.Workspace{Cwd: "/work", Root: "/work", Home: "/home/u"}}
	for _, req := range []perm.Request{
		{Tool: "Read", Input: map[string]any{"file_path": "/srv/keys/id"}},
		{Tool: "Read", Input: map[string]any{"file_path": "/srv/keys"}},
		{Tool: "Bash", Input: map[string]any{"command": "cat /srv/keys/id"}},
		{Tool: "Write", Input: map[string]any{"file_path": "/work/generated/x.go", "content": "x"}},
	} {
		if r := perm.Evaluate(req, &pol); r.Decision != perm.Deny {
			t.Errorf("%s %v: %v (%s), want Deny", req.Tool, req.Input, r.Decision, r.Reason)
		}
	}
	if r := perm.Evaluate(perm.Request{Tool: "Read", Input: map[string]any{"file_path": "/srv/other"}}, &pol); r.Decision != perm.Allow {
		t.Errorf("Read /srv/other: %v (%s), want Allow", r.Decision, r.Reason)
	}
}

// Claude Code's settings allow its tools gen does not have ("allow":
// ["Edit", "MultiEdit", "Write"]): such an allow or ask rule, in a file or
// --allowedTools, is left out with a warning, since it matches no call gen
// makes. A deny rule naming one stays an error: a deny is never dropped.
func TestClaudeToolRules(t *testing.T) {
	l := newLayout(t)
	writeFile(t, l.user, `{"permissions": {
  "allow": ["Read", "MultiEdit", "Edit"],
  "ask": ["TodoWrite"]}}`)
	s, err := Load(Options{Cwd: l.cwd, Home: l.home, ManagedPath: l.managed, Allowed: []string{"LS", "Glob"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := entries(s.Allow), []string{"user:Read@" + l.user, "user:Edit@" + l.user, "cli:Glob@--allowedTools"}; !reflect.DeepEqual(got, want) {
		t.Errorf("allow:\n got %q\nwant %q", got, want)
	}
	if len(s.Ask) != 0 {
		t.Errorf("ask %q, want none", entries(s.Ask))
	}
	want := []string{
		l.user + `:2: permissions.allow: malformed rule "MultiEdit": unknown tool "MultiEdit": a Claude Code tool gen does not have, so the rule matches no call; left out`,
		l.user + `:3: permissions.ask: malformed rule "TodoWrite": unknown tool "TodoWrite": a Claude Code tool gen does not have, so the rule matches no call; left out`,
		`--allowedTools: malformed rule "LS": unknown tool "LS": a Claude Code tool gen does not have, so the rule matches no call; left out`,
	}
	for _, w := range want {
		if !slices.Contains(s.Warnings, w) {
			t.Errorf("warnings %q lack %q", s.Warnings, w)
		}
	}

	writeFile(t, l.user, `{"permissions": {"deny": ["MultiEdit(./src/**)"]}}`)
	if _, err := Load(Options{Cwd: l.cwd, Home: l.home, ManagedPath: l.managed}); err == nil || !strings.Contains(err.Error(), `malformed rule "MultiEdit(./src/**)"`) {
		t.Errorf("a deny rule naming MultiEdit loaded (error %v), want an error", err)
	}
	writeFile(t, l.user, `{}`)
	if _, err := Load(Options{Cwd: l.cwd, Home: l.home, ManagedPath: l.managed, Disallowed: []string{"TodoWrite"}}); err == nil || !strings.HasPrefix(err.Error(), "--disallowedTools:") {
		t.Errorf("--disallowedTools TodoWrite: error %v, want one naming the flag", err)
	}
}

// useClaudeManaged points ClaudeManagedPath into a temporary directory
// for one test and returns its drop-in directory, made.
func useClaudeManaged(t *testing.T, l layout) string {
	t.Helper()
	if _, err := os.Stat(DefaultManagedPath); err == nil {
		t.Skip(DefaultManagedPath + " exists on this machine")
	}
	old := ClaudeManagedPath
	t.Cleanup(func() { ClaudeManagedPath = old })
	ClaudeManagedPath = filepath.Join(filepath.Dir(l.managed), "claude-code", "managed-settings.json")
	dir := filepath.Join(filepath.Dir(ClaudeManagedPath), "managed-settings.d")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestClaudeManagedDropIns reads Claude Code's managed-settings.d beside
// its managed file, as Claude Code does: an administrator's deny rules
// and switches in a drop-in hold, and of single values the drop-in last
// in name order wins. Hidden files and other names are not read.
// Unread, the drop-ins' deny rules and disableBypassPermissionsMode were
// silently dropped.
func TestClaudeManagedDropIns(t *testing.T) {
	l := newLayout(t)
	dir := useClaudeManaged(t, l)
	writeFile(t, ClaudeManagedPath, `{"permissions": {"defaultMode": "acceptEdits"}}`)
	writeFile(t, filepath.Join(dir, "10-security.json"), `{"permissions": {"deny": ["WebSearch"], "disableBypassPermissionsMode": "disable", "defaultMode": "acceptEdits"}}`)
	writeFile(t, filepath.Join(dir, "90-last.json"), `{"permissions": {"defaultMode": "plan"}}`)
	writeFile(t, filepath.Join(dir, ".hidden.json"), `{"permissions": {"deny": ["Read"]}}`)
	writeFile(t, filepath.Join(dir, "notes.txt"), `not settings`)
	writeFile(t, l.user, `{"permissions": {"allow": ["WebSearch"]}}`)

	s, err := Load(Options{Cwd: l.cwd, Home: l.home})
	if err != nil {
		t.Fatal(err)
	}
	p := perm.Policy{Mode: s.Mode, Deny: s.Deny, Ask: s.Ask, Allow: s.Allow, Workspace: s.Workspace}
	if r := perm.Evaluate(perm.Request{Tool: "WebSearch", Input: map[string]any{"query": "x"}}, &p); r.Decision != perm.Deny {
		t.Errorf("WebSearch: %v, want the drop-in's deny to win over the user allow", r.Decision)
	}
	if !s.DisableBypass {
		t.Errorf("the drop-in's disableBypassPermissionsMode was not read")
	}
	if s.Mode != perm.ModePlan || s.ModeSource != perm.SourceManaged {
		t.Errorf("mode %s from %s, want plan from the last drop-in", s.Mode, s.ModeSource)
	}
	for _, e := range s.Deny {
		if e.Rule.String() == "Read" {
			t.Errorf("a hidden drop-in was read: %v", e)
		}
	}
	if _, err := Load(Options{Cwd: l.cwd, Home: l.home, Mode: "bypassPermissions"}); err == nil {
		t.Errorf("bypassPermissions was not refused")
	}

	// A malformed drop-in fails closed, naming itself.
	bad := filepath.Join(dir, "50-bad.json")
	writeFile(t, bad, `{"permissions": {"deny": [1]}}`)
	if _, err := Load(Options{Cwd: l.cwd, Home: l.home}); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("malformed drop-in: err %v, want one naming %s", err, bad)
	}
}

// TestLiveSeesNewDropIn: a drop-in added to managed-settings.d during a
// session is read at the next decision, and followed from then on.
func TestLiveSeesNewDropIn(t *testing.T) {
	l := newLayout(t)
	dir := useClaudeManaged(t, l)
	age(t, dir)
	live, err := Watch(Options{Cwd: l.cwd, Home: l.home})
	if err != nil {
		t.Fatal(err)
	}
	drop := filepath.Join(dir, "20-new.json")
	writeFile(t, drop, `{"permissions": {"deny": ["WebFetch"]}}`)
	if got := denies(t, live); !slices.Contains(got, "WebFetch") {
		t.Fatalf("deny rules %v lack the new drop-in's WebFetch", got)
	}
	age(t, dir)
	age(t, drop)
	if err := os.WriteFile(drop, []byte(`{"permissions": {"deny": ["WebSearch"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := denies(t, live); !slices.Contains(got, "WebSearch") {
		t.Fatalf("deny rules %v lack the edited drop-in's WebSearch", got)
	}
}

// TestClaudeConfigDir reads Claude Code's user settings where
// CLAUDE_CONFIG_DIR puts them, beside ~/.claude's: a Claude Code user's
// deny rules there were silently left out. A relative directory is an
// error naming the variable, not settings without the user's rules.
func TestClaudeConfigDir(t *testing.T) {
	l := newLayout(t)
	dir := filepath.Join(filepath.Dir(l.home), "claude-work")
	writeFile(t, filepath.Join(dir, "settings.json"), `{"permissions": {"deny": ["WebSearch"], "defaultMode": "plan"}}`)
	writeFile(t, filepath.Join(l.home, ".claude", "settings.json"), `{"permissions": {"deny": ["WebFetch"], "defaultMode": "acceptEdits"}}`)
	t.Setenv(ClaudeConfigEnv, dir)
	s, err := Load(Options{Cwd: l.cwd, Home: l.home, ManagedPath: l.managed})
	if err != nil {
		t.Fatal(err)
	}
	var deny []string
	for _, e := range s.Deny {
		deny = append(deny, e.Rule.String())
	}
	if !slices.Equal(deny, []string{"WebSearch", "WebFetch"}) || s.Mode != perm.ModePlan {
		t.Errorf("deny %q, mode %s; want both files' rules, the mode of %s", deny, s.Mode, dir)
	}
	t.Setenv(ClaudeConfigEnv, "claude-work")
	if _, err := Load(Options{Cwd: l.cwd, Home: l.home, ManagedPath: l.managed}); err == nil || !strings.Contains(err.Error(), ClaudeConfigEnv) {
		t.Errorf("relative %s: err %v", ClaudeConfigEnv, err)
	}
}
