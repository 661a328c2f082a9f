package perm

import (
	"strings"
	"syscall"
	"testing"
)

// TestGitConfigFIFO: a repository configuration that would never end (a
// FIFO) is not read: the decision does not hang, git is not read-only and
// its aliases count as unknown shell code.
func TestGitConfigFIFO(t *testing.T) {
	f := newFixture(t)
	if err := syscall.Mkfifo(f.root+"/.git/config", 0o644); err != nil {
		t.Skip(err)
	}
	p := &Policy{Mode: ModeBypass, Workspace: f.ws()}
	r := Evaluate(bashReq("git status"), p)
	if r.Decision != Ask || !strings.Contains(r.Reason, "cannot be read") {
		t.Fatalf("git status with a FIFO config: %v (%s)", r.Decision, r.Reason)
	}
}
