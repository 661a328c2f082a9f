package perm

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestGitlinks reads index files git writes in each of its formats and
// finds the gitlinks among their entries; a split index, a truncated or
// altered one is an error, never an empty list.
func TestGitlinks(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	run := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command(git, append([]string{"-c", "user.email=a@b", "-c", "user.name=n", "-c", "init.defaultBranch=main"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	// repo makes a repository with files, a long path, and two nested
	// repositories added as gitlinks, with init's extra arguments.
	repo := func(t *testing.T, initArgs ...string) string {
		dir := t.TempDir()
		run(dir, append([]string{"init", "-q"}, initArgs...)...)
		long := filepath.Join("d", strings.Repeat("n", 250))
		for _, f := range []string{"a", "b/c", long, "z"} {
			if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, f), []byte(f), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for _, sub := range []string{"m/sub1", "sub2"} {
			d := filepath.Join(dir, sub)
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
			run(d, append([]string{"init", "-q"}, initArgs...)...)
			run(d, "commit", "-q", "--allow-empty", "-m", "s")
		}
		run(dir, "add", ".")
		return dir
	}
	want := []string{"m/sub1", "sub2"}
	read := func(t *testing.T, dir string) ([]string, error) {
		b, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
		if err != nil {
			t.Fatal(err)
		}
		return gitlinks(b)
	}
	for _, tc := range []struct {
		name     string
		initArgs []string
		prep     [][]string // git commands run after the add
	}{
		{"version 2", nil, [][]string{{"update-index", "--index-version", "2"}}},
		{"version 3, extended flags", nil, [][]string{{"update-index", "--index-version", "3"}, {"update-index", "--skip-worktree", "a"}}},
		{"version 4, paths compressed", nil, [][]string{{"update-index", "--index-version", "4"}}},
		{"sha256", []string{"--object-format=sha256"}, nil},
		{"sha256 version 4", []string{"--object-format=sha256"}, [][]string{{"update-index", "--index-version", "4"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := repo(t, tc.initArgs...)
			for _, args := range tc.prep {
				run(dir, args...)
			}
			got, err := read(t, dir)
			if err != nil || !slices.Equal(got, want) {
				t.Fatalf("gitlinks = %q, %v; want %q", got, err, want)
			}
		})
	}

	dir := repo(t)
	b, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]byte{nil, b[:len(b)/2], b[:len(b)-1], append(slices.Clone(b), 0), []byte("DIRC\x00\x00\x00\x09\x00\x00\x00\x00")} {
		if links, err := gitlinks(bad); err == nil {
			t.Errorf("gitlinks of %d altered bytes = %q, nil; want an error", len(bad), links)
		}
	}
	run(dir, "update-index", "--split-index")
	if links, err := read(t, dir); err == nil {
		t.Errorf("split index: gitlinks = %q, nil; want an error (entries are in the shared index)", links)
	}
}
