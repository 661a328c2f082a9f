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
