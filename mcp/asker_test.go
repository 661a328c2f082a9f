package mcp

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gen-run/gen/gate"
	"github.com/gen-run/gen/internal/mcptest"
	"github.com/gen-run/gen/perm"
)

// delegateGate starts an approver answering with answer and returns a
// gate factory for agents, and the approver.
func delegateGate(t *testing.T, answer func(mcptest.Request) string, base perm.Policy) (func(agent string) *gate.Gate, *mcptest.Approver) {
	t.Helper()
	gateFor, ap, _ := delegateGates(t, answer, base, false)
	return gateFor, ap
}

// delegateGates is delegateGate with the delegate's managedOnly (For),
// which also returns the warnings the delegate gave.
func delegateGates(t *testing.T, answer func(mcptest.Request) string, base perm.Policy, managedOnly bool) (func(agent string) *gate.Gate, *mcptest.Approver, *[]string) {
	t.Helper()
	ap := &mcptest.Approver{Answer: answer}
	srv := Server{Name: "perm", Transport: HTTP, URL: mcptest.Serve(t, ap.Server())}
	m, st := start(t, Options{}, srv)
	if st["perm"].State != StateConnected {
		t.Fatalf("approver: %+v", st["perm"])
	}
	var warnings []string
	d, err := NewDelegate(m, "mcp__perm__approve", func(w string) { warnings = append(warnings, w) })
	if err != nil {
		t.Fatal(err)
	}
	return func(agent string) *gate.Gate {
		base := base
		base.ManagedRulesOnly = managedOnly
		pol, ask := d.For(agent, func() perm.Policy { return base })
		return &gate.Gate{Policy: pol, Asker: ask}
	}, ap, &warnings
}

func bash(cmd string) perm.Request {
	return perm.Request{Tool: "Bash", Input: map[string]any{"command": cmd}, ID: "call_1"}
}

func basePolicy(t *testing.T, deny ...string) perm.Policy {
	p := perm.Policy{Mode: perm.ModeDefault, NoPrompt: true, Workspace: perm.Workspace{Cwd: t.TempDir()}}
	for _, d := range deny {
		r, err := perm.ParseRule(d)
		if err != nil {
			t.Fatal(err)
		}
		p.Deny = append(p.Deny, perm.Entry{Rule: r, Source: perm.SourceCLI})
	}
	return p
}

func check(t *testing.T, g *gate.Gate, req perm.Request) perm.Result {
	t.Helper()
	// Decide, as tool.Set.Call does: a rewritten call runs with the input
	// its decision is about (Check would refuse to run it as sent).
	return guard(t, "Decide", func() perm.Result {
		r, in := g.Decide(context.Background(), req)
		if r.Decision == perm.Allow && !reflect.DeepEqual(in, req.Input) {
			r.Input = in
		}
		return r
	})
}

// The delegate answers Asks, with the call's fields and the agent's name;
// a deny answer denies with its message; a call the policy denies never
// reaches it.
func TestDelegateAllowDeny(t *testing.T) {
	answer := `{"behavior":"allow"}`
	gateFor, ap := delegateGate(t, func(r mcptest.Request) string { return answer }, basePolicy(t, "Bash(rm:*)"))
	g := gateFor("builder")
	if r := check(t, g, bash("touch a")); r.Decision != perm.Allow || r.Source != perm.SourceDelegate || r.Input != nil {
		t.Errorf("allow answer: %+v", r)
	}
	calls := ap.Calls()
	if len(calls) != 1 || calls[0].ToolName != "Bash" || calls[0].Input["command"] != "touch a" || calls[0].ToolUseID != "call_1" || calls[0].Agent != "builder" {
		t.Fatalf("the delegate was asked %+v", calls)
	}
	answer = `{"behavior":"deny","message":"not today"}`
	if r := check(t, g, bash("touch b")); r.Decision != perm.Deny || !strings.Contains(r.Reason, "not today") {
		t.Errorf("deny answer: %+v", r)
	}
	answer = `{"behavior":"allow"}`
	if r := check(t, g, bash("rm -rf x")); r.Decision != perm.Deny || !strings.Contains(r.Reason, "Bash(rm:*)") {
		t.Errorf("deny rule: %+v", r)
	}
	// Allowed outright: not asked either.
	if r := check(t, g, bash("ls")); r.Decision != perm.Allow {
		t.Errorf("read-only: %+v", r)
	}
	if n := len(ap.Calls()); n != 2 {
		t.Errorf("the delegate was asked %d times, want 2 (never for a Deny or an Allow)", n)
	}
}

// A delegate that fails, answers malformed text or answers nothing denies.
func TestDelegateFailureDenies(t *testing.T) {
	for _, answer := range []string{"", "yes", `{"behavior":"ask"}`, `{"behavior":"allow","updatedInput":"rm -rf /"}`} {
		gateFor, _ := delegateGate(t, func(mcptest.Request) string { return answer }, basePolicy(t))
		if r := check(t, gateFor("a"), bash("touch a")); r.Decision != perm.Deny || r.Step != 8 || !strings.Contains(r.Reason, "permission-prompt tool") {
			t.Errorf("answer %q: %+v", answer, r)
		}
	}
}

// updatedInput is a new call: evaluated again, run only when allowed,
// asked about at most once more.
func TestDelegateUpdatedInput(t *testing.T) {
	var rewrite []string // answers' commands, in turn; "" allows as is
	gateFor, ap := delegateGate(t, func(mcptest.Request) string {
		next := rewrite[0]
		rewrite = rewrite[1:]
		if next == "" {
			return `{"behavior":"allow"}`
		}
		return `{"behavior":"allow","updatedInput":{"command":"` + next + `"}}`
	}, basePolicy(t, "Bash(rm:*)"))
	g := gateFor("a")

	// Rewritten into a denied command: denied, asked once.
	rewrite = []string{"rm -rf /"}
	if r := check(t, g, bash("touch a")); r.Decision != perm.Deny || !strings.Contains(r.Reason, "rewritten call is denied") || !strings.Contains(r.Reason, "Bash(rm:*)") {
		t.Errorf("rewrite to denied: %+v", r)
	}
	// Rewritten into an allowed command: runs rewritten.
	rewrite = []string{"ls -la"}
	if r := check(t, g, bash("touch a")); r.Decision != perm.Allow || r.Input["command"] != "ls -la" {
		t.Errorf("rewrite to allowed: %+v", r)
	}
	// A caller that can only run the call as sent (Check: WebFetch
	// redirects) never runs a rewritten call.
	rewrite = []string{"ls -la"}
	if r := g.Check(context.Background(), bash("touch a")); r.Decision != perm.Deny || !strings.Contains(r.Reason, "changed the input") {
		t.Errorf("Check of a rewritten call: %+v", r)
	}
	// Rewritten into another Ask: asked once more about the new call.
	before := len(ap.Calls())
	rewrite = []string{"touch b", ""}
	if r := check(t, g, bash("touch a")); r.Decision != perm.Allow || r.Input["command"] != "touch b" {
		t.Errorf("rewrite, then allowed: %+v", r)
	}
	calls := ap.Calls()[before:]
	if len(calls) != 2 || calls[1].Input["command"] != "touch b" {
		t.Errorf("second question: %+v", calls)
	}
	// Rewriting again: denied after the second answer, never a third.
	before = len(ap.Calls())
	rewrite = []string{"touch b", "touch c", "touch d"}
	if r := check(t, g, bash("touch a")); r.Decision != perm.Deny || !strings.Contains(r.Reason, "rewrote the call twice") {
		t.Errorf("rewriting twice: %+v", r)
	}
	if n := len(ap.Calls()) - before; n != 2 {
		t.Errorf("asked %d times, want 2", n)
	}
}

// "Always allow" (addRules, session) holds for the rest of the run for the
// agent that was answered only, and deny rules still beat it.
func TestDelegateSessionRulesPerAgent(t *testing.T) {
	gateFor, ap := delegateGate(t, func(r mcptest.Request) string {
		if r.Agent == "a" {
			return `{"behavior":"allow","updatedPermissions":[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"touch:*"}],"behavior":"allow","destination":"session"},
				{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"mkdir:*"}],"behavior":"allow","destination":"userSettings"}]}`
		}
		return `{"behavior":"allow"}`
	}, basePolicy(t, "Bash(touch secret*)"))
	a, a2, b := gateFor("a"), gateFor("a"), gateFor("b")
	count := func() int { return len(ap.Calls()) }

	if r := check(t, a, bash("touch 1")); r.Decision != perm.Allow {
		t.Fatalf("a first: %+v", r)
	}
	if count() != 1 {
		t.Fatalf("asked %d times", count())
	}
	// a again (another gate of the same agent: a second run of it): the
	// session rule decides, the delegate is not asked.
	for _, g := range []*gate.Gate{a, a2} {
		if r := check(t, g, bash("touch 2")); r.Decision != perm.Allow || r.Source != perm.SourceDelegate || r.Step != 6 {
			t.Errorf("a with its rule: %+v", r)
		}
	}
	if count() != 1 {
		t.Errorf("the delegate was asked again for a: %d calls", count())
	}
	// b is asked: a's rule is a's.
	if r := check(t, b, bash("touch 3")); r.Decision != perm.Allow {
		t.Errorf("b: %+v", r)
	}
	if calls := ap.Calls(); len(calls) != 2 || calls[1].Agent != "b" {
		t.Errorf("b was not asked about: %+v", calls)
	}
	// A deny rule beats the session rule, without asking.
	if r := check(t, a, bash("touch secret.txt")); r.Decision != perm.Deny || !strings.Contains(r.Reason, "touch secret") {
		t.Errorf("deny beats session rule: %+v", r)
	}
	// The userSettings entry was not applied: mkdir asks.
	if r := check(t, a, bash("mkdir d")); r.Decision != perm.Allow || count() != 3 {
		t.Errorf("mkdir: %+v after %d calls", r, count())
	}
}

// Under allowManagedPermissionRulesOnly the tool's "always allow" adds no
// allow rule, as a person's or a hook's does not: it is asked again about
// the next call, which it still answers; its deny rules are added.
func TestDelegateManagedRulesOnly(t *testing.T) {
	gateFor, ap, warnings := delegateGates(t, func(r mcptest.Request) string {
		return `{"behavior":"allow","updatedPermissions":[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"touch:*"}],"behavior":"allow","destination":"session"},
			{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"mkdir:*"}],"behavior":"deny","destination":"session"}]}`
	}, basePolicy(t), true)
	g := gateFor("a")
	for i, cmd := range []string{"touch 1", "touch 2"} {
		if r := check(t, g, bash(cmd)); r.Decision != perm.Allow || r.Step == 6 {
			t.Errorf("%s: %+v", cmd, r)
		}
		if n := len(ap.Calls()); n != i+1 {
			t.Errorf("after %s the delegate was asked %d times, want %d: its allow rule applied", cmd, n, i+1)
		}
	}
	if r := check(t, g, bash("mkdir d")); r.Decision != perm.Deny {
		t.Errorf("the deny rule was not added: %+v", r)
	}
	if len(*warnings) == 0 || !strings.Contains((*warnings)[0], "(allowManagedPermissionRulesOnly); not adding Bash(touch:*)") {
		t.Errorf("warnings: %q", *warnings)
	}
}

// The policy an agent's view returns after an answer added rules is
// compiled and made once, until another rule is added or the base
// changes.
func TestDelegatePolicyMergedOnce(t *testing.T) {
	d := &Delegate{tool: "mcp__perm__approve", rules: make(map[string]*sessionRules)}
	base := basePolicy(t, "Bash(rm:*)")
	pol, _ := d.For("a", func() perm.Policy { return base })
	d.add("a", []PermissionUpdate{{Behavior: "allow", Rules: []string{"Bash(npm test)"}, Destination: "session"}})
	first, again := pol(), pol()
	if !first.Compiled() || len(first.Allow) != 1 || len(first.Deny) != 1 {
		t.Fatalf("merged policy: compiled %v, %d allow, %d deny rules", first.Compiled(), len(first.Allow), len(first.Deny))
	}
	if &first.Allow[0] != &again.Allow[0] {
		t.Error("the merged policy was made again for an unchanged base and rules")
	}
	d.add("a", []PermissionUpdate{{Behavior: "deny", Rules: []string{"Bash(curl:*)"}, Destination: "session"}})
	if p := pol(); len(p.Deny) != 2 || !p.Compiled() {
		t.Errorf("after a deny rule was added: %d deny rules, compiled %v", len(p.Deny), p.Compiled())
	}
	base.Ask = append(base.Ask, first.Allow[0]) // the base changes
	if p := pol(); len(p.Ask) != 1 || len(p.Deny) != 2 {
		t.Errorf("after the base changed: %d ask, %d deny rules", len(p.Ask), len(p.Deny))
	}
	if r := perm.Evaluate(bash("curl x"), func() *perm.Policy { p := pol(); return &p }()); r.Decision != perm.Deny {
		t.Errorf("curl under the added deny rule: %+v", r)
	}
}

// An Ask a PreToolUse hook raised about a call the policy allows goes to
// the tool, which decides it: evaluated again without the hook, it was an
// Allow nobody was asked about.
func TestDelegateAnswersHookAsk(t *testing.T) {
	gateFor, ap := delegateGate(t, func(mcptest.Request) string {
		return `{"behavior":"deny","message":"not now"}`
	}, basePolicy(t))
	g := gateFor("")
	hookAsk := perm.Result{Decision: perm.Ask, Reason: "a PreToolUse hook asks for approval", Rule: "PreToolUse hook", Source: perm.SourceHook}
	r := g.Asker.Ask(context.Background(), bash("ls"), hookAsk, g.Effective)
	if r.Decision != perm.Deny || !strings.Contains(r.Reason, "not now") || len(ap.Calls()) != 1 {
		t.Errorf("got %v (%s), the tool asked %d times; want its deny", r.Decision, r.Reason, len(ap.Calls()))
	}
}

// An allow whose updatedInput is the input the tool was told (Claude
// Code's tools answer allow so) approves the call: it was taken as a
// rewrite, evaluated again, asked about once more and denied as a second
// rewrite that still asks. A file tool's echo carries the absolute path
// the tool was told; the call runs as the model made it.
func TestDelegateEchoApproves(t *testing.T) {
	echo := func(r mcptest.Request) string {
		b, err := json.Marshal(map[string]any{"behavior": "allow", "updatedInput": r.Input})
		if err != nil {
			t.Error(err)
		}
		return string(b)
	}
	for _, req := range []perm.Request{
		{Tool: "Write", Input: map[string]any{"file_path": "a.txt", "content": "x"}, ID: "call_1"},
		bash("touch b"),
	} {
		gateFor, ap := delegateGate(t, echo, basePolicy(t))
		r := check(t, gateFor(""), req)
		if r.Decision != perm.Allow || r.Input != nil || len(ap.Calls()) != 1 {
			t.Errorf("%s: %v (%s), input %v, the tool asked %d times; want the call allowed as made, asked once", req.Tool, r.Decision, r.Reason, r.Input, len(ap.Calls()))
		}
	}
}

// The tool is told a file tool's paths absolute, as hooks are: a relative
// path leaving the project is not left for it to resolve.
func TestDelegateToldAbsolutePaths(t *testing.T) {
	base := basePolicy(t)
	gateFor, ap := delegateGate(t, func(mcptest.Request) string { return `{"behavior":"deny"}` }, base)
	req := perm.Request{Tool: "Write", Input: map[string]any{"file_path": "../elsewhere/.bashrc", "content": "x"}, ID: "call_1"}
	check(t, gateFor(""), req)
	calls := ap.Calls()
	want := filepath.Join(filepath.Dir(base.Workspace.Cwd), "elsewhere", ".bashrc")
	if len(calls) != 1 || calls[0].Input["file_path"] != want {
		t.Fatalf("the tool was asked %+v; want file_path %s", calls, want)
	}
	if req.Input["file_path"] != "../elsewhere/.bashrc" {
		t.Errorf("the call's own input changed: %v", req.Input)
	}
}

// The deny and ask rules the tool's answers add for the main loop bind
// its subagents too: a subagent never gets more than its parent. Allow
// rules stay the agent's own.
func TestDelegateMainLoopDenyBindsSubagents(t *testing.T) {
	base := basePolicy(t)
	// What a subagent's allow_tools: Bash would allow.
	base.Allow = []perm.Entry{{Rule: perm.Rule{Tool: "Bash"}, Source: perm.SourceAgent}}
	gateFor, ap := delegateGate(t, func(r mcptest.Request) string {
		if r.Agent != "" {
			return `{"behavior":"allow"}`
		}
		return `{"behavior":"allow","updatedPermissions":[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"touch:*"}],"behavior":"deny","destination":"session"},
			{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"mkdir:*"}],"behavior":"ask","destination":"session"},
			{"type":"addRules","rules":[{"toolName":"Write"}],"behavior":"allow","destination":"session"}]}`
	}, base)
	main, sub := gateFor(""), gateFor("alpha")
	write := perm.Request{Tool: "Write", Input: map[string]any{"file_path": "a.txt", "content": "x"}, ID: "call_1"}
	if r := check(t, sub, bash("touch a")); r.Decision != perm.Allow || len(ap.Calls()) != 0 {
		t.Fatalf("subagent's touch before: %+v", r)
	}
	if r := check(t, main, write); r.Decision != perm.Allow || len(ap.Calls()) != 1 {
		t.Fatalf("main loop's write: %+v", r)
	}
	if r := check(t, main, bash("touch a")); r.Decision != perm.Deny {
		t.Errorf("main loop's touch after its deny rule: %+v", r)
	}
	if r := check(t, sub, bash("touch a")); r.Decision != perm.Deny || !strings.Contains(r.Reason, "touch:*") {
		t.Errorf("subagent's touch under the main loop's deny rule: %+v", r)
	}
	if r := check(t, sub, bash("mkdir d")); r.Decision != perm.Allow || len(ap.Calls()) != 2 || ap.Calls()[1].Agent != "alpha" {
		t.Errorf("subagent's mkdir under the main loop's ask rule: %+v, asked %+v", r, ap.Calls())
	}
	// Its allow rule is the main loop's only: the subagent's Write asks.
	if check(t, sub, write); len(ap.Calls()) != 3 {
		t.Errorf("the main loop's allow rule decided the subagent's call: asked %+v", ap.Calls())
	}
}

// An ask rule added to the agent's gate (a PermissionRequest hook's
// updatedPermissions for the session) holds: the tool is asked about the
// call it covers, which the delegate's own policy would allow.
func TestDelegateHonoursGateAskRules(t *testing.T) {
	gateFor, ap := delegateGate(t, func(mcptest.Request) string { return `{"behavior":"deny","message":"no"}` }, basePolicy(t))
	g := gateFor("")
	if r := check(t, g, bash("cat a.txt")); r.Decision != perm.Allow || len(ap.Calls()) != 0 {
		t.Fatalf("cat before the rule: %+v", r)
	}
	if err := g.AddRules(gate.Rules{Ask: []perm.Rule{{Tool: "Bash", Pattern: "cat:*", HasPattern: true}}}); err != nil {
		t.Fatal(err)
	}
	if r := check(t, g, bash("cat a.txt")); r.Decision != perm.Deny || len(ap.Calls()) != 1 {
		t.Errorf("cat under the gate's ask rule: %+v, the tool asked %d times", r, len(ap.Calls()))
	}
}

// allowManagedPermissionRulesOnly set while the run goes on binds the
// delegate's view at once: the allow rules its answers added no longer
// count (For read the setting once, when the gate was made).
func TestDelegateManagedRulesOnlySetDuringTheRun(t *testing.T) {
	d := &Delegate{tool: "mcp__perm__approve", rules: make(map[string]*sessionRules)}
	base := basePolicy(t)
	pol, _ := d.For("a", func() perm.Policy { return base })
	d.add("a", []PermissionUpdate{{Behavior: "allow", Rules: []string{"Bash(npm test)"}, Destination: "session"}})
	if p := pol(); len(p.Allow) != 1 {
		t.Fatalf("before: %d allow rules, want the added one", len(p.Allow))
	}
	base.ManagedRulesOnly = true
	if p := pol(); len(p.Allow) != 0 {
		t.Errorf("after allowManagedPermissionRulesOnly was set: allow rules %v, want none", p.Allow)
	}
}
