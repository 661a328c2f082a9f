package tui

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gen-run/gen/gate"
	"github.com/gen-run/gen/loop"
)

// A person types into a running turn; a dialog opens in the middle of it.
// Nothing typed in the burst answers the dialog, Enter included, and after
// a pause Enter still does not pick an option until one is chosen.
func TestTypeAheadDoesNotAnswerDialog(t *testing.T) {
	eng := newFakeEngine()
	ended := make(chan error, 1)
	eng.submit = blockingSubmit(nil, ended)
	h := newHarness(t, eng)
	h.submit("go")
	tick := func() { h.clock = h.clock.Add(150 * time.Millisecond) }
	for _, k := range []string{"f", "i", "x"} {
		tick()
		h.keys(k)
	}
	r := &request{id: 1, approval: bashApproval("cat /etc/hosts", "Bash(cat /etc/hosts)")}
	h.openNow(r)
	if !strings.Contains(h.m.View(), "Wait a moment") {
		t.Fatalf("a guarded dialog does not say so:\n%s", h.m.View())
	}
	// The burst goes on well past the guard: every key extends it.
	for _, k := range []string{" ", "1", "enter", "y", "3", "enter", "1", "2", "enter"} {
		tick()
		h.keys(k)
	}
	if rep, ok := replied(r); ok {
		t.Fatalf("type-ahead answered the dialog: %+v", rep)
	}
	if h.m.dlg.editing {
		t.Fatal("type-ahead opened the Always allow editor")
	}
	// A pause: the dialog takes keys now, but not Enter first.
	h.clock = h.clock.Add(h.m.guard)
	if strings.Contains(h.m.View(), "Wait a moment") {
		t.Fatalf("the guard is still shown after the pause:\n%s", h.m.View())
	}
	h.keys("enter")
	if rep, ok := replied(r); ok {
		t.Fatalf("Enter right after typing answered the dialog: %+v", rep)
	}
	if !strings.Contains(h.m.View(), "Enter was ignored") {
		t.Fatalf("no word about the ignored Enter:\n%s", h.m.View())
	}
	h.keys("down", "up", "enter")
	rep, ok := replied(r)
	if !ok || rep.answer.Choice != gate.Yes {
		t.Fatalf("after choosing: got %+v, %v; want Yes", rep, ok)
	}
	if v := h.m.input.Value(); v != "fix" {
		t.Fatalf("prompt = %q, want the text typed before the dialog only", v)
	}
}

// A digit typed while a dialog is guarded does not answer it either, and
// the second of two dialogs is guarded when the first is answered.
func TestDialogGuardPerDialog(t *testing.T) {
	h := newHarness(t, newFakeEngine())
	first := &request{id: 1, approval: bashApproval("cat a")}
	second := &request{id: 2, approval: bashApproval("cat b")}
	h.open(first)
	h.openNow(second)
	h.keys("1") // answers the first, which was open long enough
	if rep, ok := replied(first); !ok || rep.answer.Choice != gate.Yes {
		t.Fatalf("first: %+v, %v", rep, ok)
	}
	h.keys("1") // a second press at once: the second dialog just opened
	if rep, ok := replied(second); ok {
		t.Fatalf("a double press answered the second dialog: %+v", rep)
	}
	h.clock = h.clock.Add(h.m.guard)
	h.keys("4")
	if rep, ok := replied(second); !ok || rep.answer.Choice != gate.No {
		t.Fatalf("second: %+v, %v; want No", rep, ok)
	}
}

// Prompts typed while a turn runs are queued, shown as such, and run in
// order once the turn ends.
func TestPromptsQueueWhileTurnRuns(t *testing.T) {
	eng := newFakeEngine()
	release := make(chan struct{})
	eng.submit = func(ctx context.Context, p string, onEvent func(loop.Event), onText func(string)) (loop.Outcome, error) {
		if p == "first" {
			<-release
		}
		onText("answer to " + p)
		return loop.Outcome{}, nil
	}
	h := newHarness(t, eng)
	h.submit("first")
	h.submit("second")
	h.submit("third")
	v := h.m.View()
	if !strings.Contains(v, "queued: second") || !strings.Contains(v, "queued: third") || strings.Contains(v, "turn is running") {
		t.Fatalf("want both prompts shown as queued:\n%s", v)
	}
	close(release)
	h.pump("the queued prompts to run", func() bool {
		return !h.m.running && len(h.m.queue) == 0 && strings.Contains(h.screen(), "answer to third")
	})
	var submits []string
	for _, c := range eng.recorded() {
		if strings.HasPrefix(c, "Submit(") {
			submits = append(submits, c)
		}
	}
	if want := []string{"Submit(first)", "Submit(second)", "Submit(third)"}; !slices.Equal(submits, want) {
		t.Fatalf("submits = %v, want %v", submits, want)
	}
	s := h.screen()
	if i, j := strings.Index(s, "answer to second"), strings.Index(s, "answer to third"); i < 0 || j < i {
		t.Fatalf("answers out of order:\n%s", s)
	}
}

// "Always allow" is not offered where no rule could stop the prompt, and
// the dialog says which part the offered rules leave asking.
func TestAlwaysAllowOffer(t *testing.T) {
	h := newHarness(t, newFakeEngine())
	a := bashApproval("echo x > .git/hooks/pre-commit")
	a.NoRule = "this check holds whatever the rules say"
	r := &request{id: 1, approval: a}
	h.open(r)
	if v := h.m.View(); !strings.Contains(v, "3. Always allow… (no rule can allow this: this check holds whatever the rules say)") {
		t.Fatalf("option 3 is not shown as unavailable:\n%s", v)
	}
	h.keys("3")
	if _, ok := replied(r); ok || h.m.dlg.editing || !strings.Contains(h.m.View(), "Always allow is not available: no rule can allow this") {
		t.Fatalf("3 on an unavailable Always allow:\n%s", h.m.View())
	}
	h.keys("down", "down", "enter")
	if rep, ok := replied(r); !ok || rep.answer.Choice != gate.No {
		t.Fatalf("the arrows did not skip option 3: %+v, %v", rep, ok)
	}

	part := bashApproval("curl a; curl b; curl c; curl d; wget e; nc f", "Bash(curl a)", "Bash(curl b)", "Bash(curl c)", "Bash(curl d)", "Bash(wget e)")
	part.StillAsks = "program nc has no read-only spec"
	r = &request{id: 2, approval: part}
	h.open(r)
	for _, view := range []func() string{h.m.View, func() string { h.keys("3"); return h.m.View() }} {
		if v := view(); !strings.Contains(v, "do not cover the whole call; this part will still ask:") || !strings.Contains(v, "program nc has no read-only spec") {
			t.Fatalf("no word about the part that still asks:\n%s", v)
		}
	}
}
