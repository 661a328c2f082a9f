//go:build unix

package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/gen-run/gen/internal/testtree"
)

// TestGitHooksNamedPipes: a command in a writable root can write a .git
// file leading to a git directory of its making, whose commondir, config
// and hooks are named pipes. Reading any of them waited for a writer
// forever, in every policy gen built from then on (gen -p in that project
// never ended); they count as missing now, and the carve-outs still hold
// the .git and the directory it leads to.
func TestGitHooksNamedPipes(t *testing.T) {
	ws := testtree.Dir(t)
	evil := filepath.Join(ws, "evil")
	if err := os.Mkdir(evil, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"commondir", "config", "config.worktree", "hooks"} {
		if err := unix.Mkfifo(filepath.Join(evil, name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, ".git"), []byte("gitdir: evil\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := GitHooks(filepath.Join(ws, ".git"), Roots{Home: testtree.Dir(t)})
	for _, want := range []string{filepath.Join(ws, ".git"), evil} {
		if !slices.Contains(got, want) {
			t.Errorf("carve-outs %q lack %s", got, want)
		}
	}
}
