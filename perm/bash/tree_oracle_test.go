//go:build linux

package bash

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestTreeParentFilesOracle holds tree's spec to what tree reads outside
// the directories it lists. From tree 2.1.1 on, --info and --gitignore
// (and --infofile and --gitfile, which imply them) look for a .info or
// .gitignore file in the parents of a listed directory that has none, up
// to "/", and print the .info file's comments: a command line that prints
// a comment from a parent directory's .info must not be read-only. It
// runs where tree 2.1 is installed.
func TestTreeParentFilesOracle(t *testing.T) {
	if testing.Short() {
		t.Skip("runs tree")
	}
	if _, err := exec.LookPath("tree"); err != nil {
		t.Skip("tree is not installed")
	}
	parent := t.TempDir()
	dir := filepath.Join(parent, "ws")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, _ := runAudit(t, dir, []string{"tree", "--version"}); !strings.Contains(out, "tree v2.1.") {
		t.Skipf("tree is not the version its spec was checked against: %.60q", out)
	}
	const secret = "ZZPARENTCOMMENT"
	for name, data := range map[string]string{
		filepath.Join(parent, ".info"):      "*\n\t" + secret + "\n",
		filepath.Join(parent, ".gitignore"): "f\n",
		filepath.Join(dir, "f"):             "a\n",
		filepath.Join(dir, "g"):             "a\n",
		filepath.Join(dir, "own.info"):      "g\n\town\n",
	} {
		if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var leaked int
	for _, args := range [][]string{
		{"--info"}, {"--infofile=own.info"}, {"--infofile", "own.info"}, {"--gitignore"},
		{"--gitfile=own.info"}, {"-a"}, {"-J"}, {"--prune"}, {"--du"},
	} {
		src := "tree " + strings.Join(args, " ")
		out, _ := runAudit(t, dir, append([]string{"tree"}, args...))
		// The parent's .gitignore hides f.
		shown := regexp.MustCompile(`(?m)[- \]] f$`).MatchString(out) || strings.Contains(out, `"name":"f"`)
		outside := strings.Contains(out, secret) || !shown
		if outside {
			leaked++
		}
		if _, ok := mustParse(t, src).Commands[0].Reads(); ok && outside {
			t.Errorf("%s: tree reads the parent directory's files (%.120q); the spec says it is read-only", src, out)
		}
	}
	if leaked == 0 {
		t.Skip("this tree reads no file in the parents (tree 2.1.0)")
	}
}
