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

// TestReadOnlyGitHooks: git status, git diff and git describe --dirty
// write a refreshed index, and git runs the post-index-change hook after
// every index write: a workspace that arrives with .git/hooks/
// post-index-change (a tarball, a copied tree) made the auto-allowed git
// status run it (checked by hand with git 2.39). Only hooks verified to
// run for commands that write leave git read-only.
func TestReadOnlyGitHooks(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	f := newFixture(t)
	if err := os.RemoveAll(filepath.Join(f.root, ".git")); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(git, "init", "-q")
	cmd.Dir = f.root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	hooks := filepath.Join(f.root, ".git", "hooks")
	if err := os.MkdirAll(hooks, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(p string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\ntouch pwned\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	check := func(want Decision, cmds ...string) {
		t.Helper()
		for _, c := range cmds {
			p := &Policy{Mode: ModeDefault, Workspace: f.ws()}
			if got := Evaluate(bashReq(c), p); (got.Decision == Allow) != (want == Allow) {
				t.Errorf("%q: %v step %d (%s); want %v", c, got.Decision, got.Step, got.Reason, want)
			}
		}
	}
	// Hooks that run only for commands that write, and samples, are no
	// reason to ask.
	write(filepath.Join(hooks, "pre-commit"))
	write(filepath.Join(hooks, "post-index-change.sample"))
	check(Allow, "git status", "git diff", "git log -1")

	write(filepath.Join(hooks, "post-index-change"))
	check(Ask, "git status", "git diff --stat", "git describe --dirty", "git log -1")
	if err := os.Remove(filepath.Join(hooks, "post-index-change")); err != nil {
		t.Fatal(err)
	}
	check(Allow, "git status")

	// A relative core.hooksPath in the user's configuration is taken
	// against the work tree: the workspace's .githooks.
	t.Setenv("GIT_CONFIG_GLOBAL", "")
	t.Setenv("XDG_CONFIG_HOME", "")
	if err := os.WriteFile(filepath.Join(f.home, ".gitconfig"), []byte("[core]\n\thooksPath = .githooks\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	check(Allow, "git status")
	write(filepath.Join(f.root, ".githooks", "reference-transaction"))
	check(Ask, "git status")
}

// TestReadOnlyXargsOptions: xargs appends its input words to wc's, and
// wc takes one that starts with "-" for an option: a list file in the
// workspace holding "--files0-from=/etc/passwd" made the auto-allowed
// `cat list | xargs wc` print /etc/passwd, each line the name of a file
// wc could not find. After "--" every input word is a file wc counts.
func TestReadOnlyXargsOptions(t *testing.T) {
	f := newFixture(t)
	if err := os.WriteFile(filepath.Join(f.root, "list"), []byte("--files0-from="+filepath.Join(f.outside, "data")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cmd  string
		want Decision
	}{
		{"cat list | xargs wc", Ask},
		{"cat list | xargs -r wc -l", Ask},
		{"cat list | xargs wc -l --", Allow},
		{"cat list | xargs -0 wc --", Allow},
	} {
		p := &Policy{Mode: ModeDefault, Workspace: f.ws()}
		if got := Evaluate(bashReq(tc.cmd), p); got.Decision != tc.want {
			t.Errorf("%q: %v step %d (%s); want %v", tc.cmd, got.Decision, got.Step, got.Reason, tc.want)
		}
	}
}

// TestAllowRuleGitOutput: a Bash allow rule covers a command, not its
// writes outside the workspace, which are checked as edits. git's output
// options were read only as "--output=FILE": git diff --output FILE (the
// next word), git archive -o FILE or --out FILE (parse-options takes
// abbreviations there) and format-patch -o DIR wrote outside the
// workspace under Bash(git diff:*), Bash(git archive:*), Bash(git:*).
func TestAllowRuleGitOutput(t *testing.T) {
	f := newFixture(t)
	for _, tc := range []struct {
		rule, cmd string
		want      Decision
	}{
		{"Bash(git diff:*)", "git diff --output ../outside/x", Ask},
		{"Bash(git log:*)", "git log -p --output ../outside/x", Ask},
		{"Bash(git archive:*)", "git archive -o ../outside/x.tar HEAD", Ask},
		{"Bash(git archive:*)", "git archive --out ../outside/x.tar HEAD", Ask},
		{"Bash(git archive:*)", "git archive -vo../outside/x.tar HEAD", Ask},
		{"Bash(git format-patch:*)", "git format-patch -o ../outside HEAD~1", Ask},
		{"Bash(git format-patch:*)", "git format-patch --output-directory ../outside HEAD~1", Ask},
		{"Bash(git:*)", "git -C src diff --output ../../outside/x", Ask},
		{"Bash(git:*)", "git -C ../outside diff --output=x", Ask},
		{"Bash(git diff:*)", "git diff --output=../outside/x", Ask},
		{"Bash(git diff:*)", "git diff --output out.patch", Allow},
		{"Bash(git archive:*)", "git archive -o x.tar HEAD", Allow},
	} {
		p := &Policy{Mode: ModeDefault, Workspace: f.ws()}
		allow(tc.rule)(p)
		if got := Evaluate(bashReq(tc.cmd), p); got.Decision != tc.want {
			t.Errorf("%s, %q: %v step %d (%s); want %v", tc.rule, tc.cmd, got.Decision, got.Step, got.Reason, tc.want)
		}
	}
}

// TestAllowRuleSortUniqOutput: sort -o FILE and uniq INPUT OUTPUT write
// FILE and OUTPUT, which were not write targets: under Bash(sort:*) or
// Bash(uniq:*) they wrote outside the workspace without asking.
func TestAllowRuleSortUniqOutput(t *testing.T) {
	f := newFixture(t)
	for _, tc := range []struct {
		rule, cmd string
		want      Decision
	}{
		{"Bash(sort:*)", "sort -o ../outside/x src/a.go", Ask},
		{"Bash(sort:*)", "sort src/a.go --out=../outside/x", Ask},
		{"Bash(sort:*)", "sort -uo../outside/x src/a.go", Ask},
		{"Bash(uniq:*)", "uniq src/a.go ../outside/x", Ask},
		{"Bash(sort:*)", "sort -o sorted.txt src/a.go", Allow},
		{"Bash(sort:*)", "sort -t , -k 2 src/a.go", Allow},
		{"Bash(uniq:*)", "uniq -c src/a.go", Allow},
	} {
		p := &Policy{Mode: ModeDefault, Workspace: f.ws()}
		allow(tc.rule)(p)
		if got := Evaluate(bashReq(tc.cmd), p); got.Decision != tc.want {
			t.Errorf("%s, %q: %v step %d (%s); want %v", tc.rule, tc.cmd, got.Decision, got.Step, got.Reason, tc.want)
		}
	}
}

// TestReadOnlyPartialClone: in a partial clone (a remote with promisor =
// true, or extensions.partialClone) git log -p, git show and git diff
// fetch the blobs they miss from that remote: git fetch over the
// network, and index-pack writing in .git/objects (GIT_TRACE of git
// 2.39 in a clone made with --filter=blob:none). Such a repository
// makes no git command read-only.
func TestReadOnlyPartialClone(t *testing.T) {
	for _, cfg := range []string{
		"[remote \"origin\"]\n\turl = https://example.com/x.git\n\tpromisor = true\n\tpartialclonefilter = blob:none\n",
		"[core]\n\trepositoryformatversion = 1\n[extensions]\n\tpartialClone = origin\n[remote \"origin\"]\n\turl = https://example.com/x.git\n",
	} {
		f := newFixture(t)
		if err := os.WriteFile(filepath.Join(f.root, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, d := range []string{"objects", "refs"} {
			if err := os.MkdirAll(filepath.Join(f.root, ".git", d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		plain := "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = https://example.com/x.git\n\tpartialclonefilter = blob:none\n"
		for _, tc := range []struct {
			config string
			want   Decision
		}{{plain, Allow}, {cfg, Ask}} {
			if err := os.WriteFile(filepath.Join(f.root, ".git", "config"), []byte(tc.config), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, cmd := range []string{"git log -p", "git show HEAD", "git diff HEAD~1"} {
				p := &Policy{Mode: ModeDefault, Workspace: f.ws()}
				if got := Evaluate(bashReq(cmd), p); got.Decision != tc.want {
					t.Errorf("%q with config %q: %v step %d (%s); want %v", cmd, tc.config, got.Decision, got.Step, got.Reason, tc.want)
				}
			}
		}
	}
}

// TestAllowRuleGitAliasWrites: an allow rule that covers a git alias
// covers what git runs for it, but the files that writes are checked as
// edits, and a destructive expansion asks as the command written out
// does. A repository's alias lg = log --output=FILE, cf = config
// --global ..., a = apply (from its .git/config, which arrives with a
// cloned or unpacked workspace) wrote outside the workspace, to
// ~/.gitconfig, or where a patch says under Bash(git:*), since only the
// command as written was read for writes.
func TestAllowRuleGitAliasWrites(t *testing.T) {
	f := newFixture(t)
	if err := os.WriteFile(filepath.Join(f.root, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"objects", "refs"} {
		if err := os.MkdirAll(filepath.Join(f.root, ".git", d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cfg := "[alias]\n\tlg = log --output=../outside/x\n\tdf = diff --output ../outside/y\n\tcf = config --global core.pager x\n" +
		"\ta = apply\n\tl2 = lg\n\tst = status\n\tout = diff --output=out.patch\n" +
		"\tcl = clean -fdx\n\trh = reset --hard\n\tm = mv src ../outside/s\n"
	if err := os.WriteFile(filepath.Join(f.root, ".git", "config"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cmd  string
		want Decision
	}{
		{"git lg", Ask},
		{"git df", Ask},
		{"git cf", Ask},
		{"git a x.patch", Ask},
		{"git l2", Ask},
		{"git -c alias.x='log --output=../outside/z' x", Ask},
		{"git st", Allow},
		{"git out", Allow},
		// Destructive, and moving out of the workspace: as git clean
		// -fdx, git reset --hard and git mv src ../outside/s are.
		{"git cl", Ask},
		{"git rh", Ask},
		{"git m", Ask},
	} {
		p := &Policy{Mode: ModeDefault, Workspace: f.ws()}
		allow("Bash(git:*)")(p)
		if got := Evaluate(bashReq(tc.cmd), p); got.Decision != tc.want {
			t.Errorf("%q: %v step %d (%s); want %v", tc.cmd, got.Decision, got.Step, got.Reason, tc.want)
		}
	}
}

// TestAllowRuleGitMakes: git init, clone, worktree add, bundle create,
// checkout-index --prefix and merge-file write where their operands say,
// and a git command that writes, run with -C, --git-dir or --work-tree,
// writes in that repository; none were write targets: under Bash(git:*)
// each wrote outside the workspace without asking (the kernel sandbox,
// where there is one, refuses it later).
func TestAllowRuleGitMakes(t *testing.T) {
	f := newFixture(t)
	for _, tc := range []struct {
		cmd  string
		want Decision
	}{
		{"git worktree add ../outside/wt", Ask},
		{"git clone https://example.com/r.git ../outside/c", Ask},
		{"git init ../outside/i", Ask},
		{"git init --separate-git-dir=../outside/g", Ask},
		{"git -C ../outside init", Ask},
		{"git bundle create ../outside/b HEAD", Ask},
		{"git checkout-index -a --prefix=../outside/", Ask},
		{"git merge-file ../outside/data a b", Ask},
		// A git command that writes, pointed at another repository.
		{"git -C ../outside commit -am x", Ask},
		{"git -C ../outside branch b", Ask},
		{"git --work-tree=../outside checkout -- .", Ask},
		{"git -C ../outside status", Allow},
		{"git -C src commit -am x", Allow},
		{"git worktree add wt", Allow},
		{"git clone https://example.com/r.git", Allow},
		{"git worktree list", Allow},
		{"git merge-file src/a.go a b", Allow},
	} {
		p := &Policy{Mode: ModeDefault, Workspace: f.ws()}
		allow("Bash(git:*)")(p)
		if got := Evaluate(bashReq(tc.cmd), p); got.Decision != tc.want {
			t.Errorf("%q: %v step %d (%s); want %v", tc.cmd, got.Decision, got.Step, got.Reason, tc.want)
		}
	}
}
