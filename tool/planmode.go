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
// comes only after an approval, leaves plan mode.
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
