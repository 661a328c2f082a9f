// Package gate decides each tool call: the one seam between a run and the
// permission engine beneath it (package perm). Every run, main loop,
// subagent or headless, decides its calls with a Gate: it runs the
// PreToolUse hooks, evaluates the call under the run's policy and, on Ask,
// runs the PermissionRequest hooks and then consults the run's Asker.
// Only after all of them does step 8 (perm.Unattended) turn what is still
// Ask into Deny, so a hook or a permission-prompt delegate can approve a
// headless call on the user's behalf. A final Deny runs the
// PermissionDenied hooks; PostToolUse runs after the tool (Review, called
// by tool.Set.Call), PostToolUseFailure after one that failed
// (ReviewFailure). It sits on perm, hook (running hooks) and schema
// (checking inputs a hook or an Asker substituted).
package gate

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gen-run/gen/hook"
	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/schema"
)

// Asker settles a call the policy decided Ask for: the main loop asks a
// person (the TUI's approval dialog); a headless run may have a
// permission-prompt delegate, or none. It returns the final decision; a
// result that is still Ask counts as unanswered and becomes Deny
// (perm.Unattended). Implementations must be safe for concurrent use and
// give up when ctx ends.
//
// policy returns the policy in force at the asking gate at the moment it
// is called: the gate's Policy with the rules added to its agent
// (AddRules), which change while the Asker waits (a grant made by another
// dialog, a PermissionRequest hook's rule). An Asker that evaluates the
// call again before it asks, or after an answer added rules, calls it
// then: evaluated under its own policy alone, an Asker allowed what an
// ask rule a PermissionRequest hook had added for the session asks
// about, and nobody was asked. It is never nil.
type Asker interface {
	Ask(ctx context.Context, req perm.Request, ask perm.Result, policy func() perm.Policy) perm.Result
}

// Answerer is an Asker whose answer can carry more than a decision: a
// changed input and rules for the rest of the run (a permission-prompt
// delegate's updatedInput and "always allow for this agent"). When the
// Asker implements it, the gate calls Answer instead of Ask. policy is
// as for Ask.
type Answerer interface {
	Answer(ctx context.Context, req perm.Request, ask perm.Result, policy func() perm.Policy) Answer
}

// Stopper is an Asker whose answer may also stop the agent: the
// permission-prompt tool's deny with "interrupt": true. When the Asker
// implements it, the gate calls AskStop instead of Ask, and a stop it
// gives ends the agent after the round of calls this one is in
// (TakeHalt), as a hook's interrupt does. policy is as for Ask.
type Stopper interface {
	AskStop(ctx context.Context, req perm.Request, ask perm.Result, policy func() perm.Policy) (res perm.Result, stop string)
}

// Answer is an Answerer's answer.
type Answer struct {
	// Result is Allow, Deny, or Ask (unanswered, which becomes Deny).
	Result perm.Result
	// UpdatedInput, with an Allow, replaces the call's input. The gate
	// checks it against the tool's schema and evaluates it as a new call;
	// if that asks, the Answerer is asked once more about the changed
	// call, and an answer that changes the input again denies.
	UpdatedInput map[string]any
	// Rules are added for the rest of the run to this gate's agent only
	// (AddRules), when the call is finally allowed.
	Rules Rules
}

// Rules are permission rules added to one agent for the rest of its run.
type Rules struct {
	// Allow rules join the policy's allow rules (step 6, below every ask
	// rule, as the permission-prompt delegate's do); Ask and Deny rules
	// join the policy's ask and deny rules.
	Allow, Ask, Deny []perm.Rule
}

// Gate decides calls under a policy. It implements tool.Gate, and
// tool.Decider and tool.Reviewer for the hooks. Its exported fields must
// not change while it is in use; it must not be copied after first use.
type Gate struct {
	// Policy returns the policy in force at the moment of a call (it may
	// change between calls: modes, session grants). Must not be nil.
	// Its NoPrompt is not used: the gate applies step 8 itself, after
	// the hooks and the Asker had their say.
	Policy func() perm.Policy
	// Asker settles Ask decisions the hooks left open. nil means nobody
	// can be asked: Ask becomes Deny.
	Asker Asker
	// Hooks runs the agent's hooks; nil runs none.
	Hooks *hook.Agent
	// Prepare normalises and validates an input a hook or an Answerer
	// substituted, before it is evaluated; nil means schema.Normalize and
	// schema.Validate (which know only the built-in tools: for others a
	// changed input is refused). An error denies the call.
	Prepare func(tool string, in map[string]any) (map[string]any, error)

	mu    sync.Mutex
	added Rules // AddRules
	// gen counts the AddRules calls that added a rule.
	gen int
	// merged is the policy policy last built from Policy's result and the
	// added rules, compiled; nil until then.
	merged *merged
	// halt is the first stop the Asker asked for since TakeHalt.
	halt atomic.Pointer[string]
}

// TakeHalt returns why the agent must stop since it was last asked: a
// hook's stop or interrupt (hook.Agent.TakeHalt), or the Asker's
// (Stopper); "" when none asked. It forgets both. It is the agent's
// loop.Runner.Halt.
func (g *Gate) TakeHalt() string {
	why := g.Hooks.TakeHalt()
	if p := g.halt.Swap(nil); p != nil && why == "" {
		why = *p
	}
	return why
}

// merged is a policy with the rules added to a gate, compiled once: the
// same base and the same added rules give the same policy, so a call
// reuses it instead of compiling the longer lists again (a thousand rules
// cost far more to compile than one call costs to decide). It is never
// changed once built.
type merged struct {
	base perm.Policy // what Gate.Policy returned
	gen  int         // Gate.gen when built
	p    perm.Policy
}

// Fixed returns a Gate for a policy that does not change, with nobody to
// ask (subagents, `gen agent run`).
func Fixed(p perm.Policy) *Gate {
	return &Gate{Policy: func() perm.Policy { return p }}
}

// AddRules adds rules to this gate's agent for the rest of the run. While
// the policy is perm.Policy.ManagedRulesOnly (managed settings'
// allowManagedPermissionRulesOnly, read now, not when the gate was made)
// the allow rules are refused (an error) and the others added.
func (g *Gate) AddRules(r Rules) error {
	var err error
	if len(r.Allow) > 0 && g.Policy().ManagedRulesOnly {
		err = fmt.Errorf("gate: managed settings allow only managed permission rules; not adding %s", ruleList(r.Allow))
		r.Allow = nil
	}
	if len(r.Allow)+len(r.Ask)+len(r.Deny) == 0 {
		return err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.added.Allow = append(g.added.Allow, r.Allow...)
	g.added.Ask = append(g.added.Ask, r.Ask...)
	g.added.Deny = append(g.added.Deny, r.Deny...)
	g.gen++ // the merged policy is out of date
	return err
}

// Restrictions returns the deny and ask rules added to this gate's agent
// (AddRules: a PermissionRequest hook's or an Answerer's), as policy
// entries: a main loop passes them down to the subagents it starts
// (policy.Parent), which must never get more than it.
func (g *Gate) Restrictions() (deny, ask []perm.Entry) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return entries(g.added.Deny), entries(g.added.Ask)
}

// Effective returns the policy this gate decides calls under: Policy's,
// with the rules added to its agent (AddRules). What must follow the
// gate's decisions outside it (the file filter of Glob and Grep, the
// paths Bash's sandbox hides) takes its policy from here: with Policy
// alone, a deny rule added during the run denied Read of a file that
// Grep still showed.
func (g *Gate) Effective() perm.Policy { return g.policy() }

// policy is the policy to evaluate a call under: Policy's, with the rules
// added to this agent, and with step 8 left to the gate. With rules
// added, it is the merged policy built for the same base and the same
// added rules, if there is one (perm.Policy.Equal compares the base);
// otherwise it is built and compiled now, reusing what the previous one
// compiled. The result is shared by concurrent calls, read-only.
func (g *Gate) policy() perm.Policy {
	base := g.Policy()
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.gen == 0 {
		base.NoPrompt = false
		return base
	}
	if m := g.merged; m != nil && m.gen == g.gen && m.base.Equal(&base) {
		return m.p
	}
	p := base
	p.NoPrompt = false
	// Fresh slices: Policy may hand out the same ones to every call.
	// Lists nothing was added to stay as they are, so that the base's
	// compiled lists are reused (perm.Policy.CompileFrom).
	if len(g.added.Allow) > 0 && !base.ManagedRulesOnly {
		// Plain allow rules (step 6), not session grants (step 4): a
		// rule a hook or an approver added for one call must not
		// outrank an ask rule (a managed one) for the next. Added
		// before allowManagedPermissionRulesOnly was set, they no
		// longer count once it is.
		p.Allow = slices.Concat(p.Allow, entries(g.added.Allow))
	}
	if len(g.added.Ask) > 0 {
		p.Ask = slices.Concat(p.Ask, entries(g.added.Ask))
	}
	if len(g.added.Deny) > 0 {
		p.Deny = slices.Concat(p.Deny, entries(g.added.Deny))
	}
	m := &merged{base: base, gen: g.gen}
	prevs := []*perm.Policy{&m.base}
	if g.merged != nil {
		prevs = append(prevs, &g.merged.p)
	}
	p.CompileFrom(prevs...)
	m.p = p
	g.merged = m
	return p
}

func entries(rs []perm.Rule) []perm.Entry {
	out := make([]perm.Entry, len(rs))
	for i, r := range rs {
		out[i] = perm.Entry{Rule: r, Source: perm.SourceSession, Origin: "added during this run"}
	}
	return out
}

// Check decides req: Allow or Deny, never Ask. A call whose input a hook
// or the Asker would change is denied: Check's caller runs the call as it
// sent it (see Decide).
func (g *Gate) Check(ctx context.Context, req perm.Request) perm.Result {
	res, _, changed := g.decide(ctx, req)
	if changed && res.Decision == perm.Allow {
		return perm.Result{Decision: perm.Deny, Step: res.Step, Source: perm.SourceHook,
			Reason: "a hook or the approver changed the input of a call that can only run as sent"}
	}
	return res
}

// Decide decides req, Allow or Deny, and returns the input the call must
// run with: req.Input, or the input a hook or the Asker substituted, which
// the decision is about.
//
// The order:
//  1. PreToolUse hooks. Their updatedInput replaces the input (a new
//     call, which they are run on again: preAgain); their allow only approves what the mode's default would ask
//     (hook.ApplyPreToolUse): deny rules, ask rules and bypass-immune
//     checks stand.
//  2. perm.Evaluate, without step 8.
//  3. On Ask: PermissionRequest hooks (hook.ApplyPermissionRequest), then
//     the Asker for what they left open. A call either rewrote is held
//     to the PreToolUse hooks again (rewritten).
//  4. Step 8: what is still Ask becomes Deny.
//  5. On Deny: PermissionDenied hooks.
func (g *Gate) Decide(ctx context.Context, req perm.Request) (perm.Result, map[string]any) {
	res, in, _ := g.decide(ctx, req)
	return res, in
}

func (g *Gate) decide(ctx context.Context, req perm.Request) (perm.Result, map[string]any, bool) {
	pol := g.policy()
	orig := req.Input
	var pre hook.Outcome
	if g.Hooks.Has(hook.PreToolUse) {
		pre = g.Hooks.Run(ctx, hook.PreToolUse, g.input(req, &pol))
		if pre.UpdatedInput != nil {
			in, err := g.prepare(req.Tool, pre.UpdatedInput)
			if err != nil {
				return g.denied(ctx, req, &pol, invalid("a PreToolUse hook", err)), orig, false
			}
			req.Input = in
			pre = g.preAgain(ctx, req, &pol, pre)
		}
	}
	res := hook.ApplyPreToolUse(pre, perm.Evaluate(req, &pol))
	if pol.Mode == perm.ModeDontAsk {
		// Nobody is asked in dontAsk, about what a PreToolUse hook asks
		// either (perm.Evaluate has already denied its own asks).
		res = perm.Unattended(res)
	}
	if res.Decision == perm.Ask {
		judged := req.Input // what the PreToolUse hooks saw
		res, req = g.settle(ctx, req, res, &pol)
		if res.Input != nil {
			// An Asker that evaluated a rewritten call itself (the
			// permission-prompt delegate) hands back the input its
			// decision is about, which nothing has held to the tool's
			// schema yet.
			req.Input = res.Input
			if in, err := g.prepare(req.Tool, req.Input); err != nil || !reflect.DeepEqual(in, req.Input) {
				res = invalid("the permission-prompt tool", cmp.Or(err, errors.New("it is not in the tool's own form (an alias, or a null)")))
			}
		}
		if res.Decision == perm.Allow && !sameMap(req.Input, judged) {
			res = g.rewritten(ctx, req, &pol, res)
		}
	}
	res = perm.Unattended(res)
	if res.Decision == perm.Deny {
		res = g.denied(ctx, req, &pol, res)
	}
	return res, req.Input, !sameMap(req.Input, orig)
}

// preAgain holds req, a call whose input a PreToolUse hook changed (pre is
// the hooks' outcome), to the PreToolUse hooks again: they all ran at
// once on the input the model sent, and a guard among them (a managed
// one that refuses curl) must not be talked around by another's rewrite
// of a call it let through (echo hi into curl, in bypassPermissions). It
// returns the outcome to apply: the stricter of the two verdicts, with
// the stop of either. A hook that changes the changed input once more
// denies: no hook's answer is about what it would run.
func (g *Gate) preAgain(ctx context.Context, req perm.Request, pol *perm.Policy, pre hook.Outcome) hook.Outcome {
	o := g.Hooks.Run(ctx, hook.PreToolUse, g.input(req, pol))
	if o.UpdatedInput != nil {
		if in, err := g.prepare(req.Tool, o.UpdatedInput); err != nil || !reflect.DeepEqual(in, req.Input) {
			o.Verdict, o.Reason = hook.Deny, "a PreToolUse hook changed the input of a call another PreToolUse hook had changed: no hook's answer is about what it would run"
		}
	}
	o.UpdatedInput = nil
	if pre.Verdict > o.Verdict {
		o.Verdict, o.Reason = pre.Verdict, pre.Reason
	}
	if pre.Stop {
		o.Stop, o.StopReason = true, strings.TrimSpace(pre.StopReason+"\n"+o.StopReason)
	}
	return o
}

// rewritten holds res, an Allow of req, a call whose input the approver
// or a PermissionRequest hook changed, to the PreToolUse hooks: a
// changed call is a new call, and a hook that guards what runs (a
// managed one that refuses rm) must not be talked around by whoever
// rewrites a call it let through into one it refuses. Their deny (or
// stop) denies. Their ask is answered by the approval that made the
// call, which was for this input. A hook that changes the input once
// more denies: nobody approved what it would run.
func (g *Gate) rewritten(ctx context.Context, req perm.Request, pol *perm.Policy, res perm.Result) perm.Result {
	if !g.Hooks.Has(hook.PreToolUse) {
		return res
	}
	o := g.Hooks.Run(ctx, hook.PreToolUse, g.input(req, pol))
	if r := hook.ApplyPreToolUse(o, res); r.Decision == perm.Deny {
		return r
	}
	if o.UpdatedInput != nil {
		return perm.Result{Decision: perm.Deny, Step: 0, Rule: "PreToolUse hook", Source: perm.SourceHook,
			Reason: "a PreToolUse hook changed the input of a call its approver had changed: nobody approved what it would run"}
	}
	return res
}

// settle answers the Ask res for req: the PermissionRequest hooks first,
// then the Asker. It returns the decision and the call it is about.
func (g *Gate) settle(ctx context.Context, req perm.Request, res perm.Result, pol *perm.Policy) (perm.Result, perm.Request) {
	if g.Hooks.Has(hook.PermissionRequest) {
		in := g.input(req, pol)
		var sugg []perm.Rule
		for _, s := range perm.Suggest(req, pol) {
			if r, err := perm.ParseRule(s); err == nil {
				sugg = append(sugg, r)
			}
		}
		if len(sugg) > 0 {
			in.PermissionSuggestions = []hook.PermissionUpdate{hook.AddRules("allow", "session", sugg...)}
		}
		o := g.Hooks.Run(ctx, hook.PermissionRequest, in)
		r, decided := hook.ApplyPermissionRequest(o, res)
		if decided && r.Decision == perm.Allow && o.UpdatedInput != nil {
			// The approval is for the changed call, which is a new call:
			// evaluated again, and an Ask there answered by the same
			// hooks' outcome (never a bypass-immune one).
			nin, err := g.prepare(req.Tool, o.UpdatedInput)
			if err != nil {
				return invalid("a PermissionRequest hook", err), req
			}
			req.Input = nin
			r = perm.Evaluate(req, pol)
			if r.Decision == perm.Ask {
				r, _ = hook.ApplyPermissionRequest(o, r)
			}
		}
		if r.Decision == perm.Allow {
			g.applyUpdates(o.UpdatedPermissions)
		}
		if r.Decision != perm.Ask {
			return r, req
		}
		res = r
	}
	if g.Asker == nil {
		return res, req
	}
	// An Asker that evaluates the call again (a grant made meanwhile)
	// does so under this gate's policy, with the rules added to it, as
	// they are when it evaluates: g.policy, not pol.
	if st, ok := g.Asker.(Stopper); ok {
		r, stop := st.AskStop(ctx, req, res, g.policy)
		if stop != "" {
			g.halt.CompareAndSwap(nil, &stop)
		}
		return r, req
	}
	a, ok := g.Asker.(Answerer)
	if !ok {
		return g.Asker.Ask(ctx, req, res, g.policy), req
	}
	ans := a.Answer(ctx, req, res, g.policy)
	if ans.Result.Decision == perm.Allow && ans.UpdatedInput != nil {
		nin, err := g.prepare(req.Tool, ans.UpdatedInput)
		if err != nil {
			return invalid("the approver", err), req
		}
		req.Input = nin
		if r := perm.Evaluate(req, pol); r.Decision != perm.Ask {
			ans.Result = r
		} else {
			// The changed call needs an approval of its own.
			ans = a.Answer(ctx, req, r, g.policy)
			if ans.Result.Decision == perm.Allow && ans.UpdatedInput != nil {
				return perm.Result{Decision: perm.Deny, Step: r.Step, Source: perm.SourceSession,
					Reason: "the approver changed the input of a call a second time"}, req
			}
		}
	}
	if ans.Result.Decision == perm.Allow {
		if err := g.AddRules(ans.Rules); err != nil {
			g.warn(err.Error())
		}
	}
	return ans.Result, req
}

// applyUpdates applies the updatedPermissions of PermissionRequest hooks
// that allowed a call: addRules for the session, to this agent only.
// Anything else would change files or the whole session on a hook's word,
// and is ignored with a warning.
func (g *Gate) applyUpdates(us []hook.PermissionUpdate) {
	var add Rules
	for _, u := range us {
		if u.Type != "addRules" || u.Destination != "session" {
			g.warn(fmt.Sprintf("PermissionRequest hook: updatedPermissions %s to %s ignored (gen applies only addRules to the session)", u.Type, u.Destination))
			continue
		}
		rules, err := u.ParsedRules()
		if err != nil {
			g.warn("PermissionRequest hook: updatedPermissions ignored: " + err.Error())
			continue
		}
		switch u.Behavior {
		case "allow":
			add.Allow = append(add.Allow, rules...)
		case "ask":
			add.Ask = append(add.Ask, rules...)
		case "deny":
			add.Deny = append(add.Deny, rules...)
		}
	}
	if err := g.AddRules(add); err != nil {
		g.warn(err.Error())
	}
}

// denied runs the PermissionDenied hooks for a final Deny.
func (g *Gate) denied(ctx context.Context, req perm.Request, pol *perm.Policy, res perm.Result) perm.Result {
	if !g.Hooks.Has(hook.PermissionDenied) {
		return res
	}
	in := g.input(req, pol)
	in.Reason = res.Reason
	if o := g.Hooks.Run(ctx, hook.PermissionDenied, in); o.Retry {
		res.Reason += " (a PermissionDenied hook says the call may be retried)"
	}
	return res
}

// Review runs the PostToolUse hooks for a call that ran and returned
// output and, for tools that have one, a structured response. It returns
// what the model must be told besides the output (a hook's block reason
// and additional context), "" when nothing. It implements tool.Reviewer.
func (g *Gate) Review(ctx context.Context, req perm.Request, output string, response any) string {
	if !g.Hooks.Has(hook.PostToolUse) {
		return ""
	}
	pol := g.Policy()
	in := g.input(req, &pol)
	in.ToolResponse = toolResponse(req.Tool, in.ToolInput, output, response)
	return notes(g.Hooks.Run(ctx, hook.PostToolUse, in))
}

// ReviewFailure runs the PostToolUseFailure hooks for a call that was
// allowed and failed with err, told is_interrupt when the person
// interrupted it (interrupt). It returns what the model must be told
// besides the error (a hook's block reason and additional context), ""
// when nothing. It implements tool.FailureReviewer.
func (g *Gate) ReviewFailure(ctx context.Context, req perm.Request, err error, interrupt bool) string {
	if !g.Hooks.Has(hook.PostToolUseFailure) {
		return ""
	}
	pol := g.Policy()
	in := g.input(req, &pol)
	in.Error, in.IsInterrupt = err.Error(), interrupt
	return notes(g.Hooks.Run(ctx, hook.PostToolUseFailure, in))
}

// notes is what the model is told of the outcome o of the hooks that
// looked at a call's result: a block's reason and additional context.
func notes(o hook.Outcome) string {
	var ns []string
	if o.Block {
		ns = append(ns, string(o.Event)+" hook: "+o.Reason)
	}
	return strings.Join(append(ns, o.Context...), "\n")
}

// toolResponse is a call's tool_response as PostToolUse hooks are told
// it. For the tools whose response Claude Code's hooks read fields of, it
// is an object with those fields, so that a hook written for Claude Code
// (jq -r '.tool_response.filePath // .tool_input.file_path') works: the
// tool's structured response as it is (tool.Responder: Bash, Read, Glob
// and Grep, whose shapes are the tool package's *Response types), and for
// Write, Edit and NotebookEdit filePath (absolute, from in, the input
// hooks see), success and what the edit was. Every object also has
// output, the text the model was given. Other tools' response is that
// text.
func toolResponse(tool string, in map[string]any, output string, response any) any {
	if response != nil {
		return response
	}
	switch tool {
	case "Write", "Edit", "NotebookEdit":
		r := map[string]any{"success": true, "output": output}
		if tool == "NotebookEdit" {
			r["filePath"] = in["notebook_path"]
		} else {
			r["filePath"] = in["file_path"]
		}
		switch tool {
		case "Write":
			r["content"] = in["content"]
		case "Edit":
			r["oldString"], r["newString"] = in["old_string"], in["new_string"]
			r["replaceAll"] = in["replace_all"] == true
		}
		return r
	}
	return output
}

// input is what hooks are told of a call under pol. A file tool's path
// is absolute, as Claude Code's hooks are given it: a hook that guards
// a directory by its absolute path must see the model's relative
// file_path ("src/a.go", "~/x") as the path the tool opens. The call's
// own input is not changed.
func (g *Gate) input(req perm.Request, pol *perm.Policy) hook.Input {
	return hook.Input{PermissionMode: string(pol.Mode), ToolName: req.Tool, ToolInput: AbsPaths(req, pol.Workspace), ToolUseID: req.ID}
}

// AbsPaths returns the input of req as whoever judges a call outside gen
// is told it (hooks, the permission-prompt tool): for a file tool (Read,
// Edit, Write, NotebookEdit, Glob, Grep), with its file_path,
// notebook_path and path made absolute from the workspace's cwd (and "~"
// from its home), a copy if any was relative; else req.Input itself.
func AbsPaths(req perm.Request, ws perm.Workspace) map[string]any {
	in := req.Input
	switch req.Tool {
	case "Read", "Edit", "Write", "NotebookEdit", "Glob", "Grep":
	default:
		return in
	}
	var out map[string]any
	for _, k := range []string{"file_path", "notebook_path", "path"} {
		p, ok := in[k].(string)
		if !ok || p == "" || filepath.IsAbs(p) {
			continue
		}
		if out == nil {
			out = maps.Clone(in)
		}
		out[k] = ws.Abs(p)
	}
	if out == nil {
		return in
	}
	return out
}

func (g *Gate) prepare(tool string, in map[string]any) (map[string]any, error) {
	if g.Prepare != nil {
		return g.Prepare(tool, in)
	}
	in = schema.Normalize(tool, in)
	return in, schema.Validate(tool, in)
}

func (g *Gate) warn(w string) {
	if g.Hooks != nil && g.Hooks.Warn != nil {
		g.Hooks.Warn(w)
	}
}

// invalid denies a call whose substituted input does not fit its tool.
func invalid(who string, err error) perm.Result {
	return perm.Result{Decision: perm.Deny, Step: 0, Source: perm.SourceHook,
		Reason: fmt.Sprintf("the input %s substituted is not valid: %v", who, err)}
}

func ruleList(rs []perm.Rule) string {
	s := make([]string, len(rs))
	for i, r := range rs {
		s[i] = r.String()
	}
	return strings.Join(s, ", ")
}

// sameMap reports whether a and b are the same map (not only equal).
func sameMap(a, b map[string]any) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}
