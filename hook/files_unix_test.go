//go:build unix

package hook

import (
	"path/filepath"
	"syscall"
	"testing"
)

// TestShellScriptFIFO: a FIFO put where a script was found is not read:
// opening it for reading would wait for a writer that never comes.
func TestShellScriptFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "lib.sh")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	if _, ok := shellScript(fifo); ok {
		t.Error("a FIFO was read as a shell script")
	}
}
