package hook

import "github.com/gen-run/gen/perm"

// Steps of perm's pipeline the hooks' functions look at.
const (
	// stepImmune is the bypass-immune checks, whose Ask only a person
	// answers.
	stepImmune = 2
	// stepModeDefault is the mode's default, the one Ask a PreToolUse
	// allow answers (it "skips the prompt but not deny or ask rules", as
	// in Claude Code). Every other step's Ask is a rule's or a check's: a
	// deny rule's program mentioned in the command (step 1), a
	// bypass-immune check (2), bypassPermissions' unmodelled program
	// while deny rules hold (3), an ask rule or a mode switch (5).
	stepModeDefault = 7
)

// ApplyPreToolUse combines the PreToolUse outcome o with r, the gate's
// result for the same call — evaluated on o.UpdatedInput when that is set,
// and without turning Ask into Deny (that coercion comes after the
// PermissionRequest hooks; see ApplyPermissionRequest).
//
//   - The gate's Deny stands: no hook overrides a deny rule, an
//     allow_tools constraint or a mode that refuses.
//   - "continue": false from a hook denies: the agent stops (see
//     Agent.TakeHalt), and the call is not made.
//   - Deny from a hook denies, with the hook's reason (step 0: before the
//     pipeline).
//   - Ask from a hook turns the gate's Allow into Ask, keeping how the
//     call runs once approved (Result.Path and Sandbox).
//   - Approve turns only the mode default's Ask (step 7) into Allow: any
//     other Ask (a deny rule's program mentioned, step 1; a bypass-immune
//     check, step 2; an ask rule, step 5; ...) stays Ask.
func ApplyPreToolUse(o Outcome, r perm.Result) perm.Result {
	if r.Decision == perm.Deny {
		return r
	}
	if o.Stop {
		// "continue": false stops the agent, and comes before any
		// decision, as in Claude Code: the call is not made.
		return perm.Result{Decision: perm.Deny, Step: 0, Reason: "a PreToolUse hook stopped the agent" + suffix(o.StopReason), Rule: "PreToolUse hook", Source: perm.SourceHook}
	}
	switch o.Verdict {
	case Deny:
		return perm.Result{Decision: perm.Deny, Step: 0, Reason: "denied by a PreToolUse hook: " + o.Reason, Rule: "PreToolUse hook", Source: perm.SourceHook}
	case Ask:
		if r.Decision == perm.Allow {
			reason := "a PreToolUse hook asks for approval"
			if o.Reason != "" {
				reason += ": " + o.Reason
			}
			// The rest of r stays: once approved the call runs as
			// the gate decided it would (the file it checked, the
			// Bash sandbox profile: read-only in plan mode, and for
			// a command verified read-only). A WebFetch is no longer
			// only the mode default's public read: an approval
			// allows it.
			r.Decision, r.Reason, r.Rule, r.Source = perm.Ask, reason, "PreToolUse hook", perm.SourceHook
			r.PublicOnly = false
			return r
		}
	case Approve:
		if r.Decision == perm.Ask && r.Step == stepModeDefault {
			r.Decision, r.Reason, r.Rule, r.Source = perm.Allow, "approved by a PreToolUse hook", "PreToolUse hook", perm.SourceHook
		}
	}
	return r
}

// suffix returns ": reason", or "" for no reason.
func suffix(reason string) string {
	if reason == "" {
		return ""
	}
	return ": " + reason
}

// ApplyPermissionRequest answers the gate's Ask r with the
// PermissionRequest outcome o. decided is false when no hook answered: the
// caller then asks a person, or, where nobody can be asked, denies.
//
// A hook's Deny denies, and so does "continue": false (the agent stops,
// and as in Claude Code that comes before any decision: an allow beside
// it does not make the call). Its Approve allows, except for an Ask
// raised by a bypass-immune check (step 2), which only a person can
// answer. When
// o.UpdatedInput is set the allow is for the changed call: the caller must
// evaluate it again and apply o to that result (an Ask there is answered
// by this same outcome, without running the hooks again). The caller
// decides which of o.UpdatedPermissions to apply.
func ApplyPermissionRequest(o Outcome, r perm.Result) (res perm.Result, decided bool) {
	if r.Decision != perm.Ask {
		return r, r.Decision != perm.Ask
	}
	if o.Stop {
		return perm.Result{Decision: perm.Deny, Step: r.Step, Reason: "a PermissionRequest hook stopped the agent" + suffix(o.StopReason), Rule: "PermissionRequest hook", Source: perm.SourceHook}, true
	}
	switch o.Verdict {
	case Deny:
		reason := "denied by a PermissionRequest hook"
		if o.Reason != "" {
			reason += ": " + o.Reason
		}
		return perm.Result{Decision: perm.Deny, Step: r.Step, Reason: reason, Rule: "PermissionRequest hook", Source: perm.SourceHook}, true
	case Approve:
		if r.Step == stepImmune {
			return r, false
		}
		r.Decision, r.Reason, r.Rule, r.Source = perm.Allow, "approved by a PermissionRequest hook", "PermissionRequest hook", perm.SourceHook
		return r, true
	}
	return r, false
}
