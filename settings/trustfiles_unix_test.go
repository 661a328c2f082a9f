//go:build unix

package settings

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
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
