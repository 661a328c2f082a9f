package session

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gen-run/gen/gate"
	"github.com/gen-run/gen/loop"
	"github.com/gen-run/gen/loop/offline"
	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/settings"
	"github.com/gen-run/gen/trust"
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
	s := newSession(t, root, home, offline.New(), nil, trusted)
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

// "Always allow" is not offered where no allow rule could stop the
// prompt, and says what still asks when the offered rules cover only part
// of the command.
func TestAlwaysOffer(t *testing.T) {
	root, home := project(t, map[string]string{".gen/settings.json": `{"permissions": {"ask": ["Bash(git push *)"]}}`})
	cases := []struct {
		name      string
		cmd       string
		noRule    string
		stillAsks string
		rules     int
	}{
		{"a plain command is covered", "curl https://x.org", "", "", 1},
		{"a sensitive path (step 2)", "echo x > .git/hooks/pre-commit", "whatever the rules say", "", -1},
		{"a dynamic program name (step 2)", "$CMD x", "whatever the rules say", "", -1},
		{"an ask rule (step 5)", "git push origin main", "an ask rule", "", -1},
		{"more parts than the five rules", "curl a; curl b; curl c; curl d; wget -O- e; wget -O- f; nc g", "", "wget", 5},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := &approver{answer: func(gate.Approval) gate.Reply { return gate.Reply{Choice: gate.No} }}
			s := newSession(t, root, home, offline.New(), a, nil)
			s.Check(context.Background(), perm.Request{Tool: "Bash", Input: map[string]any{"command": tc.cmd}})
			if a.count() != 1 {
				t.Fatalf("%d approvals, want 1", a.count())
			}
			got := a.got[0]
			if tc.noRule == "" && got.NoRule != "" || !strings.Contains(got.NoRule, tc.noRule) {
				t.Errorf("NoRule = %q, want %q (step %d: %s)", got.NoRule, tc.noRule, got.Result.Step, got.Result.Reason)
			}
			if tc.stillAsks == "" && got.StillAsks != "" || !strings.Contains(got.StillAsks, tc.stillAsks) {
				t.Errorf("StillAsks = %q, want %q (rules %v)", got.StillAsks, tc.stillAsks, got.Rules)
			}
			if tc.rules >= 0 && len(got.Rules) != tc.rules {
				t.Errorf("rules = %v, want %d", got.Rules, tc.rules)
			}
		})
	}
}

// The sandbox settings Bash applies are those in force when it runs: a
// project's allowWrite stops widening the sandbox at the next call when
// the project's trust stops holding, and a tightening the user saves
// applies at once.
func TestSandboxSettingsFollowTheSettings(t *testing.T) {
	root, home := project(t, map[string]string{".gen/settings.json": `{"sandbox": {"filesystem": {"allowWrite": ["/tmp/shared"]}}}`})
	if _, err := trust.Trust(home, root); err != nil {
		t.Fatal(err)
	}
	s := newSession(t, root, home, offline.New(), nil, nil)
	s.box.Tools() // as each turn does
	if got := s.env.Confine().Settings.Filesystem.AllowWrite; !slices.Equal(got, []string{"/tmp/shared"}) {
		t.Fatalf("trusted: allowWrite %q", got)
	}
	// Another hand edits the project's settings: the trust no longer holds.
	if err := os.WriteFile(filepath.Join(root, ".gen", "settings.json"), []byte(`{"sandbox": {"filesystem": {"allowWrite": ["/tmp/shared", "/"]}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := s.env.Confine().Settings.Filesystem.AllowWrite; len(got) != 0 {
		t.Fatalf("after the trusted settings changed: allowWrite %q, want none", got)
	}
	if err := os.WriteFile(settings.UserPath(home), []byte(`{"sandbox": {"network": false}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if n := s.env.Confine().Settings.Network; n == nil || *n {
		t.Fatalf("after the user turned network off: network %v", n)
	}
}
