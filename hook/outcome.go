package hook

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/gen-run/gen/internal/jsonpos"
)

// Verdict is what the hooks of one tool call said about running it.
//
// Security invariants (ApplyPreToolUse and ApplyPermissionRequest keep
// them; a caller that combines verdicts itself must too):
//   - Approve is not perm.Allow. It answers the question a person would be
//     asked and nothing more: deny rules, an agent's allow_tools, ask
//     rules (for PreToolUse) and the bypass-immune checks of step 2 still
//     apply.
//   - A hook that exits with a status other than 0 and 2 (a non-blocking
//     error, as in Claude Code: a script's last test fails with 1)
//     contributes no verdict: it is reported in Outcome.Warnings.
//   - A hook of a tool call's decision (PreToolUse, PermissionRequest)
//     that gives no answer gen can read never counts as silence, which a
//     deny it meant would become: one that times out, is cancelled or
//     killed by a signal, cannot be run (exit status 126 or 127), or
//     prints an answer gen cannot read (JSON that does not parse, has a
//     key twice, a key or a decision word gen does not know, or text
//     before it; output over maxOutput) denies a PreToolUse call, and
//     gives a PermissionRequest Ask (no hook's allow stands: a person is
//     asked, headless denies). Other events' hooks only warn.
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
	// would allow; for PermissionRequest, a hook failed to answer, so no
	// other hook's allow stands and a person is asked.
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

// allowNotTaken drops the allow (and updatedPermissions) of a hook that
// ran for a call its selection covers only in part, saying why: an
// allow covers what it names and no more, as an allow rule does, while
// its deny, ask or block holds wherever it ran. That is a matcher, a
// regular expression, matching only part of the tool name
// ("mcp__github__.*" must not approve mcp__evil__mcp__github__delete_repo,
// a tool of server evil), and an if rule the call may match but not as
// an allow rule would (git status; rm x for Bash(git status)).
func (a *answer) allowNotTaken(why string) {
	if a.verdict != Approve {
		return
	}
	a.verdict, a.reason, a.updates = NoVerdict, "", nil
	a.warnf("its allow is not taken: %s", why)
}

// decides reports whether ev's hooks decide a tool call.
func (e Event) decides() bool { return e == PreToolUse || e == PermissionRequest }

// unanswered records that the hook gave no answer gen can read: what
// happened, as in "timed out after 1m0s". A hook of a tool call's
// decision may have meant to refuse it, so its silence must not let the
// call through: a PreToolUse call is denied, and a PermissionRequest is
// left to a person (Ask: no other hook's allow stands). Other events'
// hooks only warn.
func (a *answer) unanswered(ev Event, format string, args ...any) {
	what := fmt.Sprintf(format, args...)
	switch ev {
	case PreToolUse:
		a.verdict = Deny
		a.reason = fmt.Sprintf("hook %s %s; a PreToolUse hook that gives no answer gen can read denies the call", a.h.Command, what)
		a.warnf("%s; the call is denied", what)
	case PermissionRequest:
		a.verdict = Ask
		a.reason = ""
		a.warnf("%s; no hook's allow stands, a person is asked (headless: denied)", what)
	default:
		a.warnf("%s; it decides nothing", what)
		return
	}
	a.updatedInput, a.updates, a.interrupt = nil, nil, false
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

// bom is the UTF-8 byte order mark, which some programs print first.
const bom = "\xef\xbb\xbf"

// stdout interprets what a hook that exited with status 0 printed.
func (a *answer) stdout(ev Event, out []byte) {
	// A byte order mark is white space to Claude Code (JavaScript's
	// trim): JSON after it is the answer there too.
	text := bytes.TrimSpace(bytes.TrimPrefix(bytes.TrimSpace(out), []byte(bom)))
	if len(text) == 0 {
		return
	}
	if text[0] != '{' {
		if ev.decides() && jsonLine(text) {
			// Log lines before the JSON answer: what it decides cannot
			// be told from text gen does not read.
			a.unanswered(ev, "printed text before the JSON object on stdout (print only the JSON answer; logs go to stderr)")
			return
		}
		// Plain text: context where Claude Code takes it as context,
		// otherwise only output for logs.
		if ev == UserPromptSubmit || ev == SessionStart {
			a.context = append(a.context, string(text))
		}
		return
	}
	if ev.decides() {
		if err := checkAnswer(ev, text); err != nil {
			a.unanswered(ev, "printed JSON gen cannot read on stdout: %v", err)
			return
		}
	}
	var w wireOutput
	if err := json.Unmarshal(text, &w); err != nil {
		if ev.decides() {
			a.unanswered(ev, "printed invalid JSON on stdout: %v", err)
		} else {
			a.warnf("invalid JSON on stdout, ignored: %v", err)
		}
		return
	}
	if w.Continue != nil && !*w.Continue {
		a.stop, a.stopReason = true, w.StopReason
	}
	a.system = w.SystemMessage
	hs := w.HookSpecificOutput
	if hs != nil && hs.HookEventName != "" && hs.HookEventName != string(ev) {
		if ev.decides() {
			a.unanswered(ev, "answered with hookSpecificOutput for %s, not %s", hs.HookEventName, ev)
			return
		}
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
		if w.Decision != "" {
			a.unanswered(ev, "answered with a top-level decision %q, which PermissionRequest does not read (want hookSpecificOutput.decision.behavior)", w.Decision)
			return
		}
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
	// The older top-level form: approve or block.
	legacy := ""
	switch w.Decision {
	case "approve":
		legacy = "allow"
	case "block":
		legacy = "deny"
	case "":
	default:
		a.unanswered(PreToolUse, "answered with an unknown decision %q (want approve or block)", w.Decision)
		return
	}
	switch {
	case decision == "":
		decision, reason = legacy, w.Reason
	case legacy != "" && legacy != decision:
		a.unanswered(PreToolUse, "answered both %q (decision) and %q (permissionDecision)", w.Decision, decision)
		return
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
		a.unanswered(PreToolUse, "answered with an unknown permissionDecision %q (want allow, deny or ask)", decision)
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
		a.unanswered(PermissionRequest, "answered with an unknown decision.behavior %q (want allow or deny)", d.Behavior)
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

// jsonLine reports whether a line of text starts with '{': a JSON answer
// after other output.
func jsonLine(text []byte) bool {
	for line := range bytes.Lines(text) {
		if l := bytes.TrimSpace(bytes.TrimPrefix(bytes.TrimSpace(line), []byte(bom))); len(l) > 0 && l[0] == '{' {
			return true
		}
	}
	return false
}

// shape is what an object of a hook's answer may hold: each key, spelt
// exactly, with the shape of its value (nil: a value whose keys are
// not checked, such as a tool's input), and an array's elements.
type shape struct {
	keys map[string]*shape
	elem *shape
}

// answerShape is the answer a hook of a tool call's decision may print.
// encoding/json matches keys without regard to case and keeps the last
// of a key given twice; Claude Code reads the key as spelt and also
// keeps the last. Which one decides must not be a guess, nor a key gen
// reads differently (PermissionDecision) or not at all (a decision left
// outside hookSpecificOutput) count as the hook's silence.
func answerShape(ev Event) *shape {
	specific := map[string]*shape{"hookEventName": nil, "additionalContext": nil}
	switch ev {
	case PreToolUse:
		specific["permissionDecision"], specific["permissionDecisionReason"], specific["updatedInput"] = nil, nil, nil
	case PermissionRequest:
		rule := &shape{keys: map[string]*shape{"toolName": nil, "ruleContent": nil}}
		update := &shape{keys: map[string]*shape{"type": nil, "rules": {elem: rule}, "behavior": nil, "mode": nil, "directories": nil, "destination": nil}}
		specific["decision"] = &shape{keys: map[string]*shape{"behavior": nil, "updatedInput": nil, "updatedPermissions": {elem: update}, "message": nil, "interrupt": nil}}
	}
	return &shape{keys: map[string]*shape{
		"continue": nil, "stopReason": nil, "suppressOutput": nil, "systemMessage": nil, "decision": nil, "reason": nil,
		"hookSpecificOutput": {keys: specific},
	}}
}

// checkAnswer checks the JSON answer text of a hook of ev against
// answerShape: no key twice in an object, and only known keys, spelt
// exactly. Types are json.Unmarshal's to check.
func checkAnswer(ev Event, text []byte) error {
	v, err := jsonpos.Decode("stdout", text)
	if err != nil {
		return err
	}
	var walk func(v *jsonpos.Value, s *shape, at string) error
	walk = func(v *jsonpos.Value, s *shape, at string) error {
		var elem *shape
		if s != nil {
			elem = s.elem
		}
		for i, el := range v.Elems {
			if err := walk(el, elem, fmt.Sprintf("%s[%d]", at, i)); err != nil {
				return err
			}
		}
		seen := make(map[string]bool, len(v.Members))
		for _, m := range v.Members {
			key := strings.TrimPrefix(at+"."+m.Key, ".")
			if seen[m.Key] {
				return fmt.Errorf("key %q given twice", key)
			}
			seen[m.Key] = true
			var sub *shape
			if s != nil && s.keys != nil {
				var ok bool
				if sub, ok = s.keys[m.Key]; !ok {
					return fmt.Errorf("unknown key %q", key)
				}
			}
			if err := walk(m.Val, sub, key); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(v, answerShape(ev), "")
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
	// A PermissionRequest's input comes with an allow, and is taken only
	// with one.
	if o.Verdict != Deny && (ev != PermissionRequest || o.Verdict == Approve) {
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
