package hook

import (
	"slices"
	"strings"

	shell "github.com/gen-run/gen/perm/bash"
	"github.com/gen-run/gen/workspace"
)

// maxFiles bounds the files Files returns.
const maxFiles = 256

// Files returns the existing regular files, symbolic links resolved, that
// the hook commands of c name with a static word: the scripts and programs
// they run (./scripts/check.sh, python3 tools/lint.py,
// "$CLAUDE_PROJECT_DIR"/hooks/x.sh) and any other file an argument names.
// Hooks run outside the permission gate and the kernel sandbox, so a
// change to one of these files is a change to what runs unchecked: the
// gate asks before a call writes one (perm.Policy.Code).
//
// Words are read as the hook's shell would in cwd, where hooks run, with
// the project directory variables as projectDir and "~" as home. A word
// the parse cannot make static is not followed: a file a hook reaches
// only through a variable, or through another file it reads (a script it
// sources, the package.json of `npm run`), is not found.
func (c Config) Files(cwd, projectDir, home string) []string {
	var out []string
	for _, gs := range c.groups {
		for _, g := range gs {
			for _, h := range g.Hooks {
				out = commandFiles(out, h.Command, cwd, projectDir, home)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// projectVars are the spellings of the variables run sets to the project
// directory.
var projectVars = []string{"${GEN_PROJECT_DIR}", "$GEN_PROJECT_DIR", "${CLAUDE_PROJECT_DIR}", "$CLAUDE_PROJECT_DIR"}

// commandFiles appends to out the files the hook command cmd names.
func commandFiles(out []string, cmd, cwd, projectDir, home string) []string {
	if projectDir != "" && plainPath(projectDir) {
		for _, v := range projectVars {
			cmd = strings.ReplaceAll(cmd, v, projectDir)
		}
	}
	s, err := shell.Parse(cmd)
	if err != nil {
		return out
	}
	for _, c := range s.Commands {
		for _, w := range c.Words {
			if len(out) >= maxFiles {
				return out
			}
			if !w.Static || w.Glob || w.Value == "" || strings.HasPrefix(w.Value, "-") {
				continue
			}
			p := w.Value
			if strings.HasPrefix(p, "~") && !w.Tilde {
				p = "./" + p // a quoted ~ is a name
			}
			if f, ok := workspace.RegularFile(workspace.Roots{Cwd: cwd, Home: home}.Abs(p)); ok {
				out = append(out, f)
			}
		}
	}
	return out
}

// plainPath reports whether p can stand in a shell word unquoted and
// inside double quotes as itself.
func plainPath(p string) bool {
	for _, r := range p {
		if !(r == '/' || r == '.' || r == '_' || r == '-' || r == '+' || r == ',' || r == '@' || r == ':' ||
			'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') {
			return false
		}
	}
	return true
}
