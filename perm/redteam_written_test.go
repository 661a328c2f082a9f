package perm

import "testing"

// TestRedTeamWrittenCode: a file the command writes holds code no rule
// has read; run as a program, sourced or given to a shell, an
// interpreter or make, it is at least Ask, as the same code piped to a
// shell is. Was Allow in bypassPermissions mode under Bash(curl:*): the
// file was taken for the project's own script.
func TestRedTeamWrittenCode(t *testing.T) {
	f := newFixture(t)
	curl := all(deny("Bash(curl:*)"), mode(ModeBypass))
	runRed(t, f, []redCase{
		{"written: sourced", curl, bashReq(`printf '\x63url x' > s.sh; . s.sh`), Ask, 2},
		{"written: source, decoded", curl, bashReq(`echo Y3VybCB4 | base64 -d > s.sh; source ./s.sh`), Ask, 2},
		{"written: appended", curl, bashReq(`printf '\x63url x' >> src/a.go; . src/a.go`), Ask, 2},
		{"written: shell operand", curl, bashReq(`printf '\x63url x' > s.sh; bash s.sh`), Ask, 2},
		{"written: tee", curl, bashReq(`echo Y3VybCB4 | base64 -d | tee s.sh; sh s.sh`), Ask, 2},
		{"written: program", curl, bashReq(`echo Y3VybCB4 | base64 -d > s.sh; chmod +x s.sh; ./s.sh`), Ask, 2},
		{"written: outside the workspace", curl, bashReq(`printf '\x63url x' > /tmp/s.sh; . /tmp/s.sh`), Ask, 2},
		{"written: nested source", curl, bashReq(`printf '\x63url x' > s.sh; bash -c 'source s.sh'`), Ask, 2},
		{"written: interpreter script", curl, bashReq(`printf 'import os\nos.system("\x63url x")' > s.py; python3 s.py`), Ask, 2},
		{"written: makefile", curl, bashReq(`printf 'a:\n\t\x63url x' > m; make -f m`), Ask, 2},
		{"not written: the project's script", curl, bashReq(`printf x > out.txt; bash src/a.go`), Allow, 3},
		{"not written: reading what it wrote", curl, bashReq(`printf x > out.txt; cat out.txt`), Allow, 3},
	})
}
