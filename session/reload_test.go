package session

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gen-run/gen/loop"
	"github.com/gen-run/gen/loop/offline"
	"github.com/gen-run/gen/perm"
)

// Two sessions in one project: a deny rule one saves applies to the
// other's next call.
func TestSessionsSeeEachOthersDenyRules(t *testing.T) {
	root, home := project(t, nil)
	a := newSession(t, root, home, offline.New(), nil, nil)
	b := newSession(t, root, home, offline.New(), nil, nil)
	ls := perm.Request{Tool: "Bash", Input: map[string]any{"command": "ls ."}}
	if got := a.Check(context.Background(), ls); got.Decision != perm.Allow {
		t.Fatalf("before: %v (%s), want allow", got.Decision, got.Reason)
	}
	if err := b.AddRule(perm.SourceLocal, "deny", "Bash(ls *)"); err != nil {
		t.Fatal(err)
	}
	got := a.Check(context.Background(), ls)
	if got.Decision != perm.Deny || !strings.Contains(got.Reason, "Bash(ls *)") {
		t.Fatalf("after B's deny: %v (%s), want deny by Bash(ls *)", got.Decision, got.Reason)
	}
	if !strings.Contains(strings.Join(ruleTexts(a), " "), "deny:Bash(ls *)") {
		t.Errorf("A's /permissions lacks the new rule: %v", ruleTexts(a))
	}
}

func ruleTexts(s *Session) []string {
	var out []string
	for _, r := range s.Rules() {
		out = append(out, r.List+":"+r.Rule)
	}
	return out
}

// A settings file that becomes malformed denies every call with an error
// naming it, instead of keeping the old allow rules; fixed, it applies.
func TestMalformedSettingsDenyEveryCall(t *testing.T) {
	root, home := project(t, map[string]string{".gen/settings.json": `{"permissions": {"allow": ["Bash(curl *)"]}}`})
	s := newSession(t, root, home, offline.New(), nil, nil)
	curl := perm.Request{Tool: "Bash", Input: map[string]any{"command": "curl x.org"}}
	if got := s.Check(context.Background(), curl); got.Decision != perm.Allow {
		t.Fatalf("before: %v (%s)", got.Decision, got.Reason)
	}
	file := filepath.Join(root, ".gen", "settings.json")
	if err := os.WriteFile(file, []byte(`{"permissions": {"allow": ["Bash(curl *)"],}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, req := range []perm.Request{curl, {Tool: "Read", Input: map[string]any{"file_path": filepath.Join(root, "x")}}} {
		got := s.Check(context.Background(), req)
		if got.Decision != perm.Deny || !strings.Contains(got.Reason, file) {
			t.Fatalf("%s with a malformed file: %v (%s), want deny naming %s", req.Tool, got.Decision, got.Reason, file)
		}
	}
	if err := os.WriteFile(file, []byte(`{"permissions": {"deny": ["Bash(curl *)"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := s.Check(context.Background(), curl); got.Decision != perm.Deny || !strings.Contains(got.Reason, "deny rule Bash(curl *)") {
		t.Fatalf("after the fix: %v (%s)", got.Decision, got.Reason)
	}
}

// hookModel runs f before the model's answer number at (1-based).
type hookModel struct {
	loop.Model
	n  atomic.Int32
	at int32
	f  func()
}

func (h *hookModel) Complete(ctx context.Context, req loop.Request) (loop.Response, error) {
	if h.n.Add(1) == h.at {
		h.f()
	}
	return h.Model.Complete(ctx, req)
}

// A long headless run (gen -p) sees a deny rule written to a settings file
// that did not exist when it started, at its next call.
func TestHeadlessRunSeesNewDeny(t *testing.T) {
	root, home := project(t, map[string]string{"a.txt": "hi\n"})
	user := filepath.Join(home, ".gen", "settings.json")
	m := &hookModel{Model: offline.New(), at: 2, f: func() {
		if err := os.MkdirAll(filepath.Dir(user), 0o755); err != nil {
			t.Error(err)
		}
		if err := os.WriteFile(user, []byte(`{"permissions": {"deny": ["Bash(ls *)"]}}`), 0o644); err != nil {
			t.Error(err)
		}
	}}
	s := newSession(t, root, home, m, nil, nil)
	out, err := s.Submit(context.Background(), "Run bash: ls .\nRun bash: ls .", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.Final, "RESULT: Bash(ls .) -> ALLOWED\nRESULT: Bash(ls .) -> DENIED: tool Bash is blocked by deny rule Bash(ls *) (user)") {
		t.Fatalf("final = %q", out.Final)
	}
}
