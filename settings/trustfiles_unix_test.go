//go:build unix

package settings

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/gen-run/gen/perm"
)

// A FIFO among the agents is recorded by its type and never opened, so
// recording or checking a trust cannot block on it.
func TestProjectFilesSpecialFiles(t *testing.T) {
	l := newLayout(t)
	writeFile(t, filepath.Join(l.root, ".gen", "agents", "a.md"), "x")
	fifo := filepath.Join(l.root, ".gen", "agents", "pipe.md")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	files, err := ProjectFiles(l.root, l.home)
	if err != nil {
		t.Fatal(err)
	}
	if d := files[".gen/agents/pipe.md"]; !strings.HasPrefix(d, "sha256:") {
		t.Fatalf("FIFO digest = %q", d)
	}
	if files[".gen/agents/a.md"] != digest([]byte("x")) {
		t.Fatalf("a.md digest = %q", files[".gen/agents/a.md"])
	}
}

// A project settings file or .mcp.json that is a FIFO, or a link to
// /dev/zero (a repository may hold the link), is recorded by its type,
// and the hooks and servers it would name are not looked for in it: reading
// it hung every run of a trusted project (the FIFO) or exhausted the memory
// (/dev/zero), before any tool call, in gen -p and gen trust alike.
func TestProjectFilesSpecialSettings(t *testing.T) {
	l := newLayout(t)
	if err := os.MkdirAll(filepath.Dir(l.project), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", l.project); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(l.root, ".mcp.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	files, err := ProjectFiles(l.root, l.home)
	if err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{".gen/settings.json", ".mcp.json"} {
		if d := files[rel]; !strings.HasPrefix(d, "sha256:") {
			t.Errorf("%s digest = %q", rel, d)
		}
	}
	s := &Settings{Trusted: true, Workspace: perm.Workspace{Cwd: l.root, Root: l.root, Home: l.home}}
	if got := s.MCPFiles(); len(got) != 0 {
		t.Errorf("MCPFiles = %q", got)
	}
}
