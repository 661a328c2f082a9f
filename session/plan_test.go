package session

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/gen-run/gen/gate"
	"github.com/gen-run/gen/loop"
	"github.com/gen-run/gen/loop/offline"
	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/transcript"
)

// Plan mode, as in Claude Code: the model reads and plans, nothing that
// changes anything runs (an allow rule does not help), and ExitPlanMode
// shows the person the plan; approving it leaves plan mode for the mode
// they chose, in the same turn. Rejecting it keeps the session planning.
func TestPlanModeSession(t *testing.T) {
	root, home := project(t, map[string]string{"a.txt": "a\n", ".gen/settings.json": `{"permissions": {"defaultMode": "plan", "allow": ["Bash(touch *)"]}}`})
	var plans []string
	choice := gate.YesSession
	a := &approver{answer: func(ap gate.Approval) gate.Reply {
		if ap.Request.Tool != "ExitPlanMode" {
			t.Errorf("asked about %s %v", ap.Request.Tool, ap.Request.Input)
			return gate.Reply{Choice: gate.No}
		}
		plans = append(plans, ap.Plan)
		return gate.Reply{Choice: choice}
	}}
	s := newSession(t, root, home, offline.New(), a, trusted)
	if s.Mode() != perm.ModePlan {
		t.Fatalf("mode %s, want plan from defaultMode", s.Mode())
	}
	if tools := s.Tools(); !slices.Contains(tools, "ExitPlanMode") {
		t.Errorf("plan mode's tools %v lack ExitPlanMode", tools)
	}
	ctx := context.Background()

	// Rejected: the session keeps planning.
	choice = gate.No
	out, err := s.Submit(ctx, "Call ExitPlanMode: {\"plan\": \"1. do nothing\"}", nil, nil)
	if err != nil || !strings.Contains(out.Final, "ExitPlanMode") || !strings.Contains(out.Final, "DENIED: the user did not approve the plan") || s.Mode() != perm.ModePlan {
		t.Fatalf("rejected plan: %v, mode %s:\n%s", err, s.Mode(), out.Final)
	}

	choice = gate.YesSession
	out, err = s.Submit(ctx, strings.Join([]string{
		"Read: a.txt",
		"Run bash: touch before",
		"Write notes.txt: planned",
		"Call ExitPlanMode: {\"plan\": \"1. touch after\\n2. write notes.txt\"}",
		"Run bash: touch after",
		"Write notes.txt: done",
	}, "\n"), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"Read(a.txt) -> ALLOWED",
		"Bash(touch before) -> DENIED: plan mode: nothing that changes anything runs until the person approves the plan",
		"Write(notes.txt) -> DENIED: plan mode",
		"ExitPlanMode",
		"Bash(touch after) -> ALLOWED",
		"Write(notes.txt) -> ALLOWED",
	}
	lines := strings.Split(out.Final, "\n")
	if len(lines) != len(want) {
		t.Fatalf("final answer:\n%s", out.Final)
	}
	for i, w := range want {
		if !strings.Contains(lines[i], w) {
			t.Errorf("line %d = %q, want %q", i, lines[i], w)
		}
	}
	if !strings.Contains(lines[3], "ALLOWED") {
		t.Errorf("ExitPlanMode: %q", lines[3])
	}
	if s.Mode() != perm.ModeAcceptEdits {
		t.Errorf("mode %s after the plan was approved for acceptEdits", s.Mode())
	}
	if _, err := os.Stat(filepath.Join(root, "before")); err == nil {
		t.Error("touch before ran in plan mode")
	}
	for _, f := range []string{"after", "notes.txt"} {
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			t.Errorf("%s was not made after the plan's approval: %v", f, err)
		}
	}
	if len(plans) != 2 || plans[1] != "1. touch after\n2. write notes.txt" {
		t.Errorf("the person was shown %q", plans)
	}
	// Out of plan mode, ExitPlanMode is not offered.
	if tools := s.Tools(); slices.Contains(tools, "ExitPlanMode") {
		t.Errorf("acceptEdits mode's tools %v have ExitPlanMode", tools)
	}
	out, _ = s.Submit(ctx, "Call ExitPlanMode: {\"plan\": \"again\"}", nil, nil)
	if strings.Contains(out.Final, "-> ALLOWED") || len(plans) != 2 {
		t.Errorf("ExitPlanMode outside plan mode: %s", out.Final)
	}
}

// What no allow rule, grant, hook or approval gets past in plan mode: a
// subagent does not change anything through its own allow_tools (it
// plans too); a command the gate cannot parse is denied, not asked about
// (bash runs `echo $((touch x) )`); and the plan is the person's to
// approve even with an allow rule for ExitPlanMode and a PreToolUse hook
// that allows every call.
func TestPlanModeHolds(t *testing.T) {
	root, home := project(t, map[string]string{".gen/settings.json": `{"permissions": {"defaultMode": "plan", "allow": ["Agent", "ExitPlanMode"]}}`})
	userAgent(t, root, home, "writer", "allow_tools: Write, Bash\n", "Write what you are told.")
	allowAll := writeScript(t, t.TempDir(), "allow.sh", `echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}'`)
	writeAt(t, filepath.Join(home, ".gen", "settings.json"), hookSettings(t, map[string]string{"PreToolUse": allowAll}))
	var asked []string
	a := &approver{answer: func(ap gate.Approval) gate.Reply {
		asked = append(asked, ap.Request.Tool)
		if ap.Request.Tool == "ExitPlanMode" {
			return gate.Reply{Choice: gate.No}
		}
		return gate.Reply{Choice: gate.Yes}
	}}
	s := newSession(t, root, home, offline.New(), a, trusted)
	out, err := s.Submit(context.Background(), strings.Join([]string{
		"Delegate writer: Write sub.txt: x",
		"Run bash: echo $((touch made) )",
		"Call ExitPlanMode: {\"plan\": \"1. write\"}",
	}, "\n"), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Bash(echo $((touch made) )) -> DENIED: plan mode",
		"ExitPlanMode() -> DENIED: the user did not approve the plan",
	} {
		if !strings.Contains(out.Final, want) {
			t.Errorf("final answer lacks %q:\n%s", want, out.Final)
		}
	}
	if len(out.Denials) != 3 || !strings.Contains(out.Denials[0].Reason, "[subagent writer] plan mode") {
		t.Errorf("denials %+v: want the subagent's Write, the command and the plan", out.Denials)
	}
	if !slices.Equal(asked, []string{"ExitPlanMode"}) || s.Mode() != perm.ModePlan {
		t.Errorf("asked about %v, mode %s: want only the plan asked about, and plan mode kept", asked, s.Mode())
	}
	for _, f := range []string{"sub.txt", "made"} {
		if _, err := os.Stat(filepath.Join(root, f)); err == nil {
			t.Errorf("%s was made in plan mode", f)
		}
	}
}

// Calls in one assistant message run in order: a Write before
// ExitPlanMode is decided in plan mode (denied), one after it in the mode
// the person chose when they approved the plan, as in Claude Code.
func TestPlanModeOneMessage(t *testing.T) {
	root, home := project(t, map[string]string{".gen/settings.json": `{"permissions": {"defaultMode": "plan"}}`})
	m := scripted{calls: []rtCall{
		{"Write", `{"file_path": "before.txt", "content": "x"}`},
		{"ExitPlanMode", `{"plan": "1. write after.txt"}`},
		{"Write", `{"file_path": "after.txt", "content": "x"}`},
	}}
	a := &approver{answer: func(ap gate.Approval) gate.Reply { return gate.Reply{Choice: gate.YesSession} }}
	s := newSession(t, root, home, m, a, trusted)
	if _, err := s.Submit(context.Background(), "go", nil, nil); err != nil {
		t.Fatal(err)
	}
	if a.count() != 1 || s.Mode() != perm.ModeAcceptEdits {
		t.Errorf("asked %d times, mode %s: want the plan asked about once, and acceptEdits", a.count(), s.Mode())
	}
	if _, err := os.Stat(filepath.Join(root, "before.txt")); err == nil {
		t.Error("before.txt was written in plan mode")
	}
	if _, err := os.Stat(filepath.Join(root, "after.txt")); err != nil {
		t.Errorf("after.txt, after the approval in acceptEdits: %v", err)
	}
}

// A PermissionRequest hook answers for the person, in the dialog's
// session as headless: its allow approves the plan without a dialog, and
// the session leaves plan mode for default.
func TestPlanApprovedByHook(t *testing.T) {
	root, home := project(t, map[string]string{".gen/settings.json": `{"permissions": {"defaultMode": "plan"}}`})
	approve := writeScript(t, t.TempDir(), "approve.sh", `echo '{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}}'`)
	writeAt(t, filepath.Join(home, ".gen", "settings.json"), hookSettings(t, map[string]string{"PermissionRequest": approve}))
	a := &approver{answer: func(gate.Approval) gate.Reply { return gate.Reply{Choice: gate.No} }}
	s := newSession(t, root, home, offline.New(), a, trusted)
	out, err := s.Submit(context.Background(), "Call ExitPlanMode: {\"plan\": \"1. write\"}", nil, nil)
	if err != nil || !strings.Contains(out.Final, "ExitPlanMode() -> ALLOWED") || a.count() != 0 || s.Mode() != perm.ModeDefault {
		t.Errorf("final %q, err %v, %d dialogs, mode %s: want the hook's approval, and default mode", out.Final, err, a.count(), s.Mode())
	}
}

// The mode the person chose when they approved a plan is for that
// ExitPlanMode call only: when the call finds the session out of plan
// mode (switched meanwhile), a later plan approved by a hook still leaves
// for default, not for what the person once chose.
func TestPlanExitChoiceIsPerCall(t *testing.T) {
	root, home := project(t, nil)
	s := newSession(t, root, home, offline.New(), nil, func(c *Config) { c.Settings.Mode = "plan" })
	res := s.answerPlan(perm.Result{Decision: perm.Ask}, gate.YesSession)
	if res.Decision != perm.Allow {
		t.Fatalf("answerPlan: %v (%s)", res.Decision, res.Reason)
	}
	if err := s.SetMode(perm.ModeDefault); err != nil {
		t.Fatal(err)
	}
	if _, err := s.leavePlan(); err == nil {
		t.Fatal("leavePlan out of plan mode succeeded")
	}
	if err := s.SetMode(perm.ModePlan); err != nil {
		t.Fatal(err)
	}
	if m, err := s.leavePlan(); err != nil || m != perm.ModeDefault {
		t.Errorf("leavePlan = %s, %v; want default", m, err)
	}
}

// toolsSeen is a model that records the tools each request shows, and
// answers as m.
type toolsSeen struct {
	m    loop.Model
	mu   sync.Mutex
	seen [][]string
}

func (t *toolsSeen) Complete(ctx context.Context, req loop.Request) (loop.Response, error) {
	var names []string
	for _, s := range req.Tools {
		names = append(names, s.Function.Name)
	}
	t.mu.Lock()
	t.seen = append(t.seen, names)
	t.mu.Unlock()
	return t.m.Complete(ctx, req)
}

// EnterPlanMode, as in Claude Code: in an interactive session the model
// may propose plan mode, and the person decides; Yes switches the session
// to plan mode during the turn, as Shift+Tab would, so what follows in
// the same turn is planning (the model is shown ExitPlanMode from then
// on, in place of EnterPlanMode), and No keeps the mode. A tools list
// (--tools) hides neither mode switch. The plan's allowedPrompts
// (Claude Code's) reach the dialog, and approve nothing.
func TestEnterPlanMode(t *testing.T) {
	root, home := project(t, nil)
	var enter bool
	a := &approver{answer: func(ap gate.Approval) gate.Reply {
		switch {
		case ap.Request.Tool == "EnterPlanMode" && ap.EnterPlan && ap.NoRule != "":
			if enter {
				return gate.Reply{Choice: gate.Yes}
			}
			return gate.Reply{Choice: gate.No}
		case ap.Request.Tool == "ExitPlanMode":
			return gate.Reply{Choice: gate.No}
		}
		t.Errorf("asked about %s %+v", ap.Request.Tool, ap)
		return gate.Reply{Choice: gate.No}
	}}
	m := &toolsSeen{m: offline.New()}
	s := newSession(t, root, home, m, a, func(c *Config) {
		c.Settings.Tools, c.Settings.LimitTools = []string{"Read", "Bash"}, true
	})
	if tools := s.Tools(); !slices.Contains(tools, "EnterPlanMode") || slices.Contains(tools, "ExitPlanMode") {
		t.Errorf("default mode's tools %v: want EnterPlanMode and not ExitPlanMode", tools)
	}
	ctx := context.Background()

	// Declined: the mode stays.
	out, err := s.Submit(ctx, "Call EnterPlanMode: {}", nil, nil)
	if err != nil || !strings.Contains(out.Final, "EnterPlanMode() -> DENIED: the user chose to stay in default mode") || s.Mode() != perm.ModeDefault {
		t.Fatalf("declined: %v, mode %s:\n%s", err, s.Mode(), out.Final)
	}

	enter = true
	m.seen = nil
	out, err = s.Submit(ctx, strings.Join([]string{
		"Call EnterPlanMode: {}",
		"Run bash: touch x",
		`Call ExitPlanMode: {"plan": "1. touch x", "allowedPrompts": [{"tool": "Bash", "prompt": "create files"}]}`,
		"Run bash: touch y",
	}, "\n"), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"EnterPlanMode() -> ALLOWED",
		"Bash(touch x) -> DENIED: plan mode",
		"ExitPlanMode() -> DENIED: the user did not approve the plan",
		"Bash(touch y) -> DENIED: plan mode",
	} {
		if !strings.Contains(out.Final, want) {
			t.Errorf("final answer lacks %q:\n%s", want, out.Final)
		}
	}
	if s.Mode() != perm.ModePlan {
		t.Errorf("mode %s, want plan", s.Mode())
	}
	for _, f := range []string{"x", "y"} {
		if _, err := os.Stat(filepath.Join(root, f)); err == nil {
			t.Errorf("%s was made in plan mode", f)
		}
	}
	plan := a.got[len(a.got)-1]
	if want := []gate.PlanPrompt{{Tool: "Bash", Prompt: "create files"}}; !slices.Equal(plan.PlanPrompts, want) || plan.Plan != "1. touch x" {
		t.Errorf("the plan's dialog had %q and %+v, want the plan and %+v", plan.Plan, plan.PlanPrompts, want)
	}
	// The offline model makes one call a model turn.
	for i, seen := range m.seen {
		if slices.Contains(seen, "EnterPlanMode") != (i == 0) || slices.Contains(seen, "ExitPlanMode") != (i > 0) {
			t.Errorf("tools shown at each model turn: %v; want EnterPlanMode, then ExitPlanMode once in plan mode", m.seen)
			break
		}
	}
	if tools := s.Tools(); slices.Contains(tools, "EnterPlanMode") || !slices.Contains(tools, "ExitPlanMode") {
		t.Errorf("plan mode's tools %v: want ExitPlanMode and not EnterPlanMode", tools)
	}
}

// Where nobody answers (headless) EnterPlanMode is not offered: plan
// mode could be entered there but never approved out of, as in Claude
// Code's headless trap. Called anyway, it does not run.
func TestEnterPlanModeHeadless(t *testing.T) {
	root, home := project(t, nil)
	s := newSession(t, root, home, offline.New(), nil, nil)
	if tools := s.Tools(); slices.Contains(tools, "EnterPlanMode") {
		t.Errorf("headless tools %v have EnterPlanMode", tools)
	}
	out, err := s.Submit(context.Background(), "Call EnterPlanMode: {}", nil, nil)
	if err != nil || !strings.Contains(out.Final, `tool "EnterPlanMode" is not available`) || s.Mode() != perm.ModeDefault {
		t.Errorf("headless EnterPlanMode: %v, mode %s:\n%s", err, s.Mode(), out.Final)
	}
}

// The plan-mode reminder reaches the model with each prompt submitted in
// plan mode, but it is not the person's words: the transcript does not
// keep it, so a resumed session neither shows it as typed nor sends it
// again with the earlier prompt.
func TestPlanReminderNotSaved(t *testing.T) {
	root, home := project(t, map[string]string{".gen/settings.json": `{"permissions": {"defaultMode": "plan"}}`})
	path := filepath.Join(t.TempDir(), "s.jsonl")
	record := func(c *Config) {
		trusted(c)
		c.TranscriptPath = path
		c.OnTurn = func(msgs []openai.ChatCompletionMessage) error {
			return transcript.Append(path, transcript.Meta{SessionID: "s"}, msgs)
		}
	}
	a := &approver{answer: func(gate.Approval) gate.Reply { return gate.Reply{Choice: gate.No} }}
	first := &recorder{}
	s := newSession(t, root, home, first, a, record)
	if _, err := s.Submit(context.Background(), "plan the change", nil, nil); err != nil {
		t.Fatal(err)
	}
	if msgs := first.reqs[0].Messages; msgs[len(msgs)-1].Content != "plan the change\n\n"+planReminder {
		t.Errorf("the model was sent %q, want the prompt and the reminder", msgs[len(msgs)-1].Content)
	}
	saved, err := transcript.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range saved {
		if strings.Contains(m.Content, planReminder) {
			t.Errorf("the transcript keeps the reminder: %s %q", m.Role, m.Content)
		}
	}

	second := &recorder{}
	resumed := newSession(t, root, home, second, a, func(c *Config) { record(c); c.History = saved })
	for _, m := range resumed.History() {
		if strings.Contains(m.Content, planReminder) {
			t.Errorf("the resumed session shows the reminder: %s %q", m.Role, m.Content)
		}
	}
	if _, err := resumed.Submit(context.Background(), "go on", nil, nil); err != nil {
		t.Fatal(err)
	}
	var users []string
	for _, m := range second.reqs[0].Messages {
		if m.Role == openai.ChatMessageRoleUser {
			users = append(users, m.Content)
		}
	}
	if want := []string{"plan the change", "go on\n\n" + planReminder}; !slices.Equal(users, want) {
		t.Errorf("the resumed session sent the prompts %q, want %q", users, want)
	}
}
