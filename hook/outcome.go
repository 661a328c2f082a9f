package hook

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// Verdict is what the hooks of one tool call said about running it.
//
// Security invariants (ApplyPreToolUse and ApplyPermissionRequest keep
// them; a caller that combines verdicts itself must too):
//   - Approve is not perm.Allow. It answers the question a person would be
//     asked and nothing more: deny rules, an agent's allow_tools, ask
//     rules (for PreToolUse) and the bypass-immune checks of step 2 still
//     apply.
//   - A hook that times out, crashes, exits with a status other than 0 or
//     2, or prints JSON that does not parse contributes no verdict: it is
//     reported in Outcome.Warnings and decides nothing.
//   - An Outcome's UpdatedInput is a new call: the gate evaluates it again
//     from step 1, as if the model had sent it.
type Verdict int

// The verdicts, least strict first. Combining the answers of several hooks
// keeps the strictest: Deny beats Ask beats Approve.
const (
	// NoVerdict: no hook decided.
	NoVerdict Verdict = iota
	// Approve: a hook approves the call ("allow" in PreToolUse,
	// behavior "allow" in PermissionRequest). See the invariants above.
	Approve
	// Ask: a PreToolUse hook wants a person asked even where the gate
	// would allow.
	Ask
	// Deny: a hook refuses the call ("deny", or exit status 2).
	Deny
)

func (v Verdict) String() string {
	switch v {
	case NoVerdict:
		return "none"
	case Approve:
		return "approve"
	case Ask:
		return "ask"
	case Deny:
		return "deny"
	}
	return fmt.Sprintf("Verdict(%d)", int(v))
}

// Outcome is what the hooks of one event said, combined. The zero Outcome
// (no hook ran) decides nothing.
type Outcome struct {
	Event Event
	// Ran is the number of hooks that ran.
	Ran int

	// Verdict is the combined tool-call verdict (PreToolUse,
	// PermissionRequest).
	Verdict Verdict
	// Reason says why: for Deny and Block what the model is told (a
	// permissionDecisionReason, a PermissionRequest message, a "reason",
	// or the stderr of a hook that exited with 2); for Ask what the person
	// is shown. Reasons of several hooks are joined by newlines.
	Reason string
	// UpdatedInput replaces the tool input (PreToolUse; PermissionRequest
	// with an allow). nil when no hook changed it, and always nil when the
	// verdict is Deny. It must be evaluated by the gate as a new call.
	UpdatedInput map[string]any
	// UpdatedPermissions are the validated updates PermissionRequest hooks
	// returned with an allow; nil unless Verdict is Approve.
	UpdatedPermissions []PermissionUpdate
	// Interrupt: a PermissionRequest hook denied with "interrupt": true —
	// stop the agent, not only this call.
	Interrupt bool

	// Block: a hook blocked the event (decision "block" or exit status 2):
	// PostToolUse and PostToolUseFailure tell the model Reason; UserPromptSubmit drops the prompt
	// and shows Reason to the user; Stop and SubagentStop keep the agent
	// going with Reason as its next instruction.
	Block bool
	// Stop: a hook answered "continue": false — the agent stops after this
	// event, StopReason is shown to the user.
	Stop       bool
	StopReason string
	// Retry: a PermissionDenied hook says the model may retry the call.
	Retry bool

	// Context is text to add to the model's context: additionalContext,
	// and for UserPromptSubmit and SessionStart plain (non-JSON) stdout.
	Context []string
	// SystemMessages are shown to the user.
	SystemMessages []string
	// Warnings report hooks that failed without deciding (timeouts, exit
	// statuses other than 0 and 2, invalid JSON, unknown values), each
	// naming the hook's origin.
	Warnings []string
}

// answer is what one hook said.
type answer struct {
	h            Handler
	verdict      Verdict
	reason       string
	updatedInput map[string]any
	updates      []PermissionUpdate
	interrupt    bool
	block        bool
	stop         bool
	stopReason   string
	retry        bool
	context      []string
	system       string
	warnings     []string
	// status is how the hook ended ("exit 0", "timed out", ...), and out
	// and errOut the start of its stdout and stderr, for Runner.Debug.
	status, out, errOut string
}

func (a *answer) warnf(format string, args ...any) {
	a.warnings = append(a.warnings, fmt.Sprintf("hook %s (%s): ", a.h.Origin, a.h.Command)+fmt.Sprintf(format, args...))
}

// wireOutput is the JSON a hook may print on stdout with exit status 0.
type wireOutput struct {
	Continue           *bool         `json:"continue"`
	StopReason         string        `json:"stopReason"`
	SuppressOutput     bool          `json:"suppressOutput"`
	SystemMessage      string        `json:"systemMessage"`
	Decision           string        `json:"decision"`
	Reason             string        `json:"reason"`
	HookSpecificOutput *wireSpecific `json:"hookSpecificOutput"`
}

type wireSpecific struct {
	HookEventName            string         `json:"hookEventName"`
	PermissionDecision       string         `json:"permissionDecision"`
	PermissionDecisionReason string         `json:"permissionDecisionReason"`
	UpdatedInput             map[string]any `json:"updatedInput"`
	AdditionalContext        string         `json:"additionalContext"`
	Decision                 *wireDecision  `json:"decision"`
	Retry                    bool           `json:"retry"`
}

type wireDecision struct {
	Behavior           string             `json:"behavior"`
	UpdatedInput       map[string]any     `json:"updatedInput"`
	UpdatedPermissions []PermissionUpdate `json:"updatedPermissions"`
	Message            string             `json:"message"`
	Interrupt          bool               `json:"interrupt"`
}

// exitTwo records a hook that exited with status 2: it blocks where the
// event can be blocked, and stderr is the reason.
func (a *answer) exitTwo(ev Event, stderr string) {
	reason := strings.TrimSpace(stderr)
	if reason == "" {
		reason = fmt.Sprintf("blocked by hook %s", a.h.Command)
	}
	switch ev {
	case PreToolUse, PermissionRequest:
		a.verdict, a.reason = Deny, reason
	case PostToolUse, PostToolUseFailure, UserPromptSubmit, Stop, SubagentStop:
		a.block, a.reason = true, reason
	default:
		// PermissionDenied, SessionStart, SubagentStart, SessionEnd
		// and Notification cannot be blocked.
		a.warnf("exit status 2 cannot block %s: %s", ev, reason)
	}
}

// stdout interprets what a hook that exited with status 0 printed.
func (a *answer) stdout(ev Event, out []byte) {
	text := bytes.TrimSpace(out)
	if len(text) == 0 {
		return
	}
	if text[0] != '{' {
		// Plain text: context where Claude Code takes it as context,
		// otherwise only output for logs.
		if ev == UserPromptSubmit || ev == SessionStart {
			a.context = append(a.context, string(text))
		}
		return
	}
	var w wireOutput
	if err := json.Unmarshal(text, &w); err != nil {
		a.warnf("invalid JSON on stdout, ignored: %v", err)
		return
	}
	if w.Continue != nil && !*w.Continue {
		a.stop, a.stopReason = true, w.StopReason
	}
	a.system = w.SystemMessage
	hs := w.HookSpecificOutput
	if hs != nil && hs.HookEventName != "" && hs.HookEventName != string(ev) {
		a.warnf("hookSpecificOutput is for %s, not %s: ignored", hs.HookEventName, ev)
		hs = nil
	}
	if hs != nil && hs.AdditionalContext != "" {
		a.context = append(a.context, hs.AdditionalContext)
	}
	switch ev {
	case PreToolUse:
		a.preToolUse(w, hs)
	case PermissionRequest:
		a.permissionRequest(hs)
	case PermissionDenied:
		a.retry = hs != nil && hs.Retry
	case PostToolUse, PostToolUseFailure, UserPromptSubmit, Stop, SubagentStop:
		switch w.Decision {
		case "":
		case "block":
			a.block, a.reason = true, w.Reason
			if a.reason == "" {
				a.reason = fmt.Sprintf("blocked by hook %s", a.h.Command)
			}
		default:
			a.warnf("unknown decision %q ignored (want \"block\")", w.Decision)
		}
	}
}

func (a *answer) preToolUse(w wireOutput, hs *wireSpecific) {
	decision, reason := "", ""
	if hs != nil {
		decision, reason = hs.PermissionDecision, hs.PermissionDecisionReason
		a.updatedInput = hs.UpdatedInput
	}
	if decision == "" {
		// The older top-level form: approve or block.
		switch w.Decision {
		case "approve":
			decision = "allow"
		case "block":
			decision = "deny"
		case "":
		default:
			a.warnf("unknown decision %q ignored", w.Decision)
		}
		reason = w.Reason
	}
	switch decision {
	case "":
	case "allow":
		a.verdict = Approve
	case "ask":
		a.verdict = Ask
	case "deny":
		a.verdict = Deny
	default:
		a.warnf("unknown permissionDecision %q ignored (want allow, deny or ask)", decision)
		return
	}
	a.reason = reason
	if a.verdict == Deny && a.reason == "" {
		a.reason = fmt.Sprintf("denied by hook %s", a.h.Command)
	}
}

func (a *answer) permissionRequest(hs *wireSpecific) {
	if hs == nil || hs.Decision == nil {
		return
	}
	d := hs.Decision
	switch d.Behavior {
	case "allow":
		// An allow whose updates cannot all be read is not taken in
		// part: applying its allow rules without the deny rule beside
		// them that has a typo would widen what the hook meant. It
		// decides nothing, so the call is asked about (headless:
		// denied).
		for i, u := range d.UpdatedPermissions {
			if err := u.Check(); err != nil {
				a.warnf("allow ignored: updatedPermissions[%d]: %v", i, err)
				return
			}
		}
		a.verdict = Approve
		a.updatedInput = d.UpdatedInput
		a.updates = d.UpdatedPermissions
	case "deny":
		a.verdict, a.reason, a.interrupt = Deny, d.Message, d.Interrupt
		if a.reason == "" {
			a.reason = fmt.Sprintf("denied by hook %s", a.h.Command)
		}
	default:
		a.warnf("unknown decision.behavior %q ignored (want allow or deny)", d.Behavior)
	}
}

// guard keeps of a guard's answer (Handler.Guard) only what refuses. An
// allow decides nothing, and its updatedPermissions are dropped. An
// updatedInput is dropped too: running the call as sent would not be
// what the hook meant, so a PreToolUse guard's rewrite asks (headless:
// denies), and a PermissionRequest guard's, like its allow, leaves the
// call asked.
func (a *answer) guard(ev Event) {
	if !a.h.Guard {
		return
	}
	if a.verdict == Approve {
		a.verdict = NoVerdict
		a.warnf("allow ignored: the command line leaves this hook's settings out, and it only refuses")
	}
	a.updates = nil
	if a.updatedInput == nil {
		return
	}
	a.updatedInput = nil
	if ev == PreToolUse && a.verdict < Ask {
		a.verdict = Ask
		a.reason = fmt.Sprintf("hook %s (%s) changes the call, and the command line leaves its settings out: the change is not made", a.h.Origin, a.h.Command)
	}
}

// combine merges the answers of the hooks of one event, given in
// configuration order, so the result does not depend on which hook
// finished first.
func combine(ev Event, as []answer) Outcome {
	o := Outcome{Event: ev, Ran: len(as)}
	var reasons, stops []string
	for _, a := range as {
		o.Verdict = max(o.Verdict, a.verdict)
		o.Warnings = append(o.Warnings, a.warnings...)
		o.Context = append(o.Context, a.context...)
		if a.system != "" {
			o.SystemMessages = append(o.SystemMessages, a.system)
		}
		o.Block = o.Block || a.block
		o.Retry = o.Retry || a.retry
		if a.stop {
			o.Stop = true
			if a.stopReason != "" {
				stops = append(stops, a.stopReason)
			}
		}
	}
	o.StopReason = strings.Join(stops, "\n")
	for _, a := range as {
		decides := o.Verdict != NoVerdict && a.verdict == o.Verdict
		if (decides || (o.Verdict == NoVerdict && a.block)) && a.reason != "" {
			reasons = append(reasons, a.reason)
		}
		if decides && o.Verdict == Deny && a.interrupt {
			o.Interrupt = true
		}
		if o.Verdict == Approve && a.verdict == Approve {
			o.UpdatedPermissions = append(o.UpdatedPermissions, a.updates...)
		}
	}
	o.Reason = strings.Join(reasons, "\n")
	if o.Verdict != Deny {
		o.UpdatedInput = pickInput(&o, as)
	}
	return o
}

// pickInput chooses the updatedInput of the first hook (in configuration
// order) whose verdict is the combined one, else of the first that gave
// one without that verdict. Conflicting inputs are reported, never merged.
func pickInput(o *Outcome, as []answer) map[string]any {
	var cands []*answer
	for i := range as {
		if as[i].updatedInput != nil && as[i].verdict != Deny {
			cands = append(cands, &as[i])
		}
	}
	if len(cands) == 0 {
		return nil
	}
	slices.SortStableFunc(cands, func(a, b *answer) int {
		return cmp.Compare(boolInt(a.verdict != o.Verdict), boolInt(b.verdict != o.Verdict))
	})
	chosen := cands[0]
	for _, a := range cands[1:] {
		if !reflect.DeepEqual(chosen.updatedInput, a.updatedInput) {
			o.Warnings = append(o.Warnings, fmt.Sprintf("hook %s (%s): updatedInput ignored: it conflicts with the one of hook %s",
				a.h.Origin, a.h.Command, chosen.h.Origin))
		}
	}
	return chosen.updatedInput
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
