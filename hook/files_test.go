package hook

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestFiles: the files hook commands name, as their shell would find
// them: relative to the working directory, through the project directory
// variables and "~", inside bash -c, links resolved; not what only a
// variable, a glob or a directory names.
func TestFiles(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	proj, home := filepath.Join(base, "proj"), filepath.Join(base, "home")
	for _, p := range []string{"proj/scripts/a.sh", "proj/tools/b.py", "proj/.claude/hooks/c.sh", "proj/d.sh", "proj/real.sh", "home/bin/e.sh", "proj/f.sh", "proj/g.sh"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(base, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(base, p), nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
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
