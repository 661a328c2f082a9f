// Package gate decides each tool call: the one seam between a run and the
// permission engine beneath it (package perm). Every run, main loop,
// subagent or headless, decides its calls with a Gate: it evaluates the
// call under the run's policy and, on Ask, consults the run's Asker.
//
// Later work hooks in here and nowhere else: PreToolUse before Evaluate,
// PermissionRequest where an Ask goes to the Asker (headless runs too,
// before step 8 turns it into Deny), PermissionDenied on a final Deny, and
// a permission-prompt delegate as the Asker of a headless run.
// PostToolUse belongs after the tool ran (tool.Set.Call).
package gate

import (
	"context"

	"github.com/gen-run/gen/perm"
)

// Asker settles a call the policy decided Ask for: the main loop asks a
// person (the TUI's approval dialog); a headless run has none. It returns
// the final decision; a result that is still Ask counts as unanswered and
// becomes Deny (perm.Unattended). Implementations must be safe for
// concurrent use and give up when ctx ends.
type Asker interface {
	Ask(ctx context.Context, req perm.Request, ask perm.Result) perm.Result
}

// Gate decides calls under a policy. It implements tool.Gate. Its fields
// must not change while it is in use.
type Gate struct {
	// Policy returns the policy in force at the moment of a call (it may
	// change between calls: modes, session grants). Must not be nil.
	Policy func() perm.Policy
	// Asker settles Ask decisions. nil means nobody can be asked: the
	// policy is evaluated with NoPrompt, so perm's step 8 turns Ask into
	// Deny.
	Asker Asker
}

// Fixed returns a Gate for a policy that does not change, with nobody to
// ask (subagents, `gen agent run`).
func Fixed(p perm.Policy) *Gate {
	return &Gate{Policy: func() perm.Policy { return p }}
}

// Check decides req: Allow or Deny, never Ask.
func (g *Gate) Check(ctx context.Context, req perm.Request) perm.Result {
	pol := g.Policy()
	if g.Asker == nil {
		pol.NoPrompt = true
	}
	res := perm.Evaluate(req, &pol)
	if res.Decision != perm.Ask {
		return res
	}
	return perm.Unattended(g.Asker.Ask(ctx, req, res))
}
