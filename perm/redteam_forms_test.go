package perm

import "testing"

// TestRedTeamProgramSpellings: other names a denied command line goes by.
// Each was Allow in bypassPermissions mode.
func TestRedTeamProgramSpellings(t *testing.T) {
	f := newFixture(t)
	push := all(deny("Bash(git push:*)"), mode(ModeBypass))
	publish := all(deny("Bash(npm publish:*)"), mode(ModeBypass))
	install := all(deny("Bash(npm install:*)"), mode(ModeBypass))
	runRed(t, f, []redCase{
		// git runs git-SUB from its exec-path; the dashed program is
		// the subcommand (/usr/libexec/git-core on Fedora and macOS).
		{"git dashed: bare", push, bashReq("git-push origin main"), Deny, 1},
		{"git dashed: exec-path", push, bashReq("/usr/libexec/git-core/git-push origin"), Deny, 1},
		{"git dashed: other subcommand", push, bashReq("git-status"), Allow, 3},
		// npm takes a unique prefix of a command or an alias for it,
		// and its options before the command.
		{"npm: abbreviated", publish, bashReq("npm pub"), Deny, 1},
		{"npm: abbreviated further", publish, bashReq("npm pu --tag x"), Deny, 1},
		{"npm: option before the command", publish, bashReq("npm --workspace x publish"), Deny, 1},
		{"npm: option with a value before an abbreviation", publish, bashReq("npm -w x publ"), Deny, 1},
		{"npm: flag before the command", publish, bashReq("npm --dry-run publish"), Deny, 1},
		{"npm: by path", publish, bashReq("/usr/bin/npm pub"), Deny, 1},
		{"npm: alias", install, bashReq("npm i left-pad"), Deny, 1},
		{"npm: alias abbreviated", install, bashReq("npm isnt left-pad"), Deny, 1},
		{"npm: camelCase", all(deny("Bash(npm install-test:*)"), mode(ModeBypass)), bashReq("npm installTest"), Deny, 1},
		{"npm: another command", publish, bashReq("npm run publish"), Allow, 3},
		{"npm: another abbreviation", install, bashReq("npm installTest"), Allow, 3},
	})
}
