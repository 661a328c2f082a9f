package perm

import "testing"

// TestRedTeamWriterOptions: a writer an allow rule (or a session grant)
// covers writes outside the workspace only with a person's say-so; the
// files it writes are read from its options as the program reads them.
// Each row was Allow (the written file was not among the command's
// write targets).
func TestRedTeamWriterOptions(t *testing.T) {
	f := newFixture(t)
	out := f.outside + "/data"
	var cases []redCase
	for _, m := range []Mode{ModeDefault, ModeAcceptEdits} {
		pol := func(rule string) func(*Policy) { return all(allow(rule), mode(m)) }
		chmod, chown, chgrp := pol("Bash(chmod:*)"), pol("Bash(chown:*)"), pol("Bash(chgrp:*)")
		cases = append(cases,
			// chmod takes a mode in an option word for the mode, and
			// every operand is then a file.
			redCase{string(m) + ": chmod -w", chmod, bashReq("chmod -w " + out), Ask, 7},
			redCase{string(m) + ": chmod -w,u+x", chmod, bashReq("chmod -w,u+x " + out), Ask, 7},
			redCase{string(m) + ": chmod -R -w", chmod, bashReq("chmod -R -w " + f.outside), Ask, 7},
			// --reference gives the mode or owner: no operand is one.
			redCase{string(m) + ": chmod --reference", chmod, bashReq("chmod --reference=src/a.go " + out), Ask, 7},
			redCase{string(m) + ": chmod --ref", chmod, bashReq("chmod --ref src/a.go " + out), Ask, 7},
			redCase{string(m) + ": chown --reference", chown, bashReq("chown --reference=src/a.go " + out), Ask, 7},
			redCase{string(m) + ": chgrp --reference", chgrp, bashReq("chgrp --reference=src/a.go " + out), Ask, 7},
			// Still the mode: the operands after it are the files.
			redCase{string(m) + ": chmod MODE in the workspace", chmod, bashReq("chmod u+x src/a.go"), Allow, 0},
			redCase{string(m) + ": chmod -R MODE in the workspace", chmod, bashReq("chmod -R go-w src"), Allow, 0},
			redCase{string(m) + ": chmod -- -w in the workspace", chmod, bashReq("chmod -- -w src/a.go"), Allow, 0},
			redCase{string(m) + ": chown OWNER in the workspace", chown, bashReq("chown me src/a.go"), Allow, 0},
		)
	}
	runRed(t, f, cases)
}
