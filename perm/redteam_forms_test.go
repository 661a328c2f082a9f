package perm

import "testing"

// TestRedTeamProgramSpellings: other names a denied command line goes by.
// Each was Allow in bypassPermissions mode.
func TestRedTeamProgramSpellings(t *testing.T) {
	f := newFixture(t)
	push := all(deny("Bash(git push:*)"), mode(ModeBypass))
	runRed(t, f, []redCase{
		// git runs git-SUB from its exec-path; the dashed program is
		// the subcommand (/usr/libexec/git-core on Fedora and macOS).
		{"git dashed: bare", push, bashReq("git-push origin main"), Deny, 1},
		{"git dashed: exec-path", push, bashReq("/usr/libexec/git-core/git-push origin"), Deny, 1},
		{"git dashed: other subcommand", push, bashReq("git-status"), Allow, 3},
	})
}
