package settings

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gen-run/gen/hook"
	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/workspace"
)

// dirContent, as a file's content in a test case, makes the path a
// directory so that reading it fails (chmod 000 does not stop root).
const dirContent = "<dir>"

// layout is the temporary tree a Load test runs in:
//
//	tmp/home            Options.Home (user settings in home/.gen)
//	tmp/etc/managed.json Options.ManagedPath
//	tmp/proj/.git       the project root marker
//	tmp/proj/sub        Options.Cwd
type layout struct {
	home, managed, root, cwd string
	local, project, user     string
}

func newLayout(t *testing.T) layout {
	t.Helper()
	tmp := t.TempDir()
	l := layout{
		home:    filepath.Join(tmp, "home"),
		managed: filepath.Join(tmp, "etc", "managed.json"),
		root:    filepath.Join(tmp, "proj"),
		cwd:     filepath.Join(tmp, "proj", "sub"),
	}
	l.local = filepath.Join(l.root, ".gen", "settings.local.json")
	l.project = filepath.Join(l.root, ".gen", "settings.json")
	l.user = filepath.Join(l.home, ".gen", "settings.json")
	for _, d := range []string{l.home, filepath.Dir(l.managed), filepath.Join(l.root, ".git"), l.cwd} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return l
}

// expand replaces {managed}, {local}, {project}, {user}, {root}, {cwd} and
// {home} in s.
func (l layout) expand(s string) string {
	return strings.NewReplacer(
		"{managed}", l.managed, "{local}", l.local, "{project}", l.project,
		"{user}", l.user, "{root}", l.root, "{cwd}", l.cwd, "{home}", l.home,
	).Replace(s)
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if content == dirContent {
		if err := os.Mkdir(path, 0o755); err != nil {
			t.Fatal(err)
		}
		return
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// entries renders entries as "source:rule@origin" for comparison.
func entries(es []perm.Entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, string(e.Source)+":"+e.Rule.String()+"@"+e.Origin)
	}
	return out
}

func TestLoad(t *testing.T) {
	tests := []struct {
		name                            string
		managed, local, project, user   string // "" = file absent
		opts                            Options
		wantErr                         string // exact, after expand
		wantErrSub                      string // substring, after expand
		mode                            perm.Mode
		modeSource                      perm.Source
		allow, ask, deny                []string
		dirs                            []string
		warnings                        []string
		disableBypass, managedRulesOnly bool
		files                           int
		mkdirs                          []string // directories to make first, after expand
	}{
		{
			name:    "misspelt permissions object is an error, not an empty policy",
			project: "{\n  \"permissionz\": {\"deny\": [\"Bash(rm:*)\"]}\n}",
			wantErr: `{project}:2: unknown key "permissionz": did you mean "permissions"?`,
		},
		{
			name:    "a permissions key at the top level is an error",
			managed: `{"disableBypassPermissionsMode": true}`,
			wantErr: `{managed}:1: "disableBypassPermissionsMode" belongs inside "permissions"`,
		},
		{
			name:    "misspelt rule list is an error",
			local:   `{"permissions": {"deny_rules": ["Bash(rm:*)"]}}`,
			wantErr: `{local}:1: unknown key "deny_rules" in permissions: did you mean "deny"?`,
		},
		{
			name:       "other top-level keys are a warning",
			user:       `{"model": "x", "permissions": {}}`,
			mode:       perm.ModeDefault,
			modeSource: perm.SourceBuiltin,
			warnings:   []string{`{user}:1: unknown top-level key "model" (gen reads only "permissions", "api", "hooks", "mcpServers", "sandbox", "trustedProjects", "allowManagedPermissionRulesOnly", "allowManagedHooksOnly", "disableAllHooks", "allowManagedMcpServersOnly", "disableAutoMode", "modelAliases", "allowedMcpServers", "deniedMcpServers", "enabledMcpjsonServers", "disabledMcpjsonServers", "enableAllProjectMcpServers", "agent", "strictPluginOnlyCustomization", "disableSkillShellExecution"; ignored)`},
			files:      1,
		},
		{
			name:       "no files: builtin default mode and no rules",
			mode:       perm.ModeDefault,
			modeSource: perm.SourceBuiltin,
		},
		{
			name:       "user scope rules carry source and origin",
			user:       `{"permissions": {"allow": ["Read", "Bash(npm test)"], "deny": ["Bash(rm:*)"], "ask": ["Bash(git push *)"]}}`,
			mode:       perm.ModeDefault,
			modeSource: perm.SourceBuiltin,
			allow:      []string{"user:Read@{user}", "user:Bash(npm test)@{user}"},
			ask:        []string{"user:Bash(git push *)@{user}"},
			deny:       []string{"user:Bash(rm:*)@{user}"},
			files:      1,
		},
		{
			name:       "arrays concatenate across scopes in precedence order",
			opts:       Options{Trust: true},
			managed:    `{"permissions": {"deny": ["WebFetch"]}}`,
			local:      `{"permissions": {"deny": ["Bash(curl:*)"], "allow": ["Edit"]}}`,
			project:    `{"permissions": {"deny": ["Read(./.env)"], "allow": ["Grep"]}}`,
			user:       `{"permissions": {"deny": ["Bash(rm:*)"], "allow": ["Glob"]}}`,
			mode:       perm.ModeDefault,
			modeSource: perm.SourceBuiltin,
			allow:      []string{"local:Edit@{local}", "project:Grep@{project}", "user:Glob@{user}"},
			deny:       []string{"managed:WebFetch@{managed}", "local:Bash(curl:*)@{local}", "project:Read(./.env)@{project}", "user:Bash(rm:*)@{user}"},
			files:      4,
		},
		{
			name:       "identical rule in one file is kept once, in two scopes twice",
			opts:       Options{Trust: true},
			project:    `{"permissions": {"allow": ["Read", "Read"]}}`,
			user:       `{"permissions": {"allow": ["Read"]}}`,
			mode:       perm.ModeDefault,
			modeSource: perm.SourceBuiltin,
			allow:      []string{"project:Read@{project}", "user:Read@{user}"},
			files:      2,
		},
		{
			name:       "same rule in allow and deny is kept in both lists",
			user:       `{"permissions": {"allow": ["Read"], "deny": ["Read"]}}`,
			mode:       perm.ModeDefault,
			modeSource: perm.SourceBuiltin,
			allow:      []string{"user:Read@{user}"},
			deny:       []string{"user:Read@{user}"},
			files:      1,
		},
		{
			name:       "defaultMode from the user scope",
			user:       `{"permissions": {"defaultMode": "acceptEdits"}}`,
			mode:       perm.ModeAcceptEdits,
			modeSource: perm.SourceUser,
			files:      1,
		},
		{
			name:       "project defaultMode beats user",
			project:    `{"permissions": {"defaultMode": "dontAsk"}}`,
			user:       `{"permissions": {"defaultMode": "acceptEdits"}}`,
			mode:       perm.ModeDontAsk,
			modeSource: perm.SourceProject,
			files:      2,
		},
		{
			name:       "local defaultMode beats project",
			local:      `{"permissions": {"defaultMode": "auto"}}`,
			project:    `{"permissions": {"defaultMode": "dontAsk"}}`,
			opts:       Options{Trust: true},
			mode:       perm.ModeAuto,
			modeSource: perm.SourceLocal,
			files:      2,
		},
		{
			name:       "managed defaultMode beats local",
			managed:    `{"permissions": {"defaultMode": "default"}}`,
			local:      `{"permissions": {"defaultMode": "auto"}}`,
			mode:       perm.ModeDefault,
			modeSource: perm.SourceManaged,
			files:      2,
		},
		{
			name:       "a scope without defaultMode does not hide a lower one",
			opts:       Options{Trust: true},
			local:      `{"permissions": {"allow": ["Read"]}}`,
			user:       `{"permissions": {"defaultMode": "acceptEdits"}}`,
			mode:       perm.ModeAcceptEdits,
			modeSource: perm.SourceUser,
			allow:      []string{"local:Read@{local}"},
			files:      2,
		},
		{
			name:       "flag mode is above every scope",
			managed:    `{"permissions": {"defaultMode": "default"}}`,
			opts:       Options{Mode: "acceptEdits"},
			mode:       perm.ModeAcceptEdits,
			modeSource: perm.SourceCLI,
			files:      1,
		},
		{
			name:    "flag mode unknown",
			opts:    Options{Mode: "yolo"},
			wantErr: `permission mode flag: unknown permission mode "yolo" (want one of default, acceptEdits, plan, dontAsk, bypassPermissions, auto, explore)`,
		},
		{
			name:       "flag mode plan",
			opts:       Options{Mode: "plan"},
			mode:       perm.ModePlan,
			modeSource: perm.SourceCLI,
		},
		{
			name:    "flag mode explore is subagent-only",
			opts:    Options{Mode: "explore"},
			wantErr: `permission mode flag: "explore" is only for subagents`,
		},
		{
			name:       "flag bypass allowed when nobody disables it",
			opts:       Options{Mode: "bypassPermissions"},
			mode:       perm.ModeBypass,
			modeSource: perm.SourceCLI,
		},
		{
			name:    "managed disableBypassPermissionsMode refuses the bypass flag",
			managed: `{"permissions": {"disableBypassPermissionsMode": true}}`,
			opts:    Options{Mode: "bypassPermissions"},
			wantErr: `permission mode flag: bypassPermissions is disabled by disableBypassPermissionsMode in {managed}`,
		},
		{
			name:          "disableBypassPermissionsMode: a lower scope's bypass default falls through to the next scope",
			managed:       `{"permissions": {"disableBypassPermissionsMode": true}}`,
			project:       "{\"permissions\": {\n  \"defaultMode\": \"bypassPermissions\"}}",
			user:          `{"permissions": {"defaultMode": "acceptEdits"}}`,
			mode:          perm.ModeAcceptEdits,
			modeSource:    perm.SourceUser,
			disableBypass: true,
			warnings:      []string{`{project}:2: ignoring defaultMode "bypassPermissions": disabled by disableBypassPermissionsMode in {managed}`},
			files:         3,
		},
		{
			name:          "disableBypassPermissionsMode: bypass default with nothing below falls to the builtin default",
			managed:       `{"permissions": {"disableBypassPermissionsMode": true}}`,
			local:         `{"permissions": {"defaultMode": "bypassPermissions"}}`,
			mode:          perm.ModeDefault,
			modeSource:    perm.SourceBuiltin,
			disableBypass: true,
			warnings:      []string{`{local}:1: ignoring defaultMode "bypassPermissions": disabled by disableBypassPermissionsMode in {managed}`},
			files:         2,
		},
		{
			name:          "disableBypassPermissionsMode false changes nothing",
			managed:       `{"permissions": {"disableBypassPermissionsMode": false}}`,
			user:          `{"permissions": {"defaultMode": "bypassPermissions"}}`,
			mode:          perm.ModeBypass,
			modeSource:    perm.SourceUser,
			files:         2,
			disableBypass: false,
		},
		{
			name:          "disableBypassPermissionsMode set by the user is honoured too",
			user:          `{"permissions": {"disableBypassPermissionsMode": true}}`,
			opts:          Options{Mode: "bypassPermissions"},
			wantErr:       `permission mode flag: bypassPermissions is disabled by disableBypassPermissionsMode in {user}`,
			disableBypass: true,
		},
		{
			name:             "allowManagedPermissionRulesOnly keeps managed allow rules and every deny and ask",
			managed:          `{"permissions": {"allowManagedPermissionRulesOnly": true, "allow": ["Read"]}}`,
			project:          `{"permissions": {"allow": ["Edit", "Bash"], "ask": ["WebFetch"], "deny": ["Bash(rm:*)"]}}`,
			opts:             Options{Allowed: []string{"Write"}, Disallowed: []string{"Bash(curl:*)"}},
			mode:             perm.ModeDefault,
			modeSource:       perm.SourceBuiltin,
			allow:            []string{"managed:Read@{managed}"},
			ask:              []string{"project:WebFetch@{project}"},
			deny:             []string{"project:Bash(rm:*)@{project}", "cli:Bash(curl:*)@--disallowedTools"},
			managedRulesOnly: true,
			warnings:         []string{"{managed}: allowManagedPermissionRulesOnly is set: ignoring 3 allow rule(s) from other scopes and --allowedTools"},
			files:            2,
		},
		{
			name:             "allowManagedPermissionRulesOnly with nothing to drop warns about nothing",
			managed:          `{"permissions": {"allowManagedPermissionRulesOnly": true}}`,
			mode:             perm.ModeDefault,
			modeSource:       perm.SourceBuiltin,
			managedRulesOnly: true,
			files:            1,
		},
		{
			name:       "flag rules come after the files with source cli",
			user:       `{"permissions": {"allow": ["Read"]}}`,
			opts:       Options{Allowed: []string{"Bash(npm test)", "Bash(npm test)"}, Disallowed: []string{"Bash(rm:*)"}},
			mode:       perm.ModeDefault,
			modeSource: perm.SourceBuiltin,
			allow:      []string{"user:Read@{user}", "cli:Bash(npm test)@--allowedTools"},
			deny:       []string{"cli:Bash(rm:*)@--disallowedTools"},
			files:      1,
		},
		{
			name:       "--settings is a scope below managed and above local",
			managed:    `{"permissions": {"deny": ["WebFetch"]}}`,
			local:      `{"permissions": {"defaultMode": "dontAsk", "deny": ["Bash(curl:*)"]}}`,
			opts:       Options{Trust: true, FlagSettings: []byte(`{"permissions": {"defaultMode": "acceptEdits", "deny": ["Read(./.env)"], "allow": ["Bash(make:*)"]}}`), FlagSettingsPath: "--settings"},
			mode:       perm.ModeAcceptEdits,
			modeSource: perm.SourceCLI,
			allow:      []string{"cli:Bash(make:*)@--settings"},
			deny:       []string{"managed:WebFetch@{managed}", "cli:Read(./.env)@--settings", "local:Bash(curl:*)@{local}"},
			files:      3,
		},
		{
			name:          "--settings cannot turn on a mode managed settings disable",
			managed:       `{"permissions": {"disableBypassPermissionsMode": "disable"}}`,
			opts:          Options{FlagSettings: []byte(`{"permissions": {"defaultMode": "bypassPermissions"}}`), FlagSettingsPath: "--settings"},
			mode:          perm.ModeDefault,
			modeSource:    perm.SourceBuiltin,
			disableBypass: true,
			warnings:      []string{`--settings:1: ignoring defaultMode "bypassPermissions": disabled by disableBypassPermissionsMode in {managed}`},
			files:         2,
		},
		{
			name:    "malformed --settings",
			opts:    Options{FlagSettings: []byte(`{"permissions": {"deny": ["Bash("]}}`), FlagSettingsPath: "--settings"},
			wantErr: `--settings:1: malformed rule "Bash(": missing closing parenthesis`,
		},
		{
			name:       "--setting-sources project: the user's scope still brings its deny and ask rules, nothing it grants",
			user:       `{"permissions": {"defaultMode": "acceptEdits", "allow": ["Bash(npm test)"], "ask": ["Bash(git push:*)"], "deny": ["Bash(rm:*)"], "additionalDirectories": ["/usr"]}}`,
			project:    `{"permissions": {"allow": ["Read"], "deny": ["Read(./.env)"]}}`,
			opts:       Options{Trust: true, Sources: []perm.Source{perm.SourceProject}, LimitSources: true},
			mode:       perm.ModeDefault,
			modeSource: perm.SourceBuiltin,
			allow:      []string{"project:Read@{project}"},
			ask:        []string{"user:Bash(git push:*)@{user}"},
			deny:       []string{"project:Read(./.env)@{project}", "user:Bash(rm:*)@{user}"},
			files:      2,
		},
		{
			name:       "--setting-sources with none: managed and --settings load in full, the others bring restrictions",
			managed:    `{"permissions": {"allow": ["Glob"]}}`,
			local:      `{"permissions": {"defaultMode": "dontAsk", "allow": ["Grep"], "deny": ["Bash(curl:*)"]}}`,
			user:       `{"permissions": {"allow": ["Read"], "deny": ["WebFetch"]}}`,
			opts:       Options{Trust: true, LimitSources: true, Sources: []perm.Source{}, FlagSettings: []byte(`{"permissions": {"allow": ["Bash(make:*)"]}}`), FlagSettingsPath: "--settings"},
			mode:       perm.ModeDefault,
			modeSource: perm.SourceBuiltin,
			allow:      []string{"managed:Glob@{managed}", "cli:Bash(make:*)@--settings"},
			deny:       []string{"local:Bash(curl:*)@{local}", "user:WebFetch@{user}"},
			files:      4,
		},
		{
			name:    "--setting-sources still reads a scope it leaves out: a broken file fails closed",
			user:    `{"permissions": {"deny": ["Bash("]}}`,
			opts:    Options{LimitSources: true, Sources: []perm.Source{perm.SourceProject}},
			wantErr: `{user}:1: malformed rule "Bash(": missing closing parenthesis`,
		},
		{
			name:    "malformed --allowedTools rule",
			opts:    Options{Allowed: []string{"Bash("}},
			wantErr: `--allowedTools: malformed rule "Bash(": missing closing parenthesis`,
		},
		{
			name:    "malformed --disallowedTools rule",
			opts:    Options{Disallowed: []string{"Bash()"}},
			wantErr: `--disallowedTools: malformed rule "Bash()": empty pattern: write the bare tool name to match every call`,
		},
		{
			name:       "additionalDirectories resolve against the project root, cwd and home; flags against cwd",
			project:    `{"permissions": {"additionalDirectories": ["../shared-docs/", "/usr"]}}`,
			user:       `{"permissions": {"additionalDirectories": ["data", "~/notes", "/usr"]}}`,
			opts:       Options{AddDirs: []string{"rel", "x/../y"}, Trust: true},
			mode:       perm.ModeDefault,
			modeSource: perm.SourceBuiltin,
			dirs:       []string{"{root}/../shared-docs", "/usr", "{cwd}/data", "{home}/notes", "{cwd}/rel", "{cwd}/y"},
			files:      2,
			mkdirs:     []string{"{root}/../shared-docs", "{cwd}/data", "{home}/notes"},
		},
		{
			// As --add-dir: a directory that is not there would be
			// workspace the moment anything appears under its name.
			name:       "an additional directory that does not exist is ignored with a warning naming the file and line",
			user:       "{\"permissions\": {\"additionalDirectories\": [\n\"~/notes\", \"~/gone\"]}}",
			mode:       perm.ModeDefault,
			modeSource: perm.SourceBuiltin,
			dirs:       []string{"{home}/notes"},
			warnings:   []string{"{user}:2: permissions.additionalDirectories: {home}/gone is not an existing directory; ignored"},
			files:      1,
			mkdirs:     []string{"{home}/notes"},
		},
		{
			// A cloned repository must not widen the user's policy: its
			// additional directories are writable under the kernel sandbox
			// and lie inside the workspace for the gate.
			name:       "an untrusted project's additionalDirectories are ignored",
			local:      `{"permissions": {"additionalDirectories": ["~"]}}`,
			project:    "{\"permissions\": {\n\"additionalDirectories\": [\"/\"]}}",
			user:       `{"permissions": {"additionalDirectories": ["~/notes"]}}`,
			mode:       perm.ModeDefault,
			modeSource: perm.SourceBuiltin,
			dirs:       []string{"{home}/notes"},
			mkdirs:     []string{"{home}/notes"},
			warnings: []string{
				"{local}: ignoring project additionalDirectories: the project {root} is not trusted (trust it with `gen trust {root}`, or --trust for one run)",
				"{project}: ignoring project additionalDirectories: the project {root} is not trusted (trust it with `gen trust {root}`, or --trust for one run)",
			},
			files: 3,
		},
		{
			name:       "a trusted project's additionalDirectories apply",
			project:    `{"permissions": {"additionalDirectories": ["/"]}}`,
			opts:       Options{Trust: true},
			mode:       perm.ModeDefault,
			modeSource: perm.SourceBuiltin,
			dirs:       []string{"/"},
			files:      1,
		},
		{
			// A mode that runs calls without asking is a loosening; it
			// falls through to the next scope, as under
			// disableBypassPermissionsMode.
			name:       "an untrusted project's widening defaultMode falls through to the user's",
			local:      `{"permissions": {"defaultMode": "auto"}}`,
			project:    "{\"permissions\": {\n\"defaultMode\": \"bypassPermissions\"}}",
			user:       `{"permissions": {"defaultMode": "default"}}`,
			mode:       perm.ModeDefault,
			modeSource: perm.SourceUser,
			warnings: []string{
				"{local}:1: ignoring project defaultMode \"auto\": the project {root} is not trusted (trust it with `gen trust {root}`, or --trust for one run)",
				"{project}:2: ignoring project defaultMode \"bypassPermissions\": the project {root} is not trusted (trust it with `gen trust {root}`, or --trust for one run)",
			},
			files: 3,
		},
		{
			name:       "an untrusted project's acceptEdits falls to the builtin default",
			project:    `{"permissions": {"defaultMode": "acceptEdits"}}`,
			mode:       perm.ModeDefault,
			modeSource: perm.SourceBuiltin,
			warnings:   []string{"{project}:1: ignoring project defaultMode \"acceptEdits\": the project {root} is not trusted (trust it with `gen trust {root}`, or --trust for one run)"},
			files:      1,
		},
		{
			name:       "an untrusted project may tighten the mode",
			project:    `{"permissions": {"defaultMode": "dontAsk"}}`,
			user:       `{"permissions": {"defaultMode": "acceptEdits"}}`,
			mode:       perm.ModeDontAsk,
			modeSource: perm.SourceProject,
			files:      2,
		},
		{
			name:    "empty additional directory",
			user:    "{\"permissions\": {\"additionalDirectories\": [\n\"\"]}}",
			wantErr: `{user}:2: permissions.additionalDirectories: empty directory name`,
		},
		{
			name:    "empty --add-dir",
			opts:    Options{AddDirs: []string{""}},
			wantErr: `--add-dir: empty directory name`,
		},
		{
			name:       "an untrusted project's allow rules are ignored with a warning naming the file and line; its deny and ask rules apply",
			project:    "{\"permissions\": {\n  \"deny\": [\"Bash(rm:*)\"],\n  \"ask\": [\"WebFetch\"],\n  \"allow\": [\n    \"Bash(*)\", \"Read\"]}}",
			local:      `{"permissions": {"allow": ["Edit"]}}`,
			user:       `{"permissions": {"allow": ["Glob"]}}`,
			mode:       perm.ModeDefault,
			modeSource: perm.SourceBuiltin,
			allow:      []string{"user:Glob@{user}"},
			ask:        []string{"project:WebFetch@{project}"},
			deny:       []string{"project:Bash(rm:*)@{project}"},
			warnings: []string{
				"{local}:1: ignoring project allow rules (1): the project {root} is not trusted (trust it with `gen trust {root}`, or --trust for one run)",
				"{project}:5: ignoring project allow rules (2): the project {root} is not trusted (trust it with `gen trust {root}`, or --trust for one run)",
			},
			files: 3,
		},
		{
			name:       "a trusted project's allow rules apply",
			project:    `{"permissions": {"allow": ["Bash(*)"]}}`,
			opts:       Options{Trust: true},
			mode:       perm.ModeDefault,
			modeSource: perm.SourceBuiltin,
			allow:      []string{"project:Bash(*)@{project}"},
			files:      1,
		},
		{
			name:       "other top-level keys are tolerated with a warning",
			opts:       Options{Trust: true},
			project:    `{"model": "x", "colour": {"a": [1, 2.5, null, true]}, "permissions": {"allow": ["Read"]}}`,
			mode:       perm.ModeDefault,
			modeSource: perm.SourceBuiltin,
			allow:      []string{"project:Read@{project}"},
			warnings: []string{
				`{project}:1: unknown top-level key "model" (gen reads only "permissions", "api", "hooks", "mcpServers", "sandbox", "trustedProjects", "allowManagedPermissionRulesOnly", "allowManagedHooksOnly", "disableAllHooks", "allowManagedMcpServersOnly", "disableAutoMode", "modelAliases", "allowedMcpServers", "deniedMcpServers", "enabledMcpjsonServers", "disabledMcpjsonServers", "enableAllProjectMcpServers", "agent", "strictPluginOnlyCustomization", "disableSkillShellExecution"; ignored)`,
				`{project}:1: unknown top-level key "colour" (gen reads only "permissions", "api", "hooks", "mcpServers", "sandbox", "trustedProjects", "allowManagedPermissionRulesOnly", "allowManagedHooksOnly", "disableAllHooks", "allowManagedMcpServersOnly", "disableAutoMode", "modelAliases", "allowedMcpServers", "deniedMcpServers", "enabledMcpjsonServers", "disabledMcpjsonServers", "enableAllProjectMcpServers", "agent", "strictPluginOnlyCustomization", "disableSkillShellExecution"; ignored)`,
			},
			files: 1,
		},
		{
			name:       "mcpServers is read quietly (package mcp parses it)",
			user:       `{"mcpServers": {"gh": {"command": "gh-mcp"}}}`,
			mode:       perm.ModeDefault,
			modeSource: perm.SourceBuiltin,
			files:      1,
		},
		{
			name:    "mcpServers that is not an object is an error at its line",
			user:    "{\n  \"mcpServers\": [\"gh\"]\n}",
			wantErr: `{user}:2: mcpServers must be an object of servers`,
		},
		{
			name:    "a misspelt mcpServers is an error",
			user:    `{"mcpservers": {}}`,
			wantErr: `{user}:1: unknown key "mcpservers": did you mean "mcpServers"?`,
		},
		// A misspelt key that forbids (forbiddingKeys) is an error: read
		// with a warning, the servers it denied started, the hooks it
		// guarded with or turned off ran as before, its sandbox was none.
		{
			name:    "a misspelt deniedMcpServers is an error",
			managed: `{"deniedMcpServer": [{"serverName": "x"}]}`,
			wantErr: `{managed}:1: unknown key "deniedMcpServer": did you mean "deniedMcpServers"?`,
		},
		{
			name:    "a misspelt hooks is an error",
			user:    `{"Hooks": {}}`,
			wantErr: `{user}:1: unknown key "Hooks": did you mean "hooks"?`,
		},
		{
			name:    "a misspelt disableAllHooks is an error",
			managed: `{"disableallhooks": true}`,
			wantErr: `{managed}:1: unknown key "disableallhooks": did you mean "disableAllHooks"?`,
		},
		{
			name:    "a misspelt sandbox is an error",
			project: `{"sandbx": {"required": true}}`,
			wantErr: `{project}:1: unknown key "sandbx": did you mean "sandbox"?`,
		},
		{
			name:       "a file without permissions is present but adds nothing",
			user:       `{}`,
			mode:       perm.ModeDefault,
			modeSource: perm.SourceBuiltin,
			files:      1,
		},
		{
			// Issue 8: unknown keys inside permissions fail closed.
			name:    "unknown key inside permissions is an error naming file, line and key",
			project: "{\n  \"permissions\": {\n    \"alow\": [\"Read\"],\n    \"deny\": [\"Edit\"]\n  }\n}",
			wantErr: `{project}:3: unknown key "alow" in permissions: did you mean "allow"?`,
		},
		{
			// A miscased deny list would silently drop its rules.
			name:    "case variant Deny inside permissions is an error",
			project: "{\"permissions\": {\n\"Deny\": [\"Read(./.env)\"]}}",
			wantErr: `{project}:2: unknown key "Deny" in permissions: did you mean "deny"?`,
		},
		{
			name:    "unrelated unknown key inside permissions is an error",
			project: "{\"permissions\": {\"hooks\": []}}",
			wantErr: `{project}:1: unknown key "hooks" in permissions (known keys: allow, ask, deny, defaultMode, additionalDirectories, disableBypassPermissionsMode, disableAutoMode, allowManagedPermissionRulesOnly)`,
		},
		{
			// A miscased permissions object would mean no rules at all.
			name:    "case variant Permissions at the top level is an error",
			user:    "{\"Permissions\": {\"deny\": [\"Bash\"]}}",
			wantErr: `{user}:1: unknown key "Permissions": did you mean "permissions"?`,
		},
		{
			// A typo in a tool name would make a deny rule deny nothing.
			name:    "rule naming an unknown tool is an error with a suggestion",
			project: "{\"permissions\": {\"deny\": [\"bash(rm:*)\"]}}",
			wantErr: `{project}:1: malformed rule "bash(rm:*)": unknown tool "bash": did you mean Bash?`,
		},
		{
			name:    "invalid JSON: trailing comma, with line and column",
			project: "{\n  \"permissions\": {\n    \"allow\": [\"Read\",]\n  }\n}",
			wantErr: `{project}:3:22: invalid character ']' looking for beginning of value: JSON allows no comma after the last member or element`,
		},
		{
			name:    "invalid JSON: missing closing brace at end of file",
			user:    "{\n  \"permissions\": {}\n",
			wantErr: `{user}:3:1: unexpected end of JSON input`,
		},
		{
			name:    "invalid JSON: empty file is not an empty object",
			local:   "",
			wantErr: `{local}:1:1: unexpected end of JSON input`,
		},
		{
			name:    "invalid JSON: data after the object",
			managed: "{}\n}",
			wantErr: `{managed}:2:1: invalid character '}' after top-level value`,
		},
		{
			name:    "wrong type: top level is an array",
			user:    `["Read"]`,
			wantErr: `{user}:1: settings must be a JSON object`,
		},
		{
			name:    "wrong type: permissions is null",
			user:    `{"permissions": null}`,
			wantErr: `{user}:1: permissions must be an object`,
		},
		{
			name:    "wrong type: allow is a string",
			user:    "{\n  \"permissions\": {\n    \"allow\": \"Read\"\n  }\n}",
			wantErr: `{user}:3: permissions.allow must be an array of strings`,
		},
		{
			name:    "wrong type: deny holds a number",
			user:    "{\"permissions\": {\"deny\": [\n  \"Read\",\n  3\n]}}",
			wantErr: `{user}:3: permissions.deny must be an array of strings`,
		},
		{
			name:    "wrong type: ask is null",
			project: `{"permissions": {"ask": null}}`,
			wantErr: `{project}:1: permissions.ask must be an array of strings`,
		},
		{
			name:    "wrong type: additionalDirectories is an object",
			project: `{"permissions": {"additionalDirectories": {}}}`,
			wantErr: `{project}:1: permissions.additionalDirectories must be an array of strings`,
		},
		{
			name:    "wrong type: defaultMode is a number",
			user:    `{"permissions": {"defaultMode": 1}}`,
			wantErr: `{user}:1: permissions.defaultMode must be a string`,
		},
		{
			name:    "wrong type: disableBypassPermissionsMode is a string",
			managed: `{"permissions": {"disableBypassPermissionsMode": "true"}}`,
			wantErr: `{managed}:1: permissions.disableBypassPermissionsMode must be "disable", true or false`,
		},
		{
			name:    "wrong type: allowManagedPermissionRulesOnly is a number",
			managed: `{"permissions": {"allowManagedPermissionRulesOnly": 1}}`,
			wantErr: `{managed}:1: permissions.allowManagedPermissionRulesOnly must be true or false`,
		},
		{
			name:    "unknown mode",
			local:   "{\"permissions\": {\n  \"defaultMode\": \"edit\"\n}}",
			wantErr: `{local}:2: unknown mode "edit" in permissions.defaultMode (want one of default, acceptEdits, plan, dontAsk, bypassPermissions, auto)`,
		},
		{
			name:    "empty mode is refused, not read as default",
			user:    `{"permissions": {"defaultMode": ""}}`,
			wantErr: `{user}:1: unknown mode "" in permissions.defaultMode (want one of default, acceptEdits, plan, dontAsk, bypassPermissions, auto)`,
		},
		{
			name:    "explore as defaultMode is subagent-only",
			project: `{"permissions": {"defaultMode": "explore"}}`,
			wantErr: `{project}:1: permissions.defaultMode "explore" is only for subagents (want one of default, acceptEdits, plan, dontAsk, bypassPermissions, auto)`,
		},
		{
			name:    "malformed allow rule names the line of its string",
			local:   "{\n  \"permissions\": {\n    \"allow\": [\n      \"Read\",\n      \"Bash(\"\n    ]\n  }\n}",
			wantErr: `{local}:5: malformed rule "Bash(": missing closing parenthesis`,
		},
		{
			name:    "malformed deny rule is an error, not a skipped rule",
			managed: "{\"permissions\": {\"deny\": [\"Read\",\n \"Bad Tool\"]}}",
			wantErr: `{managed}:2: malformed rule "Bad Tool": invalid character ' ' in tool name`,
		},
		{
			name:    "malformed ask rule with the same text as an earlier key",
			user:    "{\"permissions\": {\n\"ask\": [\n\"WebFetch(github.com)\"]}}",
			wantErr: `{user}:3: malformed rule "WebFetch(github.com)": WebFetch patterns are domain:HOST or domain:*.HOST`,
		},
		{
			name:    "duplicate key inside permissions",
			project: "{\"permissions\": {\"deny\": [\"Read\"],\n \"deny\": []}}",
			wantErr: `{project}:2: duplicate key "permissions.deny"`,
		},
		{
			name:    "duplicate permissions key",
			project: "{\"permissions\": {},\n\"permissions\": {\"deny\": [\"Read\"]}}",
			wantErr: `{project}:2: duplicate key "permissions"`,
		},
		{
			name:       "unreadable file is an error",
			user:       dirContent,
			wantErrSub: "user settings {user}: not a regular file but a directory",
		},
		{
			name:       "unreadable managed file is an error",
			managed:    dirContent,
			wantErrSub: "managed settings {managed}: not a regular file but a directory",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := newLayout(t)
			for _, f := range []struct {
				path, content string
				present       bool
			}{
				{l.managed, tt.managed, tt.managed != ""},
				{l.local, tt.local, tt.local != "" || strings.Contains(tt.name, "empty file")},
				{l.project, tt.project, tt.project != ""},
				{l.user, tt.user, tt.user != ""},
			} {
				if f.present {
					writeFile(t, f.path, f.content)
				}
			}
			for _, d := range tt.mkdirs {
				if err := os.MkdirAll(l.expand(d), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			opts := tt.opts
			opts.Cwd, opts.Home, opts.ManagedPath = l.cwd, l.home, l.managed
			for _, d := range opts.AddDirs {
				// --add-dir must name an existing directory.
				if err := os.MkdirAll(filepath.Join(l.cwd, d), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			s, err := Load(opts)
			if tt.wantErr != "" || tt.wantErrSub != "" {
				if err == nil {
					t.Fatalf("Load succeeded, want error %q%q", tt.wantErr, tt.wantErrSub)
				}
				if tt.wantErr != "" && err.Error() != l.expand(tt.wantErr) {
					t.Fatalf("error:\n got %s\nwant %s", err, l.expand(tt.wantErr))
				}
				if tt.wantErrSub != "" && !strings.Contains(err.Error(), l.expand(tt.wantErrSub)) {
					t.Fatalf("error:\n got %s\nwant it to contain %s", err, l.expand(tt.wantErrSub))
				}
				return
			}
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if s.Mode != tt.mode || s.ModeSource != tt.modeSource {
				t.Errorf("mode = %s from %s, want %s from %s", s.Mode, s.ModeSource, tt.mode, tt.modeSource)
			}
			expandAll := func(in []string) []string {
				var out []string
				for _, s := range in {
					out = append(out, l.expand(s))
				}
				return out
			}
			for _, c := range []struct {
				name      string
				got, want []string
			}{
				{"allow", entries(s.Allow), expandAll(tt.allow)},
				{"ask", entries(s.Ask), expandAll(tt.ask)},
				{"deny", entries(s.Deny), expandAll(tt.deny)},
				{"warnings", s.Warnings, expandAll(tt.warnings)},
			} {
				if !reflect.DeepEqual(c.got, c.want) {
					t.Errorf("%s:\n got %q\nwant %q", c.name, c.got, c.want)
				}
			}
			var wantDirs []string
			for _, d := range tt.dirs {
				wantDirs = append(wantDirs, filepath.Clean(l.expand(d)))
			}
			if !reflect.DeepEqual(s.Workspace.Dirs, wantDirs) {
				t.Errorf("dirs:\n got %q\nwant %q", s.Workspace.Dirs, wantDirs)
			}
			if s.Workspace.Cwd != l.cwd || s.Workspace.Root != l.root || s.Workspace.Home != l.home {
				t.Errorf("workspace = %+v, want cwd %s root %s home %s", s.Workspace, l.cwd, l.root, l.home)
			}
			if s.DisableBypass != tt.disableBypass || s.ManagedRulesOnly != tt.managedRulesOnly {
				t.Errorf("DisableBypass, ManagedRulesOnly = %v, %v, want %v, %v", s.DisableBypass, s.ManagedRulesOnly, tt.disableBypass, tt.managedRulesOnly)
			}
			if len(s.Files) != tt.files {
				t.Errorf("%d files, want %d", len(s.Files), tt.files)
			}
		})
	}
}

func TestLoadFilesInPrecedenceOrder(t *testing.T) {
	l := newLayout(t)
	for _, p := range []string{l.user, l.project, l.local, l.managed} {
		writeFile(t, p, `{"permissions": {"defaultMode": "auto"}}`)
	}
	s, err := Load(Options{Cwd: l.cwd, Home: l.home, ManagedPath: l.managed})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range s.Files {
		got = append(got, string(f.Scope)+"="+f.Path)
		if f.DefaultMode != perm.ModeAuto {
			t.Errorf("%s: DefaultMode = %q", f.Path, f.DefaultMode)
		}
	}
	want := []string{"managed=" + l.managed, "local=" + l.local, "project=" + l.project, "user=" + l.user}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("files:\n got %q\nwant %q", got, want)
	}
}

func TestLoadErrorUnwraps(t *testing.T) {
	l := newLayout(t)
	writeFile(t, l.project, `{"permissions": {"deny": ["Bash("]}}`)
	_, err := Load(Options{Cwd: l.cwd, Home: l.home, ManagedPath: l.managed})
	var re *perm.RuleError
	if !errors.As(err, &re) || re.Rule != "Bash(" {
		t.Fatalf("error %v does not unwrap to the perm.RuleError", err)
	}
	var se *Error
	if !errors.As(err, &se) || se.Path != l.project || se.Line != 1 {
		t.Fatalf("error %v is not an *Error at %s:1", err, l.project)
	}
}

func TestLoadOptions(t *testing.T) {
	l := newLayout(t)
	tests := []struct {
		name    string
		opts    Options
		wantErr string
	}{
		{"relative cwd", Options{Cwd: "proj", Home: l.home, ManagedPath: l.managed}, `settings: working directory "proj" is not absolute`},
		{"relative home", Options{Cwd: l.cwd, Home: "home", ManagedPath: l.managed}, `settings: home directory "home" is not absolute`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(tt.opts)
			if err == nil || err.Error() != tt.wantErr {
				t.Fatalf("err = %v, want %s", err, tt.wantErr)
			}
		})
	}
}

func TestLoadProjectRootIsCwdWithoutMarker(t *testing.T) {
	tmp := t.TempDir()
	home := filepath.Join(tmp, "home")
	cwd := filepath.Join(home, "scratch")
	// home/.gen holds the user settings; it must not make home the project
	// root, or every file under home would be in the workspace.
	writeFile(t, filepath.Join(home, ".gen", "settings.json"), `{"permissions": {"allow": ["Read"]}}`)
	if err := os.MkdirAll(cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := Load(Options{Cwd: cwd, Home: home, ManagedPath: filepath.Join(tmp, "none.json")})
	if err != nil {
		t.Fatal(err)
	}
	if s.Workspace.Root != cwd {
		t.Errorf("root = %s, want %s", s.Workspace.Root, cwd)
	}
	if len(s.Files) != 1 || s.Files[0].Scope != perm.SourceUser {
		t.Errorf("files = %+v, want only the user file", s.Files)
	}
}

func TestLoadAdditionalDirectoryGenNotLoaded(t *testing.T) {
	l := newLayout(t)
	extra := filepath.Join(filepath.Dir(l.root), "extra")
	writeFile(t, filepath.Join(extra, ".gen", "settings.json"), `{"permissions": {"allow": ["Bash"]}}`)
	writeFile(t, l.project, `{"permissions": {"additionalDirectories": ["../extra"]}}`)
	s, err := Load(Options{Cwd: l.cwd, Home: l.home, ManagedPath: l.managed, AddDirs: []string{extra}})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Allow) != 0 || len(s.Files) != 1 {
		t.Errorf("settings in an additional directory were loaded: allow %v, files %d", entries(s.Allow), len(s.Files))
	}
	if !reflect.DeepEqual(s.Workspace.Dirs, []string{extra}) {
		t.Errorf("dirs = %q, want [%s]", s.Workspace.Dirs, extra)
	}
}

func TestProjectRoot(t *testing.T) {
	tmp := t.TempDir()
	mk := func(p string) string {
		p = filepath.Join(tmp, p)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	mk("git/.git")
	mk("git/a/b")
	mk("gen/.gen")
	mk("gen/x/.git") // nearer marker wins
	mk("gen/x/y")
	mk("gen/z")
	mk("none/a")
	mk("home/.gen")
	mk("home/p")
	mk("worktree/sub")
	writeFile(t, filepath.Join(tmp, "worktree/.git"), "gitdir: /elsewhere\n")
	writeFile(t, filepath.Join(tmp, "genfile/.gen"), "not a directory")
	mk("genfile/a")

	tests := []struct {
		name, cwd, want string
	}{
		{"cwd is the root", "git", "git"},
		{".git two levels up", "git/a/b", "git"},
		{".gen one level up", "gen/z", "gen"},
		{"nearest marker wins", "gen/x/y", "gen/x"},
		{".git file of a worktree", "worktree/sub", "worktree"},
		{"a .gen file is not a marker", "genfile/a", "genfile/a"},
		{"home .gen is user settings, not a project", "home/p", "home/p"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := workspace.ProjectRoot(filepath.Join(tmp, tt.cwd), filepath.Join(tmp, "home"))
			if want := filepath.Join(tmp, tt.want); got != want {
				t.Errorf("projectRoot(%s) = %s, want %s", tt.cwd, got, want)
			}
		})
	}
	// The exported form finds the same markers.
	if got, want := workspace.ProjectRoot(filepath.Join(tmp, "git/a/b")), filepath.Join(tmp, "git"); got != want {
		t.Errorf("ProjectRoot = %s, want %s", got, want)
	}
}

func TestLoadProjectRootAtHome(t *testing.T) {
	// A home directory under git makes home the project root; its
	// settings.json is then the user file and is read once, as user.
	home := t.TempDir()
	writeFile(t, filepath.Join(home, ".git", "HEAD"), "ref: x\n")
	writeFile(t, filepath.Join(home, ".gen", "settings.json"), `{"permissions": {"allow": ["Read"]}}`)
	s, err := Load(Options{Cwd: home, Home: home, ManagedPath: filepath.Join(home, "none.json")})
	if err != nil {
		t.Fatal(err)
	}
	if got := entries(s.Allow); len(got) != 1 || !strings.HasPrefix(got[0], "user:Read@") {
		t.Errorf("allow = %q, want the user rule once", got)
	}
}

func TestModeAllowed(t *testing.T) {
	tests := []struct {
		name          string
		disableBypass bool
		mode          perm.Mode
		want          bool
	}{
		{"default", false, perm.ModeDefault, true},
		{"acceptEdits", false, perm.ModeAcceptEdits, true},
		{"bypass when allowed", false, perm.ModeBypass, true},
		{"bypass when disabled", true, perm.ModeBypass, false},
		{"dontAsk when bypass disabled", true, perm.ModeDontAsk, true},
		{"auto", true, perm.ModeAuto, true},
		{"explore is not a main-loop mode", false, perm.ModeExplore, false},
		{"unknown mode", false, perm.Mode("yolo"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &Settings{DisableBypass: tt.disableBypass}
			if got := s.ModeAllowed(tt.mode); got != tt.want {
				t.Errorf("ModeAllowed(%s) = %v, want %v", tt.mode, got, tt.want)
			}
		})
	}
}

// TestLoadFailsClosed checks issue 8 section 4: a settings file that is a
// broken link, in any scope, is an error naming it, never a scope without
// rules; so is --add-dir of a missing directory.
func TestLoadFailsClosed(t *testing.T) {
	for _, tc := range []struct {
		name string
		link func(l layout) string // makes the broken link, returns its path
	}{
		{"dangling project settings", func(l layout) string { return l.project }},
		{"dangling local settings", func(l layout) string { return l.local }},
		{"dangling user settings", func(l layout) string { return l.user }},
		{"dangling managed settings", func(l layout) string { return l.managed }},
		{"dangling .gen directory", func(l layout) string { return filepath.Dir(l.project) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newLayout(t)
			link := tc.link(l)
			if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(l.home, "gone.json"), link); err != nil {
				t.Fatal(err)
			}
			_, err := Load(Options{Cwd: l.cwd, Home: l.home, ManagedPath: l.managed})
			if err == nil || !strings.Contains(err.Error(), link+" is a symbolic link to a file that does not exist") {
				t.Fatalf("Load = %v, want an error naming the broken link %s", err, link)
			}
		})
	}
	t.Run("add-dir of a missing directory", func(t *testing.T) {
		l := newLayout(t)
		_, err := Load(Options{Cwd: l.cwd, Home: l.home, ManagedPath: l.managed, AddDirs: []string{"../nope"}})
		if err == nil || err.Error() != "--add-dir ../nope: not an existing directory" {
			t.Fatalf("Load = %v, want the missing --add-dir named", err)
		}
	})
	t.Run("add-dir of a file", func(t *testing.T) {
		l := newLayout(t)
		writeFile(t, filepath.Join(l.cwd, "f"), "x")
		_, err := Load(Options{Cwd: l.cwd, Home: l.home, ManagedPath: l.managed, AddDirs: []string{"f"}})
		if err == nil || !strings.Contains(err.Error(), "--add-dir f: not an existing directory") {
			t.Fatalf("Load = %v, want an error", err)
		}
	})
}

// A scope --setting-sources leaves out keeps what forbids or narrows and
// loses what grants or configures, whatever the key.
func TestLoadSourceLeftOut(t *testing.T) {
	l := newLayout(t)
	writeFile(t, l.user, `{
		"permissions": {"disableBypassPermissionsMode": "disable", "deny": ["Bash(rm:*)"]},
		"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}],
			"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo post"}]}]},
		"api": {"timeout": "10m"},
		"modelAliases": {"fast": "small-model"},
		"mcpServers": {"x": {"command": "x"}},
		"deniedMcpServers": [{"serverName": "evil"}],
		"sandbox": {"enabled": true, "network": false, "filesystem": {"allowWrite": ["/opt/out"]}}
	}`)
	writeFile(t, l.project, `{"permissions": {"allow": ["Read"]},
		"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "project.sh"}]}]}}`)
	load := func(opts Options) *Settings {
		t.Helper()
		opts.Cwd, opts.Home, opts.ManagedPath, opts.Trust = l.cwd, l.home, l.managed, true
		s, err := Load(opts)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	full := load(Options{})
	if full.Hooks.Empty() || full.API.Timeout == 0 || full.ModelAliases["fast"] == "" {
		t.Fatalf("with every scope: hooks %v, api %+v, aliases %v; the test's user file sets each", full.Hooks, full.API, full.ModelAliases)
	}
	s := load(Options{LimitSources: true, Sources: []perm.Source{perm.SourceProject}})
	var user *File
	for i := range s.Files {
		if s.Files[i].Scope == perm.SourceUser {
			user = &s.Files[i]
		}
	}
	if user == nil {
		t.Fatalf("the left-out user file is not listed: %+v", s.Files)
	}
	if s.Hooks.Has(hook.PostToolUse) || s.API.Timeout != 0 || len(s.ModelAliases) > 0 || user.MCPServers != nil {
		t.Errorf("left out, yet configures: hooks %v, api %+v, aliases %v, mcpServers %s", s.Hooks, s.API, s.ModelAliases, user.MCPServers)
	}
	// Its guard still guards, only to refuse (hook.Handler.Guard).
	if hs := s.Hooks.Matching(hook.PreToolUse, "Bash"); len(hs) != 2 || hs[0].Guard || hs[0].Command != "project.sh" || !hs[1].Guard || hs[1].Source != perm.SourceUser {
		t.Errorf("PreToolUse hooks %+v, want the project's, then the user's as a guard", hs)
	}
	// A project left out keeps no hooks: only the user's guard.
	p := load(Options{LimitSources: true, Sources: []perm.Source{}})
	if hs := p.Hooks.Matching(hook.PreToolUse, "Bash"); len(hs) != 1 || !hs[0].Guard || hs[0].Source != perm.SourceUser {
		t.Errorf("with every scope left out: PreToolUse hooks %+v, want the user's guard only", hs)
	}
	if len(user.Sandbox.Filesystem.AllowWrite) > 0 || user.Sandbox.Enabled == nil || !*user.Sandbox.Enabled || user.Sandbox.Network == nil || *user.Sandbox.Network {
		t.Errorf("sandbox = %+v, want only what narrows (enabled, no network)", user.Sandbox)
	}
	if !s.DisableBypass || len(s.MCP.Deny) == 0 || len(s.Deny) != 1 {
		t.Errorf("left out, yet lost a restriction: disableBypass %v, denied MCP servers %v, deny %v", s.DisableBypass, s.MCP.Deny, entries(s.Deny))
	}
	if got := entries(s.Allow); len(got) != 1 || got[0] != "project:Read@"+l.project {
		t.Errorf("allow = %q, want the project's Read", got)
	}
}

func TestParseSources(t *testing.T) {
	for _, tt := range []struct {
		in      []string
		want    []perm.Source
		wantErr string
	}{
		{in: []string{"user,project"}, want: []perm.Source{perm.SourceUser, perm.SourceProject}},
		{in: []string{"local", " user , local"}, want: []perm.Source{perm.SourceLocal, perm.SourceUser}},
		{in: []string{""}, want: []perm.Source{}},
		{in: []string{"user,managed"}, wantErr: `unknown settings source "managed" (want user, project or local)`},
		{in: []string{"User"}, wantErr: `unknown settings source "User" (want user, project or local)`},
	} {
		got, err := ParseSources(tt.in)
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("ParseSources(%q) error = %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseSources(%q) = %q, %v, want %q", tt.in, got, err, tt.want)
		}
	}
}
