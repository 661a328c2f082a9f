package tui

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/gen-run/gen/agent"
	"github.com/gen-run/gen/loop"
	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/policy"
)

// fakeEngine records what the UI asks of it.
type fakeEngine struct {
	mu     sync.Mutex
	calls  []string
	mode   perm.Mode
	rules  []policy.RuleView
	agents []*agent.Definition
	tools  []string
	err    error // returned by the methods that can fail
	// submit runs a turn; nil answers "done" at once.
	submit func(ctx context.Context, prompt string, onEvent func(loop.Event), onText func(string)) (loop.Outcome, error)
}

func newFakeEngine() *fakeEngine {
	return &fakeEngine{
		mode: perm.ModeDefault,
		rules: []policy.RuleView{
			{List: "allow", Rule: "Bash(echo *)", Source: perm.SourceLocal, Origin: ".gen/settings.local.json"},
			{List: "deny", Rule: "Read(./.env)", Source: perm.SourceProject, Origin: ".gen/settings.json"},
		},
		agents: []*agent.Definition{
			{Name: "Explore", Description: "Read-only investigation", Mode: perm.ModeExplore, Source: agent.SourceBuiltin},
			{Name: "reviewer", Description: "Reviews diffs", Source: agent.SourceProject},
		},
		tools: []string{"Bash", "Read", "Write"},
	}
}

func (f *fakeEngine) record(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, fmt.Sprintf(format, args...))
}

func (f *fakeEngine) recorded() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

func (f *fakeEngine) Submit(ctx context.Context, prompt string, onEvent func(loop.Event), onText func(string)) (loop.Outcome, error) {
	f.record("Submit(%s)", prompt)
	if f.submit == nil {
		onText("done")
		return loop.Outcome{Final: "done"}, nil
	}
	return f.submit(ctx, prompt, onEvent, onText)
}

func (f *fakeEngine) Mode() perm.Mode {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.mode
}

func (f *fakeEngine) CycleMode() perm.Mode {
	f.record("CycleMode")
	f.mu.Lock()
	defer f.mu.Unlock()
	i := slices.Index(perm.MainLoopModes, f.mode)
	f.mode = perm.MainLoopModes[(i+1)%len(perm.MainLoopModes)]
	return f.mode
}

func (f *fakeEngine) Modes() []perm.Mode { return perm.MainLoopModes }

func (f *fakeEngine) SetMode(m perm.Mode) error {
	f.record("SetMode(%s)", m)
	if f.err != nil {
		return f.err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.mode = m
	return nil
}

func (f *fakeEngine) ModelName() string { return "fake-model" }

func (f *fakeEngine) AddDir(path string) error {
	f.record("AddDir(%s)", path)
	return f.err
}

func (f *fakeEngine) AllowPattern(rule string) error {
	f.record("AllowPattern(%s)", rule)
	return f.err
}

func (f *fakeEngine) Rules() []policy.RuleView { return f.rules }

func (f *fakeEngine) AddRule(scope perm.Source, list, rule string) error {
	f.record("AddRule(%s,%s,%s)", scope, list, rule)
	return f.err
}

func (f *fakeEngine) RemoveRule(scope perm.Source, list, rule string) error {
	f.record("RemoveRule(%s,%s,%s)", scope, list, rule)
	return f.err
}

func (f *fakeEngine) Agents() []*agent.Definition { return f.agents }
func (f *fakeEngine) Tools() []string             { return f.tools }

// harness drives a model the way the program would, from the test's
// goroutine: messages the model sends itself and the results of its
// commands arrive on msgs and are fed to Update by pump.
type harness struct {
	t       *testing.T
	m       *model
	eng     *fakeEngine
	printed []string
	msgs    chan tea.Msg
	clock   time.Time
	quit    bool
}

func newHarness(t *testing.T, eng *fakeEngine) *harness {
	t.Helper()
	h := &harness{t: t, eng: eng, msgs: make(chan tea.Msg, 1000), clock: time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)}
	h.m = newModel(context.Background(), eng, newStyles(lipgloss.NewRenderer(io.Discard)))
	h.m.print = func(s string) { h.printed = append(h.printed, s) }
	h.m.send = h.deliver
	h.m.now = func() time.Time { return h.clock }
	h.update(tea.WindowSizeMsg{Width: 100, Height: 40})
	return h
}

// deliver queues msg without ever blocking: a tick command may still fire
// after the test has stopped listening.
func (h *harness) deliver(msg tea.Msg) {
	select {
	case h.msgs <- msg:
	default:
	}
}

// update feeds msg to the model and runs the command it returns.
func (h *harness) update(msg tea.Msg) {
	h.t.Helper()
	if _, ok := msg.(tea.QuitMsg); ok {
		h.quit = true
		return
	}
	_, cmd := h.m.Update(msg)
	h.run(cmd)
}

// run runs cmd the way Bubble Tea does: on a goroutine of its own, with
// its result delivered as a message.
func (h *harness) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		switch msg := cmd().(type) {
		case tea.BatchMsg:
			for _, c := range msg {
				h.run(c)
			}
		case nil:
		default:
			h.deliver(msg)
		}
	}()
}

// keys sends key presses: names such as "enter", "ctrl+c", "shift+tab",
// "alt+enter", "space", or any other text, which is typed.
func (h *harness) keys(keys ...string) {
	h.t.Helper()
	for _, k := range keys {
		h.update(keyMsg(k))
	}
}

func keyMsg(k string) tea.KeyMsg {
	named := map[string]tea.KeyType{
		"enter": tea.KeyEnter, "esc": tea.KeyEsc, "up": tea.KeyUp, "down": tea.KeyDown,
		"tab": tea.KeyTab, "shift+tab": tea.KeyShiftTab, "ctrl+c": tea.KeyCtrlC,
		"ctrl+j": tea.KeyCtrlJ, "ctrl+u": tea.KeyCtrlU, "pgup": tea.KeyPgUp, "pgdown": tea.KeyPgDown,
		"backspace": tea.KeyBackspace,
	}
	switch k {
	case "alt+enter":
		return tea.KeyMsg{Type: tea.KeyEnter, Alt: true}
	case "space":
		return tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
	}
	if t, ok := named[k]; ok {
		return tea.KeyMsg{Type: t}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
}

// screen is what the person sees: the printed transcript and the view.
func (h *harness) screen() string {
	return strings.Join(h.printed, "\n") + "\n" + h.m.View()
}

// pump feeds queued messages to the model until cond holds, failing the
// test after a minute (a hang guard, not a budget).
func (h *harness) pump(what string, cond func() bool) {
	h.t.Helper()
	deadline := time.After(60 * time.Second)
	for !cond() {
		select {
		case msg := <-h.msgs:
			h.update(msg)
		case <-deadline:
			h.t.Fatalf("timed out waiting for %s; screen:\n%s", what, h.screen())
		}
	}
}

// submit types prompt and presses Enter.
func (h *harness) submit(prompt string) {
	h.t.Helper()
	h.keys(prompt, "enter")
}

// waitIdle pumps until the running turn has ended.
func (h *harness) waitIdle() {
	h.t.Helper()
	h.pump("the turn to end", func() bool { return !h.m.running })
}

// open opens a dialog for r as a call to Approve or AskQuestions would,
// for a person who was not typing and who looks at the dialog before
// answering: the clock moves past the type-ahead window before and past
// the dialog's guard after.
func (h *harness) open(r *request) {
	h.t.Helper()
	h.clock = h.clock.Add(typeAheadWindow)
	h.openNow(r)
	h.clock = h.clock.Add(h.m.guard)
}

// openNow opens a dialog for r at once, as it happens while the person
// types.
func (h *harness) openNow(r *request) {
	h.t.Helper()
	if r.reply == nil {
		r.reply = make(chan reply, 1)
	}
	h.update(requestMsg{r})
}

// replied returns r's reply, if it has one.
func replied(r *request) (reply, bool) {
	select {
	case rep := <-r.reply:
		return rep, true
	default:
		return reply{}, false
	}
}
