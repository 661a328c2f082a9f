package gate

import (
	"context"

	"github.com/gen-run/gen/perm"
)

// Approval is one question the gate puts to a person: a call it decided
// Ask for.
type Approval struct {
	Request perm.Request
	Result  perm.Result // the Ask decision, with its step and reason
	// Specifier is the call rendered for display (the command, path, URL…).
	Specifier string
	// Preview is a unified diff of the change for Edit and Write, else "".
	Preview string
	// Rules are the prefilled "Always allow" rules: the exact call, or for a
	// compound Bash command one rule per subcommand that needed approval
	// (at most 5). The person may edit them before saving.
	Rules []string
	// Class names the tool class "Yes, allow all this session" grants,
	// e.g. "Bash" or "Edit".
	Class string
	// CanPersist is false when managed settings allow only managed rules:
	// "Always allow" is then refused.
	CanPersist bool
	// NoRule, when not "", says why no allow rule could stop this prompt
	// (a bypass-immune check, step 1 or 2, or an ask rule, step 5):
	// "Always allow" is then not offered.
	NoRule string
	// StillAsks, when not "", says which part of the call would still
	// ask with Rules saved: the rules (at most 5) do not cover it all.
	StillAsks string
	// Plan, when not "", is the plan an ExitPlanMode call presents: the
	// dialog asks to approve it, Yes leaving plan mode for default and
	// YesSession for acceptEdits; Always is not offered.
	Plan string
	// PlanPrompts, for a plan, are what the model says carrying it out
	// will run (ExitPlanMode's allowedPrompts, Claude Code's prompt-based
	// permissions such as Bash "run tests"), shown with the plan so the
	// person knows what to expect. Approving the plan grants nothing from
	// them: they describe commands and name none, so every call is
	// decided by the rules, and asked about, as any other.
	PlanPrompts []PlanPrompt
	// EnterPlan is set for an EnterPlanMode call, the model proposing
	// plan mode: the dialog asks about the switch, Yes switching to plan
	// mode (as Shift+Tab would) and No staying in the mode. Neither
	// YesSession nor Always is offered: the mode is the person's, each
	// time.
	EnterPlan bool
}

// PlanPrompt is one of the allowedPrompts of a plan: the tool, and what
// the model says its calls will do.
type PlanPrompt struct {
	Tool, Prompt string
}

// Choice is a person's answer to an Approval.
type Choice int

// The four options of the dialog.
const (
	Yes        Choice = iota + 1 // this call only
	YesSession                   // allow the tool class for the rest of the session
	Always                       // save allow rules to .gen/settings.local.json
	No                           // deny this call
)

func (c Choice) String() string {
	switch c {
	case Yes:
		return "Yes"
	case YesSession:
		return "Yes, allow all this session"
	case Always:
		return "Always allow"
	case No:
		return "No"
	}
	return "?"
}

// Reply is a person's Choice, with the (possibly edited) rules for
// Always.
type Reply struct {
	Choice Choice
	Rules  []string
}

// Approver asks a person: what the main loop's Asker (package session)
// puts the questions to, implemented by the TUI. Approve blocks until they answer or ctx ends
// (then it returns ctx's error, and the call is denied). Implementations
// must be safe for concurrent use: parallel subagents never ask, but the
// main loop may be asked from more than one goroutine.
type Approver interface {
	Approve(ctx context.Context, a Approval) (Reply, error)
}
