package perm

import (
	"os/user"
	"path/filepath"
	"strings"
	"testing"
)

// Commands inherit gen's environment: the configuration files git's
// variables there name hold aliases too, and configuration the variables
// carry themselves, or a file named from a directory the gate does not
// follow, leaves the aliases unknown.
func TestGitEnvironmentConfig(t *testing.T) {
	f := newFixture(t)
	writeTree(t, f.root, map[string]string{
		".git/HEAD":   "ref: refs/heads/main\n",
		".git/config": "[core]\n\tbare = false\n",
	})
	writeTree(t, f.outside, map[string]string{
		"global.cfg": "[alias]\n\tp = push\n\tx = !touch pwned\n",
		"system.cfg": "[alias]\n\tq = push\n",
	})
	denyPush := all(deny("Bash(git push:*)"), mode(ModeBypass))
	for _, tc := range []struct {
		name, env, val string
		cmd            string
		want           Decision
		step           int
		reason         string
	}{
		{"GIT_CONFIG_GLOBAL alias to a denied subcommand", "GIT_CONFIG_GLOBAL", filepath.Join(f.outside, "global.cfg"), "git p origin", Deny, 1, "git alias"},
		{"GIT_CONFIG_GLOBAL shell alias", "GIT_CONFIG_GLOBAL", filepath.Join(f.outside, "global.cfg"), "git x", Ask, 2, "shell code: x = !touch pwned"},
		{"GIT_CONFIG_SYSTEM alias to a denied subcommand", "GIT_CONFIG_SYSTEM", filepath.Join(f.outside, "system.cfg"), "git q origin", Deny, 1, "git alias"},
		{"a relative GIT_CONFIG_GLOBAL", "GIT_CONFIG_GLOBAL", "global.cfg", "git p origin", Ask, 2, "GIT_CONFIG_GLOBAL (global.cfg) cannot be read"},
		{"GIT_CONFIG_COUNT", "GIT_CONFIG_COUNT", "1", "git p origin", Ask, 2, "GIT_CONFIG_COUNT cannot be read"},
		{"GIT_CONFIG_PARAMETERS", "GIT_CONFIG_PARAMETERS", "'alias.p'='push'", "git p origin", Ask, 2, "GIT_CONFIG_PARAMETERS cannot be read"},
		{"ok: GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_GLOBAL", "/dev/null", "git p origin", Allow, 3, ""},
		{"ok: no alias of that name", "GIT_CONFIG_GLOBAL", filepath.Join(f.outside, "global.cfg"), "git status", Allow, 3, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(tc.env, tc.val)
			p := &Policy{Mode: ModeDefault, Workspace: f.ws()}
			denyPush(p)
			got := Evaluate(bashReq(tc.cmd), p)
			if got.Decision != tc.want || got.Step != tc.step || !strings.Contains(got.Reason, tc.reason) {
				t.Errorf("%s=%s: Evaluate(%q) = %v step %d %q; want %v step %d containing %q",
					tc.env, tc.val, tc.cmd, got.Decision, got.Step, got.Reason, tc.want, tc.step, tc.reason)
			}
		})
	}
}

// TestGitIncludeUserHome: an include path under a user's home directory
// (~USER/...) is followed as git follows it, and one under a user the gate
// cannot look up leaves the aliases unknown.
func TestGitIncludeUserHome(t *testing.T) {
	u, err := user.Current()
	if err != nil || u.HomeDir == "" || !filepath.IsAbs(u.HomeDir) {
		t.Skip("no current user's home")
	}
	f := newFixture(t)
	writeTree(t, f.outside, map[string]string{"more.cfg": "[alias]\n\tzp = push\n"})
	rel, err := filepath.Rel(u.HomeDir, filepath.Join(f.outside, "more.cfg"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		include string
		want    Decision
		step    int
		reason  string
	}{
		{"~" + u.Username + "/" + filepath.ToSlash(rel), Deny, 1, "git alias"},
		{"~no-such-user-of-gen/x.cfg", Ask, 2, "~no-such-user-of-gen/x.cfg"},
		{"%(prefix)/etc/x.cfg", Ask, 2, "%(prefix)/etc/x.cfg"},
	} {
		writeTree(t, f.root, map[string]string{
			".git/HEAD":   "ref: refs/heads/main\n",
			".git/config": "[include]\n\tpath = " + tc.include + "\n",
		})
		p := &Policy{Mode: ModeDefault, Workspace: f.ws()}
		all(deny("Bash(git push:*)"), mode(ModeBypass))(p)
		got := Evaluate(bashReq("git zp origin"), p)
		if got.Decision != tc.want || got.Step != tc.step || !strings.Contains(got.Reason, tc.reason) {
			t.Errorf("include %s: Evaluate(git zp origin) = %v step %d %q; want %v step %d containing %q",
				tc.include, got.Decision, got.Step, got.Reason, tc.want, tc.step, tc.reason)
		}
	}
}
