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
		sed := pol("Bash(sed:*)")
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
			// sed -i renames the file to its backup's name, where the
			// suffix says (each "*" the file's name).
			redCase{string(m) + ": sed -i backup elsewhere", sed, bashReq("sed -i'" + f.outside + "/*' s/x/y/ src/a.go"), Ask, 7},
			redCase{string(m) + ": sed -i backup names a dotfile", sed, bashReq("sed -irc s/x/y/ .bash"), Ask, 2},
			redCase{string(m) + ": sed --in-place= backup names a dotfile", sed, bashReq("sed --in-place=nv s/x/y/ .e"), Ask, 2},
			redCase{string(m) + ": sed -i --follow-symlinks backup", sed, bashReq("sed -i.b --follow-symlinks s/x/y/ src/a.go"), Ask, 2},
			// -E is a flag: the script is the operand after it.
			redCase{string(m) + ": sed -i -E", sed, bashReq("sed -i -E s/x/y/ " + out), Ask, 7},
			redCase{string(m) + ": sed -iE", sed, bashReq("sed -iE s/x/y/ " + out), Ask, 7},
			// --in abbreviates --in-place.
			redCase{string(m) + ": sed --in", sed, bashReq("sed --in s/x/y/ " + out), Ask, 7},
			redCase{string(m) + ": sed -i.bak in the workspace", sed, bashReq("sed -i.bak s/x/y/ src/a.go"), Allow, 0},
			redCase{string(m) + ": sed -E -i in the workspace", sed, bashReq("sed -E -i s/x/y/ src/a.go"), Allow, 0},
		)
	}
	runRed(t, f, cases)
}
