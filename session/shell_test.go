package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gen-run/gen/gate"
	"github.com/gen-run/gen/loop/offline"
	"github.com/gen-run/gen/tool"
)

// A custom command's ! command (Shell) is decided as the model's Bash
// call would be: a read-only one runs without a question; one no rule
// covers asks the person, whose answer decides it; plan and dontAsk
// mode deny what changes anything without asking, whatever the answer
// would be; bypassPermissions runs it.
func TestShellIsGated(t *testing.T) {
	for _, tc := range []struct {
		name, settings, command string
		choice                  gate.Choice
		asked, denied, made     bool
	}{
		{name: "read-only", settings: `{}`, command: "ls", denied: false},
		{name: "asked, no", settings: `{}`, command: "touch made", choice: gate.No, asked: true, denied: true},
		{name: "asked, yes", settings: `{}`, command: "touch made", choice: gate.Yes, asked: true, made: true},
		{name: "plan", settings: `{"permissions": {"defaultMode": "plan"}}`, command: "touch made", choice: gate.Yes, denied: true},
		{name: "plan with a rule", settings: `{"permissions": {"defaultMode": "plan", "allow": ["Bash(touch *)"]}}`, command: "touch made", choice: gate.Yes, denied: true},
		{name: "dontAsk", settings: `{"permissions": {"defaultMode": "dontAsk"}}`, command: "touch made", choice: gate.Yes, denied: true},
		{name: "bypassPermissions", settings: `{"permissions": {"defaultMode": "bypassPermissions"}}`, command: "touch made", choice: gate.No, made: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, home := project(t, map[string]string{".gen/settings.json": tc.settings})
			a := &approver{answer: func(gate.Approval) gate.Reply { return gate.Reply{Choice: tc.choice} }}
			s := newSession(t, root, home, offline.New(), a, trusted)
			_, err := s.Shell(context.Background(), tc.command)
			_, serr := os.Stat(filepath.Join(root, "made"))
			if asked := a.count() > 0; asked != tc.asked {
				t.Errorf("asked %v, want %v", asked, tc.asked)
			}
			if denied := errors.Is(err, tool.ErrDenied); denied != tc.denied || !denied && err != nil {
				t.Errorf("Shell = %v; want denied %v", err, tc.denied)
			}
			if made := serr == nil; made != tc.made {
				t.Errorf("made %v, want %v", made, tc.made)
			}
		})
	}
}

// Shell gives the command's output, as the command wrote it, without
// gen's status line: that is what takes the ! command's place. A command
// that exits non-zero is an error, so the prompt is not sent.
func TestShellOutput(t *testing.T) {
	root, home := project(t, map[string]string{"notes.txt": "one\ntwo\n"})
	s := newSession(t, root, home, offline.New(), nil, nil)
	if out, err := s.Shell(context.Background(), "cat notes.txt"); err != nil || out != "one\ntwo" {
		t.Errorf("Shell(cat) = %q, %v; want the file's lines", out, err)
	}
	if out, err := s.Shell(context.Background(), "grep three notes.txt"); err == nil || !strings.Contains(err.Error(), "exit code: 1") {
		t.Errorf("Shell(grep no match) = %q, %v; want an error naming the exit code", out, err)
	}
}
