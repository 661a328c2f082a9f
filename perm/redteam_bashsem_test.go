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

// TestRedTeamShellOptions: set and shopt options change how bash reads
// what follows: with keyword every NAME=value word is an assignment to
// the environment, nocaseglob makes .E* match .env, cdable_vars makes
// cd x go where $x names. Each was Allow in bypassPermissions mode.
func TestRedTeamShellOptions(t *testing.T) {
	f := newFixture(t)
	env := all(deny("Read(./.env)"), mode(ModeBypass))
	secrets := all(deny("Read(./secrets/**)"), mode(ModeBypass))
	curl := all(deny("Bash(curl:*)"), mode(ModeBypass))
	runRed(t, f, []redCase{
		{"keyword: BASH_ENV as an argument", curl, bashReq("set -k; bash BASH_ENV=./src/a.go -c true"), Ask, 2},
		{"keyword: set -o keyword", curl, bashReq("set -o keyword; bash BASH_ENV=./src/a.go -c true"), Ask, 2},
		{"keyword: in a cluster", curl, bashReq("set -ek; bash BASH_ENV=./src/a.go -c true"), Ask, 2},
		{"keyword: invocation", curl, bashReq("bash -k -c 'bash BASH_ENV=./src/a.go -c true'"), Ask, 2},
		{"nocaseglob", env, bashReq("shopt -s nocaseglob; cat .E*"), Ask, 2},
		{"nocaseglob: invocation", env, bashReq("bash -O nocaseglob -c 'cat .E*'"), Ask, 2},
		{"cdable_vars", secrets, bashReq("x=$(echo c2VjcmV0cw== | base64 -d); shopt -s cdable_vars; cd x; cat k"), Ask, 2},
		{"option name not static", env, bashReq("shopt -s $o; cat .E*"), Ask, 2},
		{"ok: set -euo pipefail", env, bashReq("set -euo pipefail; ls"), Allow, 3},
		{"ok: set positional parameters", env, bashReq("set -- -k; ls"), Allow, 3},
		{"ok: shopt -s globstar nullglob", env, bashReq("shopt -s globstar nullglob; ls"), Allow, 3},
		{"ok: shopt query", env, bashReq("shopt -q nocaseglob; ls"), Allow, 3},
		{"ok: bash -O extglob", env, bashReq("bash -O extglob -euo pipefail -c ls"), Allow, 3},
	})
}

// TestRedTeamJobsExec: jobs -x runs the command line after it (with job
// specs replaced by process IDs): a wrapper, like command and exec. Was
// Allow in bypassPermissions mode with the program's name decoded at run
// time, and Ask, not Deny, with it written out.
func TestRedTeamJobsExec(t *testing.T) {
	f := newFixture(t)
	curl := all(deny("Bash(curl:*)"), mode(ModeBypass))
	runRed(t, f, []redCase{
		{"jobs -x: decoded name", curl, bashReq("jobs -x $(echo Y3VybA== | base64 -d) x"), Ask, 2},
		{"jobs -x: denied program", curl, bashReq("jobs -x c'url' x"), Deny, 1},
		{"ok: jobs -l", curl, bashReq("jobs -l"), Allow, 3},
		{"ok: jobs -x another program", curl, bashReq("jobs -x ls"), Allow, 3},
	})
}

// TestRedTeamANSICBraces: bash 5.2 decodes $'\x{2e}' as ".", which the
// analysis kept as the text "\x{2e}". Was Allow in bypassPermissions mode
// under Read(./.env), and read-only in default mode for a path outside
// the workspace.
func TestRedTeamANSICBraces(t *testing.T) {
	f := newFixture(t)
	env := all(deny("Read(./.env)"), mode(ModeBypass))
	runRed(t, f, []redCase{
		{"hex in braces: denied path", env, bashReq(`cat $'\x{2e}env'`), Deny, 1},
		{"hex in braces: denied program", all(deny("Bash(curl:*)"), mode(ModeBypass)), bashReq(`$'\x{63}url' x`), Deny, 1},
		{"hex in braces: outside the workspace", nil, bashReq(`cat $'\x{2e}\x{2e}/outside/data'`), Ask, 7},
		{"ok: hex in braces in the workspace", nil, bashReq(`cat $'src/\x{61}.go'`), Allow, 7},
	})
}

// TestRedTeamCompoundAssign: a declaration with -a or -A reads a value
// that looks like (...) once expanded as a compound array assignment,
// whose elements bash expands, $(...) included: a string, or a value read
// as the script runs, is code. Each was Allow in bypassPermissions mode.
func TestRedTeamCompoundAssign(t *testing.T) {
	f := newFixture(t)
	curl := all(deny("Bash(curl:*)"), mode(ModeBypass))
	runRed(t, f, []redCase{
		{"quoted compound value", curl, bashReq(`declare -a y='($(c\url x))'`), Deny, 1},
		{"quoted compound value, -A", curl, bashReq(`typeset -A y='([k]=$(c\url x))'`), Deny, 1},
		{"value from a variable", curl, bashReq(`x='($(c\url x))'; declare -a y=$x`), Ask, 2},
		{"value read from a file", curl, bashReq(`read x < src/a.go; local -a y="$x"`), Ask, 2},
		{"value of a substitution", curl, bashReq(`readonly -a y="$(cat src/a.go)"`), Ask, 2},
		{"word not static", curl, bashReq(`declare -a "$v"`), Ask, 2},
		{"ok: literal array", curl, bashReq(`declare -a y=(1 "$x"); ls`), Allow, 3},
		{"ok: scalar from an argument", curl, bashReq(`declare y="$1"; local z=$(date); ls`), Allow, 3},
	})
}

// TestRedTeamHeredocDelimiter: bash decodes a here-document delimiter
// written with $'...' ($'\x45' is E), the parser took it as written and
// read on to a later line "\x45", hiding the commands between. Was Allow
// in bypassPermissions mode.
func TestRedTeamHeredocDelimiter(t *testing.T) {
	f := newFixture(t)
	curl := all(deny("Bash(curl:*)"), mode(ModeBypass))
	runRed(t, f, []redCase{
		{"$'...' delimiter", curl, bashReq("cat <<$'\\x45'\nx\nE\nc\\url y\n\\x45\n"), Ask, 2},
		{"$'...' delimiter, <<-", all(deny("Read(./.env)"), mode(ModeBypass)), bashReq("cat <<-$'\\x45'\n\tx\n\tE\ncat .e\"\"nv\n\\x45\n"), Ask, 2},
		{"ok: $'...' delimiter without an escape", curl, bashReq("cat <<$'E'\nx\nE\nls\n"), Allow, 3},
	})
}

// TestRedTeamCompoundOnArray: without -a or -A, declare, typeset and
// local still read a value that looks like (...) as a compound assignment
// when the name is an array already. Each was Allow in
// bypassPermissions mode.
func TestRedTeamCompoundOnArray(t *testing.T) {
	f := newFixture(t)
	curl := all(deny("Bash(curl:*)"), mode(ModeBypass))
	runRed(t, f, []redCase{
		{"array assigned before", curl, bashReq(`read x < src/a.go; y=(); declare y="$x"`), Ask, 2},
		{"array element assigned", curl, bashReq(`read x < src/a.go; y[0]=1; typeset y=$x`), Ask, 2},
		{"array declared", curl, bashReq(`read x < src/a.go; f() { local -a y; local y="$x"; }; f`), Ask, 2},
		{"coprocess", curl, bashReq(`read x < src/a.go; coproc y { :; }; declare y="$x"`), Ask, 2},
		{"array read", curl, bashReq(`read -a y < src/a.go; declare y="${y[1]}"`), Ask, 2},
		{"bash's array", curl, bashReq(`read x < src/a.go; declare DIRSTACK="$x"`), Ask, 2},
		{"ok: no array", curl, bashReq(`y=(1); declare z="$1"; local w=$(date); ls`), Allow, 3},
	})
}
