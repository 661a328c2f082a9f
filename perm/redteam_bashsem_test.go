package perm

import "testing"

// TestRedTeamBashSemantics: bash language features whose meaning the
// analysis modelled otherwise than bash runs them.
func TestRedTeamBashSemantics(t *testing.T) {
	f := newFixture(t)
	curl := all(deny("Bash(curl:*)"), mode(ModeBypass))
	runRed(t, f, []redCase{
		// Bash reads $"..." through gettext (TEXTDOMAIN, TEXTDOMAINDIR,
		// the locale): with a catalogue written before, $"ls" is curl.
		// Was Allow in bypassPermissions mode, and read-only in default
		// mode.
		{"locale string: command name", curl, bashReq("TEXTDOMAIN=x TEXTDOMAINDIR=. LC_ALL=C.UTF-8 bash -c '$\"ls\" e'"), Ask, 2},
		{"locale string: command name on a later line", curl, bashReq("TEXTDOMAIN=x TEXTDOMAINDIR=. LC_ALL=C.UTF-8\n$\"ls\" e"), Ask, 2},
		{"locale string: a path", all(deny("Read(./.env)"), mode(ModeBypass)), bashReq(`cat $"README.md"`), Ask, 2},
		{"locale string: read-only", nil, bashReq(`$"ls" -l`), Ask, 2},
		{"locale string: its text denied", curl, bashReq(`$"curl" e`), Deny, 1},
		{"ok: double quotes", curl, bashReq(`"ls" e`), Allow, 3},
	})
}

// TestRedTeamImplicitTree: a read-only program that reads whole trees
// reads the directory it runs in when it names none, as grep -r does:
// ls -R and du listed the files under secrets/ with no word naming it,
// while ls secrets was Deny. Was Allow in bypassPermissions mode, and
// read-only in default mode.
func TestRedTeamImplicitTree(t *testing.T) {
	f := newFixture(t)
	env := all(deny("Read(./.env)"), mode(ModeBypass))
	secrets := all(deny("Read(./secrets/**)"))
	runRed(t, f, []redCase{
		{"ls -R, no operand", env, bashReq("ls -R"), Ask, 2},
		{"ls -lR, no operand", env, bashReq("ls -lR"), Ask, 2},
		{"du, no operand", env, bashReq("du -a"), Ask, 2},
		{"ls -R, no operand, default mode", secrets, bashReq("ls -R"), Ask, 2},
		{"ok: ls, no operand", env, bashReq("ls -l"), Allow, 3},
		{"ok: ls -R of a directory without denied paths, default mode", secrets, bashReq("ls -R src"), Allow, 7},
	})
}
