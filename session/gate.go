package session

import (
	"context"
	"fmt"
	"slices"

	"github.com/gen-run/gen/gate"
	"github.com/gen-run/gen/hook"
	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/schema"
	"github.com/gen-run/gen/workspace"
)

// Ask implements gate.Asker for a session with an Approver: the main
// loop's Ask goes to a person. A grant made by another dialog meanwhile is
// seen first (the call is evaluated again under policy, the asking gate's
// as it is once this dialog's turn comes); "Yes, allow all this session"
// and "Always allow" are recorded before the call goes ahead.
func (s *Session) Ask(ctx context.Context, req perm.Request, res perm.Result, policy func() perm.Policy) perm.Result {
	s.ask.Lock()
	defer s.ask.Unlock()
	// Another dialog may have just granted what this call needs. An Ask
	// a hook raised is not the policy's: only the person answers it.
	pol := policy()
	if res.Source != perm.SourceHook {
		if res = perm.Evaluate(req, &pol); res.Decision != perm.Ask {
			return res
		}
	}
	a := gate.Approval{
		Request:    req,
		Result:     res,
		Specifier:  specifier(pol.Workspace, req),
		Preview:    Preview(pol.Workspace, req),
		Class:      classOf(req.Tool),
		CanPersist: !s.managedOnly(),
	}
	// No rule is offered for a mode switch: it is approved each time.
	switch req.Tool {
	case "ExitPlanMode":
		if err := presentPlan(&a, req.Input); err != nil {
			return deny(res, "the plan cannot be shown: "+err.Error())
		}
		a.NoRule = "the plan is approved each time"
	case "EnterPlanMode":
		a.EnterPlan = true
		a.NoRule = "the mode is switched each time"
	default:
		a.Rules = perm.Suggest(req, &pol)
		a.NoRule, a.StillAsks = cover(req, res, &pol, a.Rules)
	}
	s.Notify(ctx, "gen needs your permission to use "+req.Tool, "permission_prompt")
	ans, err := s.cfg.Approver.Approve(ctx, a)
	if err != nil {
		return deny(res, "approval interrupted: "+err.Error())
	}
	switch req.Tool {
	case "ExitPlanMode":
		return s.answerPlan(res, ans.Choice)
	case "EnterPlanMode":
		if ans.Choice != gate.Yes {
			return deny(res, "the user chose to stay in "+string(s.Mode())+" mode: go on without plan mode")
		}
		return allow(res, "the user agreed to switch to plan mode")
	}
	switch ans.Choice {
	case gate.Yes:
		return allow(res, "approved by the user for this call")
	case gate.YesSession:
		s.mu.Lock()
		s.session = append(s.session, perm.Rule{Tool: a.Class})
		s.mu.Unlock()
		return allow(res, fmt.Sprintf("approved by the user: all %s calls this session", a.Class))
	case gate.Always:
		trusted, err := s.always(ans.Rules)
		if err != nil {
			return deny(res, "always allow failed: "+err.Error())
		}
		if !trusted {
			return allow(res, "approved by the user; rule saved to .gen/settings.local.json, where it applies once you trust the project, and kept for this session")
		}
		return allow(res, "approved by the user; rule saved to .gen/settings.local.json")
	}
	return deny(res, "denied by the user")
}

// specifier is what the dialog shows of req: its specifier
// (perm.Specifier) and, for Glob and Grep, whose specifier is their
// pattern, the directory they search (absolute, where Glob's pattern
// leads it: workspace.GlobStart), which is what they read: approving
// "Grep: key" must not approve a search of ~/.ssh unseen.
func specifier(ws perm.Workspace, req perm.Request) string {
	spec := perm.Specifier(req.Tool, req.Input)
	switch req.Tool {
	case "Glob", "Grep":
	default:
		return spec
	}
	dir, _ := req.Input["path"].(string)
	if dir == "" {
		dir = ws.Cwd
	}
	dir = ws.Abs(dir)
	if req.Tool == "Glob" {
		dir, _ = workspace.GlobStart(spec, dir)
		dir = ws.Abs(dir)
	}
	return spec + "  (searches " + dir + ")"
}

// cover says what saving rules as allow rules would do for req, which
// pol decided res (Ask) for: noRule is why no allow rule could stop the
// prompt at all (steps 1, 2 and 5 come before allow rules); otherwise
// still is the reason the call would still ask with rules saved, "" when
// they cover it all.
func cover(req perm.Request, res perm.Result, pol *perm.Policy, rules []string) (noRule, still string) {
	switch {
	case res.Step <= 2:
		return "this check holds whatever the rules say", ""
	case res.Step == 5:
		return "an ask rule asks for this call whatever the allow rules say", ""
	}
	trial := *pol
	trial.Allow = slices.Clone(pol.Allow)
	for _, text := range rules {
		r, err := perm.ParseRule(text)
		if err != nil {
			continue
		}
		trial.Allow = append(trial.Allow, perm.Entry{Rule: r, Source: perm.SourceLocal})
	}
	if r := perm.Evaluate(req, &trial); r.Decision == perm.Ask {
		return "", r.Reason
	}
	return "", ""
}

func allow(r perm.Result, reason string) perm.Result {
	r.Decision, r.Reason, r.Source = perm.Allow, reason, perm.SourceSession
	return r
}

func deny(r perm.Result, reason string) perm.Result {
	r.Decision, r.Reason, r.Source = perm.Deny, reason, perm.SourceSession
	return r
}

// classOf is the tool class "Yes, allow all this session" grants.
func classOf(tool string) string {
	if perm.ClassOf(tool) == perm.Edit {
		return "Edit"
	}
	return tool
}

func (s *Session) managedOnly() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.set.ManagedRulesOnly
}

// always saves rules to the local project settings, atomically and safe
// against other sessions writing at the same time, then reloads settings.
// An untrusted project's allow rules do not apply (settings.Load ignores
// them), so there the rules are also kept as this session's: what the
// person approved applies now, and in later sessions once they trust the
// project. trusted reports which it was.
func (s *Session) always(rules []string) (trusted bool, err error) {
	if s.managedOnly() {
		return false, fmt.Errorf("managed settings allow only managed permission rules")
	}
	if len(rules) == 0 {
		return false, fmt.Errorf("no rule to save")
	}
	parsed := make([]perm.Rule, len(rules))
	for i, r := range rules {
		if parsed[i], err = perm.ParseRule(r); err != nil {
			return false, err
		}
	}
	path, err := s.scopeFile(perm.SourceLocal)
	if err != nil {
		return false, err
	}
	w := s.rules(perm.SourceLocal)
	for _, r := range rules {
		if err := w.add(path, "allow", r); err != nil {
			return false, err
		}
	}
	if err := s.reload(); err != nil {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.set.Trusted {
		s.session = append(s.session, parsed...)
	}
	return s.set.Trusted, nil
}

// Notify runs the Notification hooks (a desktop notification, a sound)
// about msg of kind typ (permission_prompt, idle_prompt) beside what
// awaits the person, and returns at once: they only report, and nothing
// waits for them. They end with ctx, at their own timeouts, or when the
// session ends (End), whichever comes first.
func (s *Session) Notify(ctx context.Context, msg, typ string) {
	if !s.hooks.Has(hook.Notification) {
		return
	}
	s.notifyMu.Lock()
	defer s.notifyMu.Unlock()
	if s.notifyCtx.Err() != nil {
		return // the session has ended
	}
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(s.notifyCtx, cancel)
	s.notifying.Add(1)
	go func() {
		defer s.notifying.Done()
		defer cancel()
		defer stop()
		s.hooks.Run(ctx, hook.Notification, hook.Input{Message: msg, NotificationType: typ})
	}()
}

// presentPlan fills in a's plan and what the model says carrying it out
// will run (its allowedPrompts) from in, an ExitPlanMode call's input,
// which is held to the tool's schema first: the loop and, for a hook's
// updatedInput, the gate validated it, and the person must be shown only
// what was. The prompts grant nothing (gate.Approval.PlanPrompts).
func presentPlan(a *gate.Approval, in map[string]any) error {
	if err := schema.Validate("ExitPlanMode", in); err != nil {
		return err
	}
	a.Plan, _ = in["plan"].(string)
	list, _ := in["allowedPrompts"].([]any)
	for _, e := range list {
		m, _ := e.(map[string]any)
		tool, _ := m["tool"].(string)
		prompt, _ := m["prompt"].(string)
		a.PlanPrompts = append(a.PlanPrompts, gate.PlanPrompt{Tool: tool, Prompt: prompt})
	}
	return nil
}

// answerPlan turns the person's answer to a plan (ExitPlanMode's dialog)
// into the call's decision: Yes approves it and leaves plan mode for
// default, YesSession for acceptEdits (edits without asking), where the
// session may switch to it; anything else keeps the session planning.
func (s *Session) answerPlan(res perm.Result, c gate.Choice) perm.Result {
	to := perm.ModeDefault
	if c == gate.YesSession {
		to = perm.ModeAcceptEdits
	}
	if c != gate.Yes && c != gate.YesSession {
		return deny(res, "the user did not approve the plan: keep planning, and ask them what to change")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.open(to); err != nil {
		return deny(res, "the plan cannot be carried out in "+string(to)+" mode: "+err.Error())
	}
	s.planExit = to
	return allow(res, "the user approved the plan; the session leaves plan mode for "+string(to)+" mode")
}
