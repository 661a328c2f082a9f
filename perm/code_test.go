package perm

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gen-run/gen/internal/testtree"
)

// TestCode: a call that writes a file a hook runs (Policy.Code), or a
// workspace directory holding one, is asked in every mode, whatever the
// path it goes through; reading it, and writing anything else, is decided
// as before. The sandbox keeps the file read-only (DeniedPaths).
func TestCode(t *testing.T) {
	base := testtree.Dir(t)
	root := filepath.Join(base, "proj")
	hook := filepath.Join(root, "scripts", "hook.sh")
	testtree.Write(t, root, map[string]string{"scripts/hook.sh": "#!/bin/sh\n", "scripts/other.sh": "#!/bin/sh\n", "src/a.go": "#!/bin/sh\n"})
	if err := os.Symlink(hook, root+"/link"); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []Mode{ModeAcceptEdits, ModeBypass} {
		p := &Policy{Mode: mode, Workspace: Workspace{Cwd: root, Root: root, Home: filepath.Join(base, "home")}, Code: []string{hook}}
		p.Compile()
		for _, c := range []struct {
			call string
			ask  bool
		}{
			{"Edit(scripts/hook.sh)", true},
			{"Write(link)", true},
			{"Bash(echo x > scripts/hook.sh)", true},
			{"Bash(echo x >> link)", true},
			{"Bash(cp /tmp/evil scripts/hook.sh)", true},
			{"Bash(sed -i s/a/b/ scripts/./hook.sh)", true},
			{"Bash(mv scripts scripts.old)", true},
			{"Bash(chmod +w " + hook + ")", true},
			{"Bash(cd scripts && tee hook.sh < /dev/null)", true},
			{"Edit(scripts/other.sh)", false},
			{"Edit(src/a.go)", false},
			{"Bash(cat scripts/hook.sh)", false},
			{"Bash(touch src/b.go)", false},
			{"Bash(mkdir " + root + "/new)", false},
			{"Read(scripts/hook.sh)", false},
		} {
			req, err := ParseCall(c.call)
			if err != nil {
				t.Fatal(err)
			}
			r := Evaluate(req, p)
			asked := r.Decision == Ask && r.Step == 2 && strings.Contains(r.Reason, "a file a hook or MCP server runs")
			if asked != c.ask {
				t.Errorf("%s: %s: %v step %d (%s), want the hook file asked: %v", mode, c.call, r.Decision, r.Step, r.Reason, c.ask)
			}
		}
	}
	p := &Policy{Workspace: Workspace{Cwd: root, Root: root}, Code: []string{hook, filepath.Join(root, "gone.sh")}}
	if _, edit := p.DeniedPaths(); !slices.Equal(edit, []string{hook}) {
		t.Errorf("DeniedPaths edit = %q, want the hook file", edit)
	}
}
