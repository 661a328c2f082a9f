package settings

import (
	"slices"
	"testing"

	"github.com/gen-run/gen/hook"
	"github.com/gen-run/gen/perm"
)

// hookCommands lists "source:command" for the hooks of ev that match
// subject, in the order they run.
func hookCommands(c hook.Config, ev hook.Event, subject string) []string {
	var out []string
	for _, h := range c.Matching(ev, subject) {
		out = append(out, string(h.Source)+":"+h.Command)
	}
	return out
}

func hooksJSON(cmd string) string {
	return `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "` + cmd + `"}]}]}}`
}

func TestHooksMerge(t *testing.T) {
	l := newLayout(t)
	writeFile(t, l.managed, hooksJSON("managed.sh"))
	writeFile(t, l.local, hooksJSON("local.sh"))
	writeFile(t, l.project, hooksJSON("project.sh"))
	writeFile(t, l.user, hooksJSON("user.sh"))
	s, err := Load(Options{Cwd: l.cwd, Home: l.home, ManagedPath: l.managed})
	if err != nil {
		t.Fatal(err)
	}
	got := hookCommands(s.Hooks, hook.PreToolUse, "Bash")
	want := []string{"managed:managed.sh", "local:local.sh", "project:project.sh", "user:user.sh"}
	if !slices.Equal(got, want) {
		t.Errorf("hooks %q, want %q (every scope, highest precedence first)", got, want)
	}
	if got := hookCommands(s.Hooks, hook.PreToolUse, "Read"); len(got) != 0 {
		t.Errorf("a Bash matcher matched Read: %q", got)
	}
}

func TestManagedHooksOnly(t *testing.T) {
	l := newLayout(t)
	writeFile(t, l.managed, `{"allowManagedHooksOnly": true, "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "audit.sh"}]}]},
 "permissions": {}}`)
	writeFile(t, l.project, hooksJSON("project.sh"))
	writeFile(t, l.user, `{"allowManagedHooksOnly": false, "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "mine.sh"}]}]}}`)
	s, err := Load(Options{Cwd: l.cwd, Home: l.home, ManagedPath: l.managed})
	if err != nil {
		t.Fatal(err)
	}
	if !s.ManagedHooksOnly {
		t.Fatal("ManagedHooksOnly not set")
	}
	if got := hookCommands(s.Hooks, hook.Stop, ""); !slices.Equal(got, []string{"managed:audit.sh"}) {
		t.Errorf("Stop hooks %q, want only the managed one", got)
	}
	if s.Hooks.Has(hook.PreToolUse) {
		t.Error("project PreToolUse hook kept under allowManagedHooksOnly")
	}
	want := []string{
		l.user + `:1: allowManagedHooksOnly is read only from managed settings; ignored`,
		l.project + `: ignoring hooks: allowManagedHooksOnly is set in ` + l.managed,
		l.user + `: ignoring hooks: allowManagedHooksOnly is set in ` + l.managed,
	}
	if !slices.Equal(s.Warnings, want) {
		t.Errorf("warnings\n got %q\nwant %q", s.Warnings, want)
	}

	// Only managed settings can turn it on.
	l2 := newLayout(t)
	writeFile(t, l2.user, `{"allowManagedHooksOnly": true}`)
	writeFile(t, l2.project, hooksJSON("project.sh"))
	s2, err := Load(Options{Cwd: l2.cwd, Home: l2.home, ManagedPath: l2.managed})
	if err != nil {
		t.Fatal(err)
	}
	if s2.ManagedHooksOnly || !s2.Hooks.Has(hook.PreToolUse) {
		t.Errorf("a user file set allowManagedHooksOnly: %v", s2.ManagedHooksOnly)
	}
}

// Claude Code's disableAllHooks turns hooks off: every one where managed
// settings set it, all but managed ones where the user's do, and in a
// project only once it is trusted (a repository must not turn off the
// user's guard hooks). It was an unknown key, and every hook ran.
func TestDisableAllHooks(t *testing.T) {
	stop := func(cmd string) string {
		return `"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "` + cmd + `"}]}]}`
	}
	for _, c := range []struct {
		name                   string
		managed, user, project string
		trusted                bool
		want                   []string
	}{
		{"managed", `{"disableAllHooks": true, ` + stop("audit.sh") + `}`, `{` + stop("mine.sh") + `}`, `{}`, false, nil},
		{"user", `{` + stop("audit.sh") + `}`, `{"disableAllHooks": true, ` + stop("mine.sh") + `}`, `{` + stop("proj.sh") + `}`, true, []string{"managed:audit.sh"}},
		{"untrusted project", `{` + stop("audit.sh") + `}`, `{` + stop("mine.sh") + `}`, `{"disableAllHooks": true}`, false, []string{"managed:audit.sh", "user:mine.sh"}},
		{"trusted project", `{` + stop("audit.sh") + `}`, `{` + stop("mine.sh") + `}`, `{"disableAllHooks": true}`, true, []string{"managed:audit.sh"}},
		{"false", `{` + stop("audit.sh") + `}`, `{"disableAllHooks": false, ` + stop("mine.sh") + `}`, `{}`, false, []string{"managed:audit.sh", "user:mine.sh"}},
	} {
		l := newLayout(t)
		writeFile(t, l.managed, c.managed)
		writeFile(t, l.user, c.user)
		writeFile(t, l.project, c.project)
		s, err := Load(Options{Cwd: l.cwd, Home: l.home, ManagedPath: l.managed, Trust: c.trusted})
		if err != nil {
			t.Fatal(err)
		}
		if got := hookCommands(s.Hooks, hook.Stop, ""); !slices.Equal(got, c.want) {
			t.Errorf("%s: Stop hooks %q, want %q", c.name, got, c.want)
		}
	}
	l := newLayout(t)
	writeFile(t, l.user, "{\n\"disableAllHooks\": \"yes\"}")
	if _, err := Load(Options{Cwd: l.cwd, Home: l.home, ManagedPath: l.managed}); err == nil || err.Error() != l.user+":2: disableAllHooks must be true or false" {
		t.Errorf("a malformed disableAllHooks: %v", err)
	}
}

// A Claude Code settings file with a PreCompact hook loads: the hook is
// warned about at its line and never runs, and the file's other hooks do.
func TestHooksClaudeEventsWarned(t *testing.T) {
	l := newLayout(t)
	writeFile(t, l.project, `{"hooks": {
  "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "a.sh"}]}],
  "PreCompact": [{"matcher": "", "hooks": [{"type": "command", "command": "notify-send hi"}]}]
}}`)
	s, err := Load(Options{Cwd: l.cwd, Home: l.home, ManagedPath: l.managed})
	if err != nil {
		t.Fatal(err)
	}
	if got := hookCommands(s.Hooks, hook.PreToolUse, "Bash"); !slices.Equal(got, []string{"project:a.sh"}) {
		t.Errorf("PreToolUse hooks = %q, want a.sh", got)
	}
	want := []string{l.project + `:3: hooks.PreCompact: gen has no PreCompact event (a Claude Code one); its hooks never run`}
	if !slices.Equal(s.Warnings, want) {
		t.Errorf("warnings\n got %q\nwant %q", s.Warnings, want)
	}
}

func TestHooksErrors(t *testing.T) {
	tests := []struct{ name, file, want string }{
		{"unknown event", `{
  "hooks": {
    "PreTool": []
  }
}`, `{project}:3: hooks.PreTool: unknown hook event (want one of SessionStart, UserPromptSubmit, SubagentStart, PreToolUse, PermissionRequest, Notification, PermissionDenied, PostToolUse, PostToolUseFailure, SubagentStop, Stop, SessionEnd)`},
		{"bad timeout", `{"hooks": {"PreToolUse": [
  {"matcher": "Bash", "hooks": [
    {"type": "command", "command": "x.sh"},
    {"type": "command", "command": "y.sh",
     "timeout": -1}]}]}}`, `{project}:5: hooks.PreToolUse[0].hooks[1].timeout: must be a positive number of seconds, at most 86400`},
		{"bad matcher", `{"hooks": {"Stop": [{"hooks": []},
 {"matcher": "(", "hooks": []}]}}`, "{project}:2: hooks.Stop[1].matcher: invalid regular expression \"(\": error parsing regexp: missing closing ): `(`"},
		{"unknown key", `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "a",
  "once": true}]}]}}`, `{project}:2: hooks.Stop[0].hooks[0].once: unknown key (want one of type, command, timeout, statusMessage, if, shell, async)`},
		{"matcher naming no tool", `{"hooks": {"PreToolUse": [{"hooks": []},
 {"matcher": "Bassh", "hooks": []}]}}`, `{project}:2: hooks.PreToolUse[1].matcher: "Bassh" names no tool (matchers are exact, case-sensitive tool names): did you mean "Bash"?`},
		// The line is the second key's: the one a person removes.
		{"event twice", `{"hooks": {
  "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh"}]}],
  "PreToolUse": []}}`, `{project}:3: hooks.PreToolUse: duplicate key: a JSON object keeps only one of them, so which applies would be a guess; remove one`},
		{"not an object", `{"hooks": []}`, `{project}:1: hooks: must be an object mapping event names to lists of matcher groups`},
		{"managed-only flag not a bool", `{"allowManagedHooksOnly": "yes"}`, `{project}:1: allowManagedHooksOnly must be true or false`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := newLayout(t)
			writeFile(t, l.project, tt.file)
			_, err := Load(Options{Cwd: l.cwd, Home: l.home, ManagedPath: l.managed})
			if err == nil || err.Error() != l.expand(tt.want) {
				t.Errorf("error\n got %v\nwant %s", err, l.expand(tt.want))
			}
		})
	}
}

// Settings in an additional directory are never read, hooks included.
func TestHooksNotFromAdditionalDirectories(t *testing.T) {
	l := newLayout(t)
	extra := t.TempDir()
	writeFile(t, extra+"/.gen/settings.json", hooksJSON("evil.sh"))
	writeFile(t, extra+"/.gen/settings.local.json", hooksJSON("evil2.sh"))
	writeFile(t, l.project, `{"permissions": {"additionalDirectories": ["`+extra+`"]}}`)
	s, err := Load(Options{Cwd: l.cwd, Home: l.home, ManagedPath: l.managed, AddDirs: []string{extra}})
	if err != nil {
		t.Fatal(err)
	}
	if !s.Hooks.Empty() {
		t.Errorf("hooks loaded from an additional directory: %q", hookCommands(s.Hooks, hook.PreToolUse, "Bash"))
	}
	if !slices.Contains(s.Workspace.Dirs, extra) {
		t.Errorf("the additional directory is not in the workspace: %v", s.Workspace.Dirs)
	}
}

// A disableAllHooks the command line gives (--settings) turns off the
// hooks of every file but managed settings', and leaves the user's
// PreToolUse and PermissionRequest hooks guarding the calls, only to
// refuse (hook.Handler.Guard): a command line cannot turn off the user's
// guard, as it cannot drop the user's deny rules. Where a file sets it,
// or managed settings allow only managed hooks, nothing is kept.
func TestDisableAllHooksFromTheCommandLine(t *testing.T) {
	hooks := `"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh"}]}],
		"PermissionRequest": [{"hooks": [{"type": "command", "command": "answer.sh"}]}],
		"Stop": [{"hooks": [{"type": "command", "command": "stop.sh"}]}]}`
	for _, c := range []struct {
		name, managed, user, flag string
		guards                    bool
	}{
		{"the command line", `{}`, `{` + hooks + `}`, `{"disableAllHooks": true}`, true},
		{"the command line and the user", `{}`, `{"disableAllHooks": true, ` + hooks + `}`, `{"disableAllHooks": true}`, false},
		{"the command line under allowManagedHooksOnly", `{"allowManagedHooksOnly": true}`, `{` + hooks + `}`, `{"disableAllHooks": true}`, false},
		{"the command line's own hooks", `{}`, `{}`, `{"disableAllHooks": true, ` + hooks + `}`, false},
	} {
		l := newLayout(t)
		writeFile(t, l.managed, c.managed)
		writeFile(t, l.user, c.user)
		// A trusted project's hooks are not the user's: they are off.
		writeFile(t, l.project, `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "project.sh"}]}]}}`)
		s, err := Load(Options{Cwd: l.cwd, Home: l.home, ManagedPath: l.managed, Trust: true, FlagSettings: []byte(c.flag), FlagSettingsPath: "--settings"})
		if err != nil {
			t.Fatal(err)
		}
		if s.Hooks.Has(hook.Stop) {
			t.Errorf("%s: a Stop hook runs", c.name)
		}
		for _, ev := range []hook.Event{hook.PreToolUse, hook.PermissionRequest} {
			hs := s.Hooks.Matching(ev, "Bash")
			if !c.guards {
				if len(hs) > 0 {
					t.Errorf("%s: %s hooks %+v, want none", c.name, ev, hs)
				}
				continue
			}
			if len(hs) != 1 || !hs[0].Guard || hs[0].Source != perm.SourceUser {
				t.Errorf("%s: %s hooks %+v, want the user's, as a guard", c.name, ev, hs)
			}
		}
	}
}
