package gate

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gen-run/gen/internal/callcorpus"
	"github.com/gen-run/gen/perm"
)

// thousandRules returns a compiled policy with the 1,000-odd rules of
// every kind the perm benchmarks use (callcorpus.Rules), in a workspace
// at dir.
func thousandRules(tb testing.TB, dir string) perm.Policy {
	tb.Helper()
	p := perm.Policy{Mode: perm.ModeDefault, Workspace: perm.Workspace{Cwd: dir, Root: dir, Home: dir}}
	deny, ask, allow := callcorpus.Rules()
	for _, l := range []struct {
		list  *[]perm.Entry
		rules []string
	}{{&p.Deny, deny}, {&p.Ask, ask}, {&p.Allow, allow}} {
		for _, s := range l.rules {
			*l.list = append(*l.list, perm.Entry{Rule: mustRule(tb, s), Source: perm.SourceUser})
		}
	}
	p.Compile()
	return p
}

// rebuilt returns a Policy function that builds base afresh for every
// call, as policy.Live does: fresh slices holding the same rules,
// compiled reusing the previous build.
func rebuilt(base perm.Policy) func() perm.Policy {
	var mu sync.Mutex
	prev := base
	return func() perm.Policy {
		p := base
		p.Deny, p.Ask, p.Allow = slices.Clone(base.Deny), slices.Clone(base.Ask), slices.Clone(base.Allow)
		mu.Lock()
		defer mu.Unlock()
		p.CompileFrom(&prev)
		prev = p
		return p
	}
}

func mustRule(tb testing.TB, s string) perm.Rule {
	tb.Helper()
	r, err := perm.ParseRule(s)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// BenchmarkGateSessionRules decides a call through a gate whose policy
// has 1,000 rules, without and with a rule added for the session (as a
// permission-prompt delegate's "always" adds), under a policy that stays
// the same (fixed) and one rebuilt for every call (rebuilt, as
// policy.Live builds it). Quote "session" as a ratio over "none": the
// merged policy is compiled once, not per call.
func BenchmarkGateSessionRules(b *testing.B) {
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("x\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	base := thousandRules(b, dir)
	req := perm.Request{Tool: "Read", Input: map[string]any{"file_path": "a.txt"}}
	ctx := context.Background()
	for _, src := range []string{"fixed", "rebuilt"} {
		for _, added := range []string{"none", "session"} {
			b.Run(src+"/"+added, func(b *testing.B) {
				g := Fixed(base)
				if src == "rebuilt" {
					g = &Gate{Policy: rebuilt(base)}
				}
				if added == "session" {
					if err := g.AddRules(Rules{Ask: []perm.Rule{mustRule(b, "Bash(git push:*)")}}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportAllocs()
				for b.Loop() {
					if r := g.Check(ctx, req); r.Decision != perm.Allow {
						b.Fatalf("%v: %s", r.Decision, r.Reason)
					}
				}
			})
		}
	}
}

// TestMergedPolicyCompiled: once rules are added to a gate, the policy a
// call is decided under is compiled (the merged lists are not compiled
// again for each call), under a fixed policy and one rebuilt per call.
func TestMergedPolicyCompiled(t *testing.T) {
	base := thousandRules(t, t.TempDir())
	for name, g := range map[string]*Gate{"fixed": Fixed(base), "rebuilt": {Policy: rebuilt(base)}} {
		if p := g.policy(); !p.Compiled() {
			t.Errorf("%s, nothing added: the policy is not compiled", name)
		}
		if err := g.AddRules(Rules{Ask: []perm.Rule{mustRule(t, "Bash(git push:*)")}, Allow: []perm.Rule{mustRule(t, "Bash(make)")}}); err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			if p := g.policy(); !p.Compiled() {
				t.Errorf("%s, call %d after AddRules: the merged policy is not compiled", name, i)
			}
		}
	}
}

// TestMergedPolicyFollowsChanges: the merged policy a gate keeps is
// rebuilt exactly when the rules added to it or the policy beneath it
// change: each added rule and each change of the base applies to the
// next call, and a change undone is undone.
func TestMergedPolicyFollowsChanges(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	bash := func(cmd string) perm.Request {
		return perm.Request{Tool: "Bash", Input: map[string]any{"command": cmd}}
	}
	var mu sync.Mutex
	base := thousandRules(t, dir) // default mode
	cur := base
	set := func(p perm.Policy) { mu.Lock(); cur = p; mu.Unlock() }
	g := &Gate{Policy: func() perm.Policy { mu.Lock(); defer mu.Unlock(); return cur }}
	// want checks the decision and the rule that made it ("" for none).
	want := func(step string, cmd string, d perm.Decision, rule string) {
		t.Helper()
		if r := g.Check(ctx, bash(cmd)); r.Decision != d || r.Rule != rule {
			t.Fatalf("%s: %s: %v by %q (%s), want %v by %q", step, cmd, r.Decision, r.Rule, r.Reason, d, rule)
		}
	}
	want("nothing added", "ls", perm.Allow, "")
	want("nothing added", "pwd", perm.Allow, "")
	if err := g.AddRules(Rules{Deny: []perm.Rule{mustRule(t, "Bash(ls:*)")}}); err != nil {
		t.Fatal(err)
	}
	want("deny added", "ls", perm.Deny, "Bash(ls:*)")
	want("deny added", "pwd", perm.Allow, "")
	if err := g.AddRules(Rules{Ask: []perm.Rule{mustRule(t, "Bash(pwd:*)")}}); err != nil {
		t.Fatal(err)
	}
	want("ask added (nobody to ask)", "pwd", perm.Deny, "Bash(pwd:*)")
	want("ask added, deny kept", "ls", perm.Deny, "Bash(ls:*)")
	want("ask added", "date", perm.Allow, "")

	// The base changes: a deny rule of its own, then the mode.
	withDeny := base
	withDeny.Deny = append(slices.Clone(base.Deny), perm.Entry{Rule: mustRule(t, "Bash(date)"), Source: perm.SourceProject})
	withDeny.Compile()
	set(withDeny)
	want("base deny rule", "date", perm.Deny, "Bash(date)")
	want("base deny rule, added deny kept", "ls", perm.Deny, "Bash(ls:*)")
	set(base)
	want("base deny rule removed", "date", perm.Allow, "")
	bypass := base
	bypass.Mode = perm.ModeBypass
	set(bypass)
	want("bypass mode", "touch x", perm.Allow, "")
	want("bypass mode, added deny kept", "ls", perm.Deny, "Bash(ls:*)")
	set(base)
	want("default mode again (nobody to ask)", "touch x", perm.Deny, "")

	// A session allow rule from the gate.
	if err := g.AddRules(Rules{Allow: []perm.Rule{mustRule(t, "Bash(touch x)")}}); err != nil {
		t.Fatal(err)
	}
	want("session allow added", "touch x", perm.Allow, "Bash(touch x)")
	want("session allow added, ask kept", "pwd", perm.Deny, "Bash(pwd:*)")
}

// TestMergedPolicyConcurrent decides calls from several goroutines while
// rules are added and the base changes (run it with -race): a rule added
// before a call is in force for it, whichever goroutine makes the call.
func TestMergedPolicyConcurrent(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	base := thousandRules(t, dir)
	base.Mode = perm.ModeBypass
	other := base
	other.Mode = perm.ModeAcceptEdits
	other.Compile()
	var flip sync.Mutex
	n := 0
	g := &Gate{Policy: func() perm.Policy {
		flip.Lock()
		defer flip.Unlock()
		n++
		if n%3 == 0 {
			return other
		}
		return base
	}}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 30 {
				cmd := fmt.Sprintf("tool-w%d-%d", w, i)
				req := perm.Request{Tool: "Bash", Input: map[string]any{"command": cmd}}
				if err := g.AddRules(Rules{Deny: []perm.Rule{mustRule(t, "Bash("+cmd+")")}}); err != nil {
					t.Error(err)
					return
				}
				if r := g.Check(ctx, req); r.Decision != perm.Deny || r.Rule != "Bash("+cmd+")" {
					t.Errorf("%s after its deny rule was added: %v (%s)", cmd, r.Decision, r.Reason)
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestAddedAllowRulesOutrankNoAskRule: an allow rule added during the run
// (a PermissionRequest hook's updatedPermissions, an Answerer's "always")
// is an ordinary allow rule, below every ask rule, as the
// permission-prompt delegate's are (mcp.Delegate.For): a call a managed
// ask rule covers is still asked about (here nobody can be asked, so it
// is denied), not allowed on a rule a hook added for another call.
func TestAddedAllowRulesOutrankNoAskRule(t *testing.T) {
	dir := t.TempDir()
	p := perm.Policy{Mode: perm.ModeDefault, Workspace: perm.Workspace{Cwd: dir, Root: dir, Home: dir},
		Ask: []perm.Entry{{Rule: mustRule(t, "Bash(git push:*)"), Source: perm.SourceManaged}}}
	g := Fixed(p)
	if err := g.AddRules(Rules{Allow: []perm.Rule{mustRule(t, "Bash")}}); err != nil {
		t.Fatal(err)
	}
	bash := func(cmd string) perm.Request {
		return perm.Request{Tool: "Bash", Input: map[string]any{"command": cmd}}
	}
	if r := g.Check(context.Background(), bash("make")); r.Decision != perm.Allow {
		t.Fatalf("make: %v (%s), want the added rule to allow it", r.Decision, r.Reason)
	}
	if r := g.Check(context.Background(), bash("git push origin main")); r.Decision != perm.Deny || r.Rule != "Bash(git push:*)" {
		t.Errorf("git push: %v by %q (%s), want the managed ask rule to ask (Deny, nobody to ask)", r.Decision, r.Rule, r.Reason)
	}
}

// allowManagedPermissionRulesOnly set while the run goes on (the managed
// settings changed; the policy is rebuilt for each call) binds the gate
// at once: the allow rules added before no longer count, and no new one
// is added. The gate had read the setting once, when it was made.
func TestManagedRulesOnlySetDuringTheRun(t *testing.T) {
	dir := t.TempDir()
	var managedOnly atomic.Bool
	g := &Gate{Policy: func() perm.Policy {
		return perm.Policy{Mode: perm.ModeDefault, Workspace: perm.Workspace{Cwd: dir, Root: dir, Home: dir}, NoPrompt: true,
			ManagedRulesOnly: managedOnly.Load()}
	}}
	bash := func(cmd string) perm.Request {
		return perm.Request{Tool: "Bash", Input: map[string]any{"command": cmd}}
	}
	if err := g.AddRules(Rules{Allow: []perm.Rule{mustRule(t, "Bash(make:*)")}}); err != nil {
		t.Fatal(err)
	}
	if r := g.Check(context.Background(), bash("make")); r.Decision != perm.Allow {
		t.Fatalf("make before: %v (%s), want the added rule to allow it", r.Decision, r.Reason)
	}
	managedOnly.Store(true)
	if r := g.Check(context.Background(), bash("make")); r.Decision != perm.Deny {
		t.Errorf("make after allowManagedPermissionRulesOnly was set: %v (%s), want the added rule not to count", r.Decision, r.Reason)
	}
	if err := g.AddRules(Rules{Allow: []perm.Rule{mustRule(t, "Bash(touch:*)")}}); err == nil {
		t.Error("an allow rule was added under allowManagedPermissionRulesOnly")
	}
	if r := g.Check(context.Background(), bash("touch x")); r.Decision != perm.Deny {
		t.Errorf("touch: %v (%s), want no added rule to allow it", r.Decision, r.Reason)
	}
}
