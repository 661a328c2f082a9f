package perm

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestReadOnlyHoles holds commands the read-only auto-allow (step 7) once
// allowed although they read outside the workspace, and their neighbours
// that must stay allowed. The fixture adds, inside the workspace, a
// directory holding a symlink to a file outside it.
func TestReadOnlyHoles(t *testing.T) {
	f := newFixture(t)
	for _, d := range []string{"da", "db"} {
		if err := os.Mkdir(filepath.Join(f.root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(f.outside, "data"), filepath.Join(f.root, "da", "x")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.root, "db", "x"), []byte("\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		cmd  string
		want Decision
	}{
		// Was allowed: diff compares the files of directory operands and
		// follows the link da/x out of the workspace, recursive or not.
		{"diff da db", Ask},
		{"diff -r da db", Ask},
		{"diff --rec da db", Ask},
		{"diff -u src/a.go da", Ask},
		{"diff --no-dereference -r da db", Allow},
		{"diff --no-deref da db", Allow},
		{"diff -u src/a.go src/a.go", Allow},
		// Stricter than before: a tree diff follows whatever links it holds.
		{"diff -r src src", Ask},
		{"diff -r --no-dereference src src", Allow},
		// Was allowed: bash before 5.2 expands .* to . and .. as well, so
		// these read the parent directory (grep -r: its whole tree).
		{"ls .*", Ask},
		{"grep -r x .*", Ask},
		{"du -s src/.*", Ask},
		{"ls .?", Ask},
		{"cat .[.]", Ask},
		{"ls .[!.]*", Ask},
		// Was allowed: filepath.Match reads [!x] as a set holding "!" and
		// knows no [[:class:]], so the gate missed the link these match.
		{"cat d[!x]/x", Ask},
		{"cat da/[!a]", Ask},
		{"cat da/[[:lower:]]", Ask},
		{"cat da/[^a]", Ask},
		{`cat 'da/\'*`, Ask},
		{"cat da/?", Ask},
		{"cat src/*.go", Allow},
	}
	for _, tc := range cases {
		p := &Policy{Mode: ModeDefault, Workspace: f.ws()}
		if got := Evaluate(bashReq(tc.cmd), p); got.Decision != tc.want {
			t.Errorf("%q: %v step %d (%s); want %v", tc.cmd, got.Decision, got.Step, got.Reason, tc.want)
		}
	}
}

// TestReadOnlySubmoduleConfig: git status (and git diff, git log
// --submodule=diff) runs git in every submodule the index records, and
// that git reads the submodule's own configuration, which the gate checks
// too (submoduleCode). A workspace that
// arrives with a nested repository (a tarball holding sub/.git with
// filter.x.clean = CMD and a gitlink for sub in .git/index) makes the
// auto-allowed git status run CMD; checked by hand with git 2.39.
func TestReadOnlySubmoduleConfig(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	f := newFixture(t)
	run := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command(git, append([]string{"-c", "user.email=a@b", "-c", "user.name=n"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := os.RemoveAll(filepath.Join(f.root, ".git")); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(f.root, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	run(f.root, "init", "-q")
	run(sub, "init", "-q")
	if err := os.WriteFile(filepath.Join(sub, ".gitattributes"), []byte("* filter=x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run(sub, "add", ".gitattributes")
	run(sub, "commit", "-qm", "s")
	run(f.root, "add", "sub")
	p := &Policy{Mode: ModeDefault, Workspace: f.ws()}
	// A submodule whose configuration is git's own is no reason to ask.
	if got := Evaluate(bashReq("git status"), p); got.Decision != Allow {
		t.Fatalf("git status with a plain submodule: %v step %d (%s); want Allow", got.Decision, got.Step, got.Reason)
	}
	run(sub, "config", "filter.x.clean", "touch pwned; cat")
	for _, cmd := range []string{"git status", "git diff", "git log -p --submodule=diff"} {
		if got := Evaluate(bashReq(cmd), p); got.Decision == Allow {
			t.Errorf("%q: %v step %d (%s); want not Allow: the submodule's config runs a filter", cmd, got.Decision, got.Step, got.Reason)
		}
	}
}
