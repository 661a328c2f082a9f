package tool

import (
	"context"
	"fmt"

	"github.com/gen-run/gen/perm"
)

// ExitPlan is the ExitPlanMode tool, which the main loop in plan mode
// offers: the model presents its plan, the gate asks the person (plan
// mode answers ExitPlanMode with Ask, and nothing else approves it in
// a headless run but a hook or a permission-prompt tool), and Run, which
// comes only after an approval, leaves plan mode. The allowedPrompts the
// model may list with the plan (Claude Code's) are for the person to
// read; Run grants nothing from them.
type ExitPlan struct {
	// Leave leaves plan mode and returns the mode the session is in now;
	// an error when it is not in plan mode.
	Leave func() (perm.Mode, error)
}

// Name implements Tool.
func (ExitPlan) Name() string { return "ExitPlanMode" }

// Run implements Tool.
func (t ExitPlan) Run(_ context.Context, _ Call) (string, error) {
	m, err := t.Leave()
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("The user approved the plan. The session is in %s mode now: carry out the plan.", m), nil
}

// EnterPlan is the EnterPlanMode tool, which an interactive main loop
// offers outside plan mode: the model proposes plan mode, the gate asks
// the person (EnterPlanMode asks in every mode, and where nobody can be
// asked it is denied), and Run, which comes only after an approval,
// switches the session to plan mode.
type EnterPlan struct {
	// Enter switches to plan mode; an error when the session may not.
	Enter func() error
}

// Name implements Tool.
func (EnterPlan) Name() string { return "EnterPlanMode" }

// Run implements Tool.
func (t EnterPlan) Run(_ context.Context, _ Call) (string, error) {
	if err := t.Enter(); err != nil {
		return "", err
	}
	return "The user agreed to plan mode. Read and search to understand the task and design an approach; " +
		"nothing that changes anything runs now. When the plan is ready, present it with ExitPlanMode.", nil
}
