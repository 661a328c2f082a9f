package hook

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gen-run/gen/internal/testtree"
)

// TestFiles: the files hook commands name, as their shell would find
// them: relative to the working directory, through the project directory
// variables and "~", inside bash -c, links resolved; not what only a
// variable, a glob or a directory names.
func TestFiles(t *testing.T) {
	base := testtree.Dir(t)
	proj, home := filepath.Join(base, "proj"), filepath.Join(base, "home")
	testtree.Write(t, base, map[string]string{"proj/scripts/a.sh": "", "proj/tools/b.py": "", "proj/.claude/hooks/c.sh": "",
		"proj/d.sh": "", "proj/real.sh": "", "home/bin/e.sh": "", "proj/f.sh": "", "proj/g.sh": ""})
	if err := os.Symlink("real.sh", proj+"/link.sh"); err != nil {
		t.Fatal(err)
	}
	c := mustParse(t, ".gen/settings.json", `{
		"PreToolUse": [{"matcher": "Bash", "hooks": [
			{"type": "command", "command": "./scripts/a.sh --fix"},
			{"type": "command", "command": "python3 tools/b.py"},
			{"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/c.sh"}
		]}],
		"PostToolUse": [{"hooks": [
			{"type": "command", "command": "bash -c 'sh d.sh'"},
			{"type": "command", "command": "~/bin/e.sh && ./link.sh"},
			{"type": "command", "command": "sh $DIR/f.sh; sh *.sh; npm run lint; ls scripts"}
		]}]
	}`)
	got := c.Files(proj, proj, home)
	want := []string{home + "/bin/e.sh", proj + "/.claude/hooks/c.sh", proj + "/d.sh", proj + "/real.sh", proj + "/scripts/a.sh", proj + "/tools/b.py"}
	if !slices.Equal(got, want) {
		t.Errorf("Files =\n%q\nwant\n%q", got, want)
	}
	if got := (Config{}).Files(proj, proj, home); got != nil {
		t.Errorf("no hooks: Files = %q", got)
	}
}

// TestFollow: the shell scripts a hook runs are followed into the files
// they run and source, from the working directory and from their own,
// through a variable's literal tail, past a cycle, and no deeper than
// maxScriptDepth; other files are not read. A file a command would run
// that is not there yet (sh two.sh from the working directory) is named
// too: whoever creates it chooses what runs.
func TestFollow(t *testing.T) {
	base := testtree.Dir(t)
	proj := filepath.Join(base, "proj")
	testtree.Write(t, proj, map[string]string{
		".claude/hooks/check.sh": "#!/usr/bin/env -S bash -e\nDIR=\"$(cd \"$(dirname \"${BASH_SOURCE[0]}\")\" && pwd)\"\nsource \"$DIR/lib.sh\"\n./scripts/lint.sh --fix\n",
		".claude/hooks/lib.sh":   "#!/bin/sh\n. ./scripts/lint.sh\n", // a cycle back to lint.sh
		"scripts/lint.sh":        "#!/bin/bash\nbash \"${ROOT}/scripts/deep/one.sh\"\n",
		"scripts/deep/one.sh":    "sh two.sh\n", // its own directory
		"scripts/deep/two.sh":    "sh three.sh\n",
		"scripts/deep/three.sh":  "sh four.sh\n",
		"scripts/deep/four.sh":   "",
		"tools/run.py":           "#!/usr/bin/python3\n# sh scripts/hidden.sh\n",
		"scripts/hidden.sh":      "",
		"bin/check":              "#!/bin/sh\nsh scripts/extra.sh\n", // a shell script by its #! line alone
		"scripts/extra.sh":       "",
		"tools/fake.sh":          "#!/usr/bin/python3\n# sh scripts/hidden.sh\n", // not one, whatever its name
		"big.sh":                 strings.Repeat("# x\n", maxScriptBytes/4+1) + "sh scripts/hidden.sh\n",
	})
	c := mustParse(t, ".gen/settings.json", `{"Stop": [{"hooks": [
		{"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/check.sh"},
		{"type": "command", "command": "python3 tools/run.py; sh big.sh; bin/check; tools/fake.sh"},
		{"type": "command", "command": "sh scripts/missing.sh; ./tools/absent; cat notes.txt; bash -c 'x'; python3 -m x; sh nodir/x.sh"}
	]}]}`)
	var want []string
	for _, p := range []string{".claude/hooks/check.sh", ".claude/hooks/lib.sh", "big.sh", "bin/check", "scripts/deep/one.sh", "scripts/deep/three.sh", "scripts/deep/two.sh", "scripts/extra.sh", "scripts/lint.sh", "scripts/missing.sh", "three.sh", "tools/absent", "tools/fake.sh", "tools/run.py", "two.sh"} {
		want = append(want, filepath.Join(proj, p))
	}
	if got := c.Files(proj, proj, base); !slices.Equal(got, want) {
		t.Errorf("Files =\n%q\nwant\n%q", got, want)
	}
}

// TestFollowCd: a command after a cd (or pushd, or env -C) with a
// statically known directory runs its files from there, so they are
// found from there: in hook commands and in the scripts followed, through
// subshells, bash -c, chains of cd and a cd to a literal tail after an
// expansion ("$(dirname "$0")/.."). Each row lists files that must be
// among Files; finding more is harmless (a question before a write).
func TestFollowCd(t *testing.T) {
	for _, tc := range []struct {
		name, command string
		files         map[string]string
		want          []string
	}{
		{"cd then a relative program", "cd scripts && ./d.sh",
			map[string]string{"scripts/d.sh": ""}, []string{"scripts/d.sh"}},
		{"cd then a runner", "cd scripts; sh d.sh", map[string]string{"scripts/d.sh": ""}, []string{"scripts/d.sh"}},
		{"cd then a file not there yet", "cd scripts && ./new.sh", map[string]string{"scripts/x": ""}, []string{"scripts/new.sh"}},
		{"cd with options", "cd -P -- scripts && ./d.sh", map[string]string{"scripts/d.sh": ""}, []string{"scripts/d.sh"}},
		{"builtin cd", "builtin cd scripts && ./d.sh", map[string]string{"scripts/d.sh": ""}, []string{"scripts/d.sh"}},
		{"pushd", "pushd scripts >/dev/null && ./d.sh; popd", map[string]string{"scripts/d.sh": ""}, []string{"scripts/d.sh"}},
		{"in a subshell", "(cd scripts && ./d.sh)", map[string]string{"scripts/d.sh": ""}, []string{"scripts/d.sh"}},
		{"inside bash -c", `bash -c 'cd scripts && ./d.sh'`, map[string]string{"scripts/d.sh": ""}, []string{"scripts/d.sh"}},
		{"a chain of cd", "cd a && cd b && ./d.sh", map[string]string{"a/b/d.sh": ""}, []string{"a/b/d.sh"}},
		{"cd through the project variable", `cd "$CLAUDE_PROJECT_DIR"/scripts && ./d.sh`, map[string]string{"scripts/d.sh": ""}, []string{"scripts/d.sh"}},
		{"cd into a link", "cd linked && ./d.sh", map[string]string{"real/d.sh": ""}, []string{"real/d.sh"}},
		{"env -C", "env -C scripts ./d.sh", map[string]string{"scripts/d.sh": ""}, []string{"scripts/d.sh"}},
		{"env --chdir=", "env --chdir=scripts sh d.sh", map[string]string{"scripts/d.sh": ""}, []string{"scripts/d.sh"}},
		{"a script's cd", "sh scripts/d.sh",
			map[string]string{"scripts/d.sh": "cd ../tools && sh e.sh\n", "tools/e.sh": "source ./lib.sh\n", "tools/lib.sh": ""},
			[]string{"scripts/d.sh", "tools/e.sh", "tools/lib.sh"}},
		{"a script's cd to its own parent", "sh scripts/sub/d.sh",
			map[string]string{"scripts/sub/d.sh": "cd \"$(dirname \"$0\")/..\" && ./e.sh\n", "scripts/e.sh": ""},
			[]string{"scripts/sub/d.sh", "scripts/e.sh"}},
		{"a script run from the hook's cd runs there", "cd work && ../tools/d.sh",
			map[string]string{"work/x": "", "tools/d.sh": "#!/bin/sh\n./here.sh\n", "work/here.sh": ""},
			[]string{"tools/d.sh", "work/here.sh"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := testtree.Dir(t)
			proj := filepath.Join(base, "proj")
			testtree.Write(t, proj, tc.files)
			if err := os.Symlink("real", filepath.Join(proj, "linked")); err != nil {
				t.Fatal(err)
			}
			c := mustParse(t, ".gen/settings.json", `{"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": `+strconv.Quote(tc.command)+`}]}]}`)
			got := c.Files(proj, proj, base)
			for _, w := range tc.want {
				if !slices.Contains(got, filepath.Join(proj, w)) {
					t.Errorf("Files = %q\nlacks %s", got, w)
				}
			}
		})
	}
}
