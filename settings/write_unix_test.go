//go:build unix

package settings

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestAddRuleRefusesFIFO: gen trust with ~/.gen/settings.json a named
// pipe (or a link to one) waited for a writer forever while holding the
// settings lock, and one linked to /dev/zero read until memory ran out.
// The write reads as Load does: a file that is not a regular one is an
// error naming it.
func TestAddRuleRefusesFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "settings.json")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	dev := filepath.Join(dir, "dev.json")
	if err := os.Symlink("/dev/zero", dev); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{fifo, dev} {
		err := AddRule(path, "allow", "Read")
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("AddRule(%s): %v, want an error naming it", path, err)
		}
		err = AddTrustedProject(path, "/p", map[string]string{})
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("AddTrustedProject(%s): %v, want an error naming it", path, err)
		}
	}
}

// TestRemoveRuleFIFODirectory: RemoveRule of a file whose directory is
// a named pipe (a command made .gen one) opened it to lock it and waited
// for a writer forever; it is an error now.
func TestRemoveRuleFIFODirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".gen")
	if err := unix.Mkfifo(dir, 0o600); err != nil {
		t.Fatal(err)
	}
	err := RemoveRule(filepath.Join(dir, "settings.local.json"), "allow", "Read")
	if err == nil || !strings.Contains(err.Error(), dir) {
		t.Fatalf("RemoveRule under a named pipe: %v, want an error naming it", err)
	}
}
