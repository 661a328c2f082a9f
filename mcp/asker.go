package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/gen-run/gen/gate"
	"github.com/gen-run/gen/perm"
)

// Delegate is a headless run's permission-prompt tool
// (--permission-prompt-tool mcp__SERVER__TOOL): where the gate says Ask
// and nobody is at a terminal, the tool answers instead of Ask becoming
// Deny. One Delegate serves a whole run, the main loop and every subagent;
// each agent gets its own view (For), so the session rules one agent's
// answers add ("always allow") apply to that agent only. Safe for
// concurrent use.
type Delegate struct {
	m    *Manager
	tool string
	warn func(string)

	mu    sync.Mutex
	rules map[string]*sessionRules // by agent name; "" is the main loop
}

// sessionRules are the rules a delegate's answers added for one agent.
type sessionRules struct {
	allow, ask, deny []perm.Entry
	// merged is the last policy made from base plus these rules, while
	// base still equals it and no rule was added since (n of them):
	// compiled once, not rebuilt for every call.
	base   perm.Policy
	merged *perm.Policy
	n      int
}

// NewDelegate returns the delegate that asks toolName, a tool of m. A
// name that is not an MCP tool name is an error; a tool m does not have
// (its server failed to start) is not: each Ask then fails, which denies.
// warn, if not nil, receives what an answer asked for that gen does not
// apply (updatedPermissions for other destinations).
func NewDelegate(m *Manager, toolName string, warn func(string)) (*Delegate, error) {
	if _, _, ok := SplitName(toolName); !ok {
		return nil, fmt.Errorf("--permission-prompt-tool %q: want an MCP tool name, mcp__SERVER__TOOL", toolName)
	}
	return &Delegate{m: m, tool: toolName, warn: warn, rules: make(map[string]*sessionRules)}, nil
}

// Fresh returns a delegate that asks the same tool of the same manager
// but holds none of d's session rules: for an independent run sharing the
// servers (a batch task), whose "always allow" answers must reach no
// other run.
func (d *Delegate) Fresh() *Delegate {
	return &Delegate{m: d.m, tool: d.tool, warn: d.warn, rules: make(map[string]*sessionRules)}
}

// Tool returns the permission-prompt tool's name.
func (d *Delegate) Tool() string { return d.tool }

// For returns agent's view of the delegate, for agent's gate
// (gate.Gate{Policy: policy, Asker: asker}): policy is base plus the
// session rules the delegate's answers added for agent, with NoPrompt
// cleared (the delegate answers what would otherwise be asked); asker asks
// the tool on agent's behalf. agent is "" for the main loop.
//
// The added rules never outrank anything: allow rules are plain allow
// rules (below every deny and ask rule, and inside an agent's allow_tools
// constraint), ask and deny rules add to the policy's. The deny and ask
// rules added for the main loop ("") bind every subagent too. While base
// is perm.Policy.ManagedRulesOnly (allowManagedPermissionRulesOnly, as the
// settings are at each call) no allow rule is added, as the gate adds
// none of a hook's (gate.Gate.AddRules), and those added before it was
// set no longer count: the tool still answers each call, but no rule of
// its own allows the next ones.
func (d *Delegate) For(agent string, base func() perm.Policy) (policy func() perm.Policy, asker gate.Asker) {
	policy = func() perm.Policy {
		p := base()
		p.NoPrompt = false
		d.mu.Lock()
		defer d.mu.Unlock()
		r := d.rules[agent]
		// A subagent is bound by the deny and ask rules the main loop's
		// answers added, as by its parent's deny rules: it never gets
		// more than the main loop that started it. Allow rules stay
		// the agent's own.
		var parent sessionRules
		if agent != "" && d.rules[""] != nil {
			parent = *d.rules[""]
		}
		if len(parent.deny)+len(parent.ask) > 0 && r == nil {
			r = &sessionRules{}
			d.rules[agent] = r
		}
		if r == nil {
			return p
		}
		n := len(r.deny) + len(r.ask) + len(r.allow) + len(parent.deny) + len(parent.ask)
		if r.merged != nil && r.n == n && r.base.Equal(&p) {
			return *r.merged
		}
		m := p
		// Callers share the lists: no spare capacity an append could
		// write into.
		m.Deny = slices.Concat(p.Deny, parent.deny, r.deny)
		m.Ask = slices.Concat(p.Ask, parent.ask, r.ask)
		m.Allow = p.Allow
		if !p.ManagedRulesOnly {
			m.Allow = slices.Concat(p.Allow, r.allow)
		}
		if r.merged != nil {
			m.CompileFrom(r.merged)
		} else {
			m.Compile()
		}
		r.base, r.merged, r.n = p, &m, n
		return m
	}
	return policy, &asking{d: d, agent: agent}
}

// add records the session rules of an allow answer for agent.
func (d *Delegate) add(agent string, ups []PermissionUpdate) {
	if len(ups) == 0 {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	r := d.rules[agent]
	if r == nil {
		r = &sessionRules{}
		d.rules[agent] = r
	}
	origin := "--permission-prompt-tool " + d.tool
	for _, u := range ups {
		for _, text := range u.Rules {
			rule, err := perm.ParseRule(text)
			if err != nil {
				continue // ParsePermissionUpdates accepted only valid rules
			}
			e := perm.Entry{Rule: rule, Source: perm.SourceDelegate, Origin: origin}
			switch u.Behavior {
			case "allow":
				r.allow = append(r.allow, e)
			case "ask":
				r.ask = append(r.ask, e)
			case "deny":
				r.deny = append(r.deny, e)
			}
		}
	}
}

// asking is one agent's gate.Asker.
type asking struct {
	d     *Delegate
	agent string
}

// Ask implements gate.Asker (AskStop, without the stop).
func (a *asking) Ask(ctx context.Context, req perm.Request, res perm.Result, policy func() perm.Policy) perm.Result {
	r, _ := a.AskStop(ctx, req, res, policy)
	return r
}

// AskStop implements gate.Stopper. The gate calls it only for an Ask, so
// the tool is never consulted about a call the policy denies. The call
// is evaluated again under the asking gate's policy (policy: the agent's,
// with the rules added to its gate, as they are at that moment). Any failure
// of the tool (an error, a timeout, a malformed answer) denies. A deny
// with "interrupt": true also stops the agent: stop says why.
//
// An allow answer is not the end of it: the session rules it carries are
// added first, then the call (rewritten, when the answer has
// updatedInput) is evaluated again. A Deny there stands (a deny rule, or
// a rewrite into something denied); an Allow runs; an Ask of the same call
// is what the tool just approved. An Ask of a rewritten call goes to the
// tool once more, and if that answer leads to Ask again, the call is
// denied: a tool that keeps rewriting never loops.
func (a *asking) AskStop(ctx context.Context, req perm.Request, res perm.Result, policy func() perm.Policy) (perm.Result, string) {
	// An answer to another call meanwhile may have added a rule that
	// decides this one. An Ask a hook raised (a PreToolUse hook's ask
	// of a call the policy allows) is not the policy's: evaluated again
	// without the hook it would be the Allow the hook wanted asked about,
	// so only the tool answers it, as only the person does at a terminal
	// (session.Session.Ask).
	if res.Source != perm.SourceHook {
		pol := policy()
		if r := perm.Evaluate(req, &pol); r.Decision != perm.Ask {
			return r, ""
		}
	}
	return a.ask(ctx, req, res, policy, false)
}

func (a *asking) ask(ctx context.Context, req perm.Request, res perm.Result, policy func() perm.Policy, again bool) (perm.Result, string) {
	// The tool is told a file tool's paths as hooks are, absolute: one
	// that judges paths as Claude Code gives them (its file tools take
	// absolute paths only) must not read ../home/.bashrc or ~/.bashrc as
	// a path of the project's.
	pol := policy()
	in := gate.AbsPaths(req, pol.Workspace)
	ans, err := AskDelegate(ctx, a.d.m, a.d.tool, DelegateRequest{ToolName: req.Tool, Input: in, ToolUseID: req.ID, Agent: a.agent})
	if err != nil {
		return a.deny(res, err.Error()), ""
	}
	for _, ig := range ans.Ignored {
		if a.d.warn != nil {
			a.d.warn(fmt.Sprintf("%s: %s", a.d.tool, ig))
		}
	}
	if !ans.Allow {
		reason := fmt.Sprintf("denied by the permission-prompt tool %s: %s", a.d.tool, ans.Message)
		stop := ""
		if ans.Interrupt {
			stop = fmt.Sprintf("the permission-prompt tool %s stopped the agent: %s", a.d.tool, ans.Message)
			if a.d.warn != nil {
				a.d.warn(stop)
			}
		}
		return a.deny(res, reason), stop
	}
	a.d.add(a.agent, a.allowed(ans.Updates, pol.ManagedRulesOnly))
	pol = policy() // with the rules the answer just added
	if ans.UpdatedInput == nil || unchanged(ans.UpdatedInput, in, req.Input) {
		r := perm.Evaluate(req, &pol)
		if r.Decision == perm.Ask {
			r.Decision, r.Reason, r.Rule, r.Source = perm.Allow, "approved by the permission-prompt tool "+a.d.tool, a.d.tool, perm.SourceDelegate
		}
		if again && r.Decision == perm.Allow {
			r.Input = req.Input // the rewritten call the tool approved
		}
		return r, ""
	}
	next := perm.Request{Tool: req.Tool, Input: ans.UpdatedInput, ID: req.ID}
	r := perm.Evaluate(next, &pol)
	switch r.Decision {
	case perm.Allow:
		r.Input = next.Input
		return r, ""
	case perm.Deny:
		r.Reason = "the permission-prompt tool rewrote the call, and the rewritten call is denied: " + r.Reason
		return r, ""
	}
	if again {
		return a.deny(r, "the permission-prompt tool rewrote the call twice and it still needs approval"), ""
	}
	return a.ask(ctx, next, r, policy, true)
}

// allowed returns the updates of an answer that may be added: all of
// them, or under managedOnly (perm.Policy.ManagedRulesOnly) those that do
// not allow, with a warning naming the rules left out.
func (a *asking) allowed(ups []PermissionUpdate, managedOnly bool) []PermissionUpdate {
	if !managedOnly {
		return ups
	}
	var kept []PermissionUpdate
	var refused []string
	for _, u := range ups {
		if u.Behavior == "allow" {
			refused = append(refused, u.Rules...)
			continue
		}
		kept = append(kept, u)
	}
	if len(refused) > 0 && a.d.warn != nil {
		a.d.warn(fmt.Sprintf("%s: managed settings allow only managed permission rules (allowManagedPermissionRulesOnly); not adding %s", a.d.tool, strings.Join(refused, ", ")))
	}
	return kept
}

func (a *asking) deny(res perm.Result, reason string) perm.Result {
	res.Decision, res.Step, res.Reason, res.Rule, res.Source, res.Input = perm.Deny, 8, reason, a.d.tool, perm.SourceDelegate, nil
	return res
}

var (
	_ gate.Asker   = (*asking)(nil)
	_ gate.Stopper = (*asking)(nil)
)

// unchanged reports whether updated, a tool's updatedInput, is the input
// it was told (told, a file tool's paths absolute) or the call's own: an
// approval that echoes the call, as Claude Code's permission-prompt tools
// answer allow, is of that call, not a rewrite. Taken as one, it was
// evaluated again, asked about once more, and denied as a second rewrite
// that still asks, so no echoed approval of a call that asks ever ran.
// The maps are compared as JSON, as the tool saw and wrote them.
func unchanged(updated map[string]any, told ...map[string]any) bool {
	u, err := json.Marshal(updated)
	if err != nil {
		return false
	}
	for _, t := range told {
		if b, err := json.Marshal(t); err == nil && bytes.Equal(u, b) {
			return true
		}
	}
	return false
}
