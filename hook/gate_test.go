package hook

import (
	"path/filepath"
	"testing"

	"github.com/gen-run/gen/perm"
)

// gateResult evaluates a call with perm's real pipeline, with nobody
// coerced: the hooks' functions see Ask as the gate says it.
func gateResult(t *testing.T, req perm.Request, mode perm.Mode, deny, ask []string) perm.Result {
	t.Helper()
	root := t.TempDir()
	entries := func(rs []string) []perm.Entry {
		var out []perm.Entry
		for _, s := range rs {
			r, err := perm.ParseRule(s)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, perm.Entry{Rule: r, Source: perm.SourceProject})
		}
		return out
	}
	p := &perm.Policy{Mode: mode, Deny: entries(deny), Ask: entries(ask),
		Workspace: perm.Workspace{Cwd: root, Root: root, Home: t.TempDir()}}
	if req.Tool == "Write" {
		req.Input["file_path"] = filepath.Join(root, req.Input["file_path"].(string))
	}
	return perm.Evaluate(req, p)
}

func bash(cmd string) perm.Request {
	return perm.Request{Tool: "Bash", Input: map[string]any{"command": cmd}}
}

func TestApplyPreToolUse(t *testing.T) {
	write := perm.Request{Tool: "Write", Input: map[string]any{"file_path": ".git/hooks/pre-commit", "content": "x"}}
	tests := []struct {
		name    string
		req     perm.Request
		mode    perm.Mode
		deny    []string
		ask     []string
		verdict Verdict
		want    perm.Decision
		source  perm.Source
	}{
		{"approve answers the mode's ask", bash("npm test"), perm.ModeDefault, nil, nil, Approve, perm.Allow, perm.SourceHook},
		{"approve never beats a deny rule", bash("npm test"), perm.ModeBypass, []string{"Bash(npm:*)"}, nil, Approve, perm.Deny, perm.SourceProject},
		{"approve never silences a destructive command", bash("rm -rf build"), perm.ModeDefault, nil, nil, Approve, perm.Ask, perm.SourceBuiltin},
		{"approve never silences a sensitive path", write, perm.ModeAcceptEdits, nil, nil, Approve, perm.Ask, perm.SourceBuiltin},
		{"approve does not skip an ask rule", bash("npm test"), perm.ModeDefault, nil, []string{"Bash(npm test)"}, Approve, perm.Ask, perm.SourceProject},
		// A deny rule's program mentioned where the gate cannot tell
		// whether it runs asks at step 1: the deny rule's question, no
		// PreToolUse hook's to answer.
		{"approve does not answer a deny rule's mention", bash("frobnicate --run curl x"), perm.ModeDefault, []string{"Bash(curl:*)"}, nil, Approve, perm.Ask, perm.SourceProject},
		{"approve does not answer a deny rule's mention in code", bash(`python3 -c "import os; os.system('curl x')"`), perm.ModeBypass, []string{"Bash(curl:*)"}, nil, Approve, perm.Ask, perm.SourceProject},
		// bypassPermissions asks at step 3 about a program it has no
		// model of while deny rules hold.
		{"approve does not answer bypass's unmodelled program", bash("frobnicate 'print(1)'"), perm.ModeBypass, []string{"Bash(curl:*)"}, nil, Approve, perm.Ask, perm.SourceBuiltin},
		{"approve in explore mode is still deny", bash("npm test"), perm.ModeExplore, nil, nil, Approve, perm.Deny, perm.SourceMode},
		{"hook deny beats the gate's allow", bash("ls"), perm.ModeBypass, nil, nil, Deny, perm.Deny, perm.SourceHook},
		{"hook ask turns allow into ask", bash("ls"), perm.ModeDefault, nil, nil, Ask, perm.Ask, perm.SourceHook},
		{"hook ask keeps the gate's deny", bash("npm test"), perm.ModeDefault, []string{"Bash"}, nil, Ask, perm.Deny, perm.SourceProject},
		{"no verdict changes nothing", bash("npm test"), perm.ModeDefault, nil, nil, NoVerdict, perm.Ask, perm.SourceMode},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := gateResult(t, tt.req, tt.mode, tt.deny, tt.ask)
			got := ApplyPreToolUse(Outcome{Event: PreToolUse, Verdict: tt.verdict, Reason: "because"}, r)
			if got.Decision != tt.want || got.Source != tt.source {
				t.Errorf("gate %v (step %d) + hook %v = %v from %s, want %v from %s", r.Decision, r.Step, tt.verdict, got.Decision, got.Source, tt.want, tt.source)
			}
			if tt.verdict == Deny && got.Reason != "denied by a PreToolUse hook: because" {
				t.Errorf("reason %q", got.Reason)
			}
		})
	}
}

func TestApplyPermissionRequest(t *testing.T) {
	tests := []struct {
		name    string
		req     perm.Request
		ask     []string
		verdict Verdict
		want    perm.Decision
		decided bool
	}{
		{"approve answers the mode's ask", bash("npm test"), nil, Approve, perm.Allow, true},
		{"approve answers an ask rule", bash("npm test"), []string{"Bash(npm:*)"}, Approve, perm.Allow, true},
		{"approve leaves a bypass-immune ask to a person", bash("git push --force"), nil, Approve, perm.Ask, false},
		{"deny denies", bash("npm test"), nil, Deny, perm.Deny, true},
		{"deny denies a bypass-immune ask", bash("git push --force"), nil, Deny, perm.Deny, true},
		{"no verdict leaves it to a person", bash("npm test"), nil, NoVerdict, perm.Ask, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := gateResult(t, tt.req, perm.ModeDefault, nil, tt.ask)
			if r.Decision != perm.Ask {
				t.Fatalf("gate said %v, the test needs Ask", r.Decision)
			}
			got, decided := ApplyPermissionRequest(Outcome{Event: PermissionRequest, Verdict: tt.verdict, Reason: "policy"}, r)
			if got.Decision != tt.want || decided != tt.decided {
				t.Errorf("got %v decided %v, want %v %v", got.Decision, decided, tt.want, tt.decided)
			}
			if tt.verdict == Deny && got.Reason != "denied by a PermissionRequest hook: policy" {
				t.Errorf("reason %q", got.Reason)
			}
		})
	}
}

// "continue": false in a PermissionRequest answer comes before its allow,
// as in Claude Code: the agent stops, and the call is not made.
func TestApplyPermissionRequestStop(t *testing.T) {
	r := gateResult(t, bash("npm test"), perm.ModeDefault, nil, nil)
	got, decided := ApplyPermissionRequest(Outcome{Event: PermissionRequest, Verdict: Approve, Stop: true, StopReason: "enough"}, r)
	if got.Decision != perm.Deny || !decided || got.Source != perm.SourceHook || got.Reason != "a PermissionRequest hook stopped the agent: enough" {
		t.Errorf("got %v decided %v from %s (%q), want a hook's Deny saying the agent stopped", got.Decision, decided, got.Source, got.Reason)
	}
	if got, _ := ApplyPermissionRequest(Outcome{Event: PermissionRequest, Stop: true}, r); got.Decision != perm.Deny {
		t.Errorf("without a verdict: got %v, want Deny", got.Decision)
	}
}

// "continue": false in a PreToolUse answer comes before its decision, as
// in Claude Code: even an approved call the gate allows is not made.
func TestApplyPreToolUseStop(t *testing.T) {
	r := gateResult(t, bash("ls"), perm.ModeBypass, nil, nil)
	got := ApplyPreToolUse(Outcome{Event: PreToolUse, Verdict: Approve, Stop: true, StopReason: "enough"}, r)
	if got.Decision != perm.Deny || got.Source != perm.SourceHook || got.Reason != "a PreToolUse hook stopped the agent: enough" {
		t.Errorf("got %v from %s (%q), want a hook's Deny saying the agent stopped", got.Decision, got.Source, got.Reason)
	}
	// A deny rule's Deny stands, with its own reason.
	r = gateResult(t, bash("ls"), perm.ModeDefault, []string{"Bash(ls)"}, nil)
	if got := ApplyPreToolUse(Outcome{Event: PreToolUse, Stop: true}, r); got.Source != perm.SourceProject {
		t.Errorf("got %v from %s, want the deny rule's", got.Decision, got.Source)
	}
}

// A hook's ask keeps how the gate decided the call runs, and leaves what
// only its Allow by the mode's default held: approved, ls in plan mode
// still runs in the read-only sandbox, and the WebFetch a person approved
// is no longer only a public read (the approval allows it, as the
// refusal of an internal address tells the model).
func TestApplyPreToolUseAskKeepsRun(t *testing.T) {
	ask := Outcome{Event: PreToolUse, Verdict: Ask}
	for _, mode := range []perm.Mode{perm.ModePlan, perm.ModeDefault} {
		r := gateResult(t, bash("ls"), mode, nil, nil)
		got := ApplyPreToolUse(ask, r)
		if got.Decision != perm.Ask || got.Sandbox != r.Sandbox || r.Sandbox == "" {
			t.Errorf("%s: gate %v sandbox %q, after the hook's ask %v sandbox %q", mode, r.Decision, r.Sandbox, got.Decision, got.Sandbox)
		}
	}
	r := gateResult(t, perm.Request{Tool: "WebFetch", Input: map[string]any{"url": "https://example.org/"}}, perm.ModeDefault, nil, nil)
	if !r.PublicOnly {
		t.Fatalf("the gate's allow of a public fetch is not PublicOnly: %+v", r)
	}
	if got := ApplyPreToolUse(ask, r); got.Decision != perm.Ask || got.PublicOnly {
		t.Errorf("after the hook's ask: %v, PublicOnly %v", got.Decision, got.PublicOnly)
	}
}
