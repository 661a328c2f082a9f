//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package settings

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestAddRuleLocksTheLinkTarget: writers reaching one settings file
// through links in different directories (a dotfiles file linked from two
// homes, one local settings file linked from several worktrees) lost each
// other's rules when each locked the directory of its own link. A writer
// holding the lock of the target's directory must keep a writer through
// a link out until the bound, which the test makes short.
func TestAddRuleLocksTheLinkTarget(t *testing.T) {
	shared := filepath.Join(t.TempDir(), "dotfiles")
	real := filepath.Join(shared, "settings.json")
	writeFile(t, real, `{}`)
	link := filepath.Join(t.TempDir(), ".gen", "settings.json")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}

	// Another writer (its own open file description, as another process
	// has) holds the target directory's lock.
	d, err := os.Open(shared)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := unix.Flock(int(d.Fd()), unix.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	defer func(old time.Duration) { lockTimeout = old }(lockTimeout)
	lockTimeout = time.Millisecond

	err = AddRule(link, "allow", "Read")
	if err == nil || !strings.Contains(err.Error(), "locking "+shared) {
		t.Fatalf("AddRule through the link while the target's directory is locked: %v, want the lock's error naming %s", err, shared)
	}
	if data, _ := os.ReadFile(real); string(data) != `{}` {
		t.Errorf("written without the lock: %s", data)
	}

	unix.Flock(int(d.Fd()), unix.LOCK_UN)
	if err := AddRule(link, "allow", "Read"); err != nil {
		t.Fatal(err)
	}
}
