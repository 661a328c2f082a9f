package tui

import (
	"bytes"
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/gen-run/gen/gate"
	"github.com/gen-run/gen/loop"
	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/sandbox"
	"github.com/gen-run/gen/tool"
)

func bashApproval(cmd string, rules ...string) *gate.Approval {
	return &gate.Approval{
		Request:    perm.Request{Tool: "Bash", Input: map[string]any{"command": cmd}},
		Result:     perm.Result{Decision: perm.Ask, Step: 7, Reason: "no allow rule matches cat /etc/hosts"},
		Specifier:  cmd,
		Rules:      rules,
		Class:      "Bash",
		CanPersist: true,
	}
}

func TestApprovalDialog(t *testing.T) {
	const cmd = "echo hi && cat /etc/hosts"
	tests := []struct {
		name       string
		rules      []string // the prefilled Always rules
		noPersist  bool     // CanPersist false
		keys       []string
		want       *gate.Reply // nil: no answer yet
		wantScreen []string    // shown after the keys
	}{
		{name: "digit 1 is Yes", keys: []string{"1"}, want: &gate.Reply{Choice: gate.Yes}},
		{name: "digit 2 allows the class for the session", keys: []string{"2"}, want: &gate.Reply{Choice: gate.YesSession}},
		{name: "digit 4 is No", keys: []string{"4"}, want: &gate.Reply{Choice: gate.No}},
		{name: "Esc is No", keys: []string{"esc"}, want: &gate.Reply{Choice: gate.No}},
		{name: "Enter takes the highlighted Yes", keys: []string{"enter"}, want: &gate.Reply{Choice: gate.Yes}},
		{name: "arrow down then Enter", keys: []string{"down", "enter"}, want: &gate.Reply{Choice: gate.YesSession}},
		{name: "arrow down to the end is No", keys: []string{"down", "down", "down", "down", "enter"}, want: &gate.Reply{Choice: gate.No}},
		{name: "arrow up stops at the top", keys: []string{"up", "up", "enter"}, want: &gate.Reply{Choice: gate.Yes}},
		{
			name: "3 opens the rule editor prefilled, Enter saves it",
			keys: []string{"3", "enter"}, rules: []string{"Bash(cat /etc/hosts)"},
			want: &gate.Reply{Choice: gate.Always, Rules: []string{"Bash(cat /etc/hosts)"}},
		},
		{
			name: "the editor shows the prefilled rule and does not answer yet",
			keys: []string{"3"}, rules: []string{"Bash(cat /etc/hosts)"},
			wantScreen: []string{"Always allow: these rules will be saved", "Bash(cat /etc/hosts)", "Esc to go back"},
		},
		{
			name: "arrows to Always allow then Enter twice",
			keys: []string{"down", "down", "enter", "enter"}, rules: []string{"Bash(cat /etc/hosts)"},
			want: &gate.Reply{Choice: gate.Always, Rules: []string{"Bash(cat /etc/hosts)"}},
		},
		{
			name: "a compound command prefills one rule per subcommand",
			keys: []string{"3", "enter"}, rules: []string{"Bash(cat /etc/hosts)", "Bash(head -1 x)"},
			want: &gate.Reply{Choice: gate.Always, Rules: []string{"Bash(cat /etc/hosts)", "Bash(head -1 x)"}},
		},
		{
			name: "the rule can be broadened before saving",
			keys: []string{"3", "ctrl+u", "Bash(cat *)", "enter"}, rules: []string{"Bash(cat /etc/hosts)"},
			want: &gate.Reply{Choice: gate.Always, Rules: []string{"Bash(cat *)"}},
		},
		{
			name: "Alt+Enter adds a line for a second rule; blank lines are dropped",
			keys: []string{"3", "alt+enter", "alt+enter", "Read(./src/**)", "enter"}, rules: []string{"Bash(cat /etc/hosts)"},
			want: &gate.Reply{Choice: gate.Always, Rules: []string{"Bash(cat /etc/hosts)", "Read(./src/**)"}},
		},
		{
			name: "Ctrl+J adds a line too",
			keys: []string{"3", "ctrl+j", "Bash(ls)", "enter"}, rules: []string{"Bash(cat /etc/hosts)"},
			want: &gate.Reply{Choice: gate.Always, Rules: []string{"Bash(cat /etc/hosts)", "Bash(ls)"}},
		},
		{
			name: "an emptied editor is refused with a message",
			keys: []string{"3", "ctrl+u", "enter"}, rules: []string{"Bash(cat /etc/hosts)"},
			wantScreen: []string{"write at least one rule"},
		},
		{
			name: "a malformed rule is refused with its line",
			keys: []string{"3", "ctrl+u", "Bash(cat", "enter"}, rules: []string{"Bash(cat /etc/hosts)"},
			wantScreen: []string{"line 1: malformed rule", "missing closing parenthesis"},
		},
		{
			name: "Esc in the editor goes back to the options",
			keys: []string{"3", "esc"}, rules: []string{"Bash(cat /etc/hosts)"},
			wantScreen: []string{"❯ 1. Yes", "4. No"},
		},
		{
			name: "Esc in the editor then 4 is No",
			keys: []string{"3", "esc", "4"}, rules: []string{"Bash(cat /etc/hosts)"},
			want: &gate.Reply{Choice: gate.No},
		},
		{
			name: "without CanPersist option 3 is disabled and explained",
			keys: []string{}, noPersist: true,
			wantScreen: []string{"3. Always allow… (managed settings allow only managed rules)"},
		},
		{
			name: "without CanPersist the digit 3 does nothing",
			keys: []string{"3"}, noPersist: true, rules: []string{"Bash(cat /etc/hosts)"},
			wantScreen: []string{"Always allow is not available", "Do you want to allow this call?"},
		},
		{
			name: "without CanPersist the arrows skip option 3",
			keys: []string{"down", "down", "enter"}, noPersist: true,
			want: &gate.Reply{Choice: gate.No},
		},
		{
			name: "without CanPersist arrows up skip option 3 too",
			keys: []string{"down", "down", "up", "enter"}, noPersist: true,
			want: &gate.Reply{Choice: gate.YesSession},
		},
		{
			name: "the dialog shows tool, specifier, reason and class",
			keys: []string{},
			wantScreen: []string{
				"Permission needed: Bash", "   " + cmd, "Reason: no allow rule matches cat /etc/hosts",
				"❯ 1. Yes", "2. Yes, allow all Bash this session", "3. Always allow…", "4. No",
			},
		},
		{
			name: "keys meant for the prompt do not leak into it",
			keys: []string{"x", "enter"},
			want: &gate.Reply{Choice: gate.Yes},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, newFakeEngine())
			a := bashApproval(cmd, tt.rules...)
			a.CanPersist = !tt.noPersist
			r := &request{id: 1, approval: a}
			h.open(r)
			h.keys(tt.keys...)
			rep, got := replied(r)
			switch {
			case tt.want == nil && got:
				t.Fatalf("answered %+v, want the dialog still open", rep)
			case tt.want != nil && !got:
				t.Fatalf("no answer; screen:\n%s", h.screen())
			case got:
				if rep.err != nil {
					t.Fatalf("error %v, want answer %+v", rep.err, *tt.want)
				}
				if rep.answer.Choice != tt.want.Choice || !slices.Equal(rep.answer.Rules, tt.want.Rules) {
					t.Fatalf("answer %+v, want %+v", rep.answer, *tt.want)
				}
				if len(h.m.requests) != 0 || strings.Contains(h.m.View(), "Permission needed") {
					t.Fatalf("the dialog is still shown after the answer:\n%s", h.m.View())
				}
				if h.m.input.Value() != "" {
					t.Fatalf("dialog keys reached the prompt: %q", h.m.input.Value())
				}
			}
			screen := h.screen()
			for _, s := range tt.wantScreen {
				if !strings.Contains(screen, s) {
					t.Errorf("screen lacks %q:\n%s", s, screen)
				}
			}
		})
	}
}

func TestApprovalQueue(t *testing.T) {
	h := newHarness(t, newFakeEngine())
	first := &request{id: 1, approval: bashApproval("cat a")}
	second := &request{id: 2, approval: bashApproval("cat b")}
	h.open(first)
	h.open(second)
	if v := h.m.View(); !strings.Contains(v, "cat a") || strings.Contains(v, "cat b") {
		t.Fatalf("want only the first approval shown:\n%s", v)
	}
	h.keys("4")
	if rep, ok := replied(first); !ok || rep.answer.Choice != gate.No {
		t.Fatalf("first: got %+v, %v; want No", rep, ok)
	}
	if _, ok := replied(second); ok {
		t.Fatal("the second approval was answered by the first answer")
	}
	if v := h.m.View(); !strings.Contains(v, "cat b") {
		t.Fatalf("the second approval is not shown after the first:\n%s", v)
	}
	// The second is withdrawn (its caller's context ended): the dialog
	// closes, and its caller gets an error, never a Yes.
	h.update(withdrawMsg{2})
	if rep, ok := replied(second); !ok || rep.err == nil {
		t.Fatalf("withdrawn request: got %+v, %v; want an error", rep, ok)
	}
	if v := h.m.View(); strings.Contains(v, "Permission needed") {
		t.Fatalf("a withdrawn dialog is still shown:\n%s", v)
	}
	if !strings.Contains(h.screen(), "The approval for Bash was withdrawn.") {
		t.Fatalf("no note about the withdrawal:\n%s", h.screen())
	}
	h.update(withdrawMsg{99}) // unknown: nothing happens
}

// colourStyles are styles that emit ANSI colours, to check colouring.
func colourStyles() styles {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.ANSI)
	return newStyles(r)
}

func TestApprovalPreview(t *testing.T) {
	var diff strings.Builder
	diff.WriteString("--- a/notes.txt\n+++ b/notes.txt\n@@ -1,40 +1,40 @@\n")
	for i := range 40 {
		diff.WriteString(" context line " + string(rune('A'+i%26)) + "\n")
	}
	diff.WriteString("-old line\n+new line\n")
	a := &gate.Approval{
		Request:    perm.Request{Tool: "Edit", Input: map[string]any{"file_path": "notes.txt"}},
		Result:     perm.Result{Decision: perm.Ask, Reason: "editing needs approval in default mode"},
		Specifier:  "notes.txt",
		Preview:    diff.String(),
		Rules:      []string{"Edit(notes.txt)"},
		Class:      "Edit",
		CanPersist: true,
	}

	h := newHarness(t, newFakeEngine())
	h.m.sty = colourStyles()
	h.open(&request{id: 1, approval: a})
	v := h.m.View()
	for _, s := range []string{"Permission needed: ", "Edit", "notes.txt", "+++ b/notes.txt", "@@ -1,40 +1,40 @@", "2. Yes, allow all Edit this session", "PgUp/PgDn"} {
		if !strings.Contains(v, s) {
			t.Errorf("view lacks %q:\n%s", s, v)
		}
	}
	if strings.Contains(v, "new line") {
		t.Errorf("the end of a long diff is shown before scrolling; the dialog would not fit:\n%s", v)
	}
	for range 5 {
		h.keys("pgdown")
	}
	v = h.m.View()
	// Added lines are green (32), removed lines red (31).
	if !strings.Contains(v, "\x1b[32m+new line") || !strings.Contains(v, "\x1b[31m-old line") {
		t.Errorf("scrolled to the end, want coloured +/- lines:\n%q", v)
	}
	if !strings.Contains(v, "below") || !strings.Contains(v, "0 below") {
		t.Errorf("want a scroll indicator ending in 0 below:\n%s", v)
	}
	h.keys("pgup", "pgup", "pgup", "pgup", "pgup")
	if v := h.m.View(); !strings.Contains(v, "--- a/notes.txt") {
		t.Errorf("PgUp does not return to the top:\n%s", v)
	}
}

func TestApprovalShowsHiddenCharacters(t *testing.T) {
	h := newHarness(t, newFakeEngine())
	// An escape sequence that would erase the line, and a right-to-left
	// override that would reorder it, must not reach the terminal.
	cmd := "echo safe\x1b[2K\rrm -rf ~ \u202e"
	h.open(&request{id: 1, approval: bashApproval(cmd)})
	v := h.m.View()
	if strings.ContainsAny(v, "\x1b\r\u202e") {
		t.Fatalf("raw control characters reach the terminal: %q", v)
	}
	for _, s := range []string{`echo safe\u{1b}[2K\u{d}rm -rf ~ \u{202e}`} {
		if !strings.Contains(v, s) {
			t.Errorf("view lacks %q:\n%s", s, v)
		}
	}
}

func TestLongSpecifierIsWrappedNotCut(t *testing.T) {
	h := newHarness(t, newFakeEngine())
	cmd := "echo " + strings.Repeat("abcdefghij", 25) + " END"
	h.open(&request{id: 1, approval: bashApproval(cmd)})
	v := h.m.View()
	if !strings.Contains(v, "END") {
		t.Fatalf("the end of a long command is not shown:\n%s", v)
	}
	for _, l := range strings.Split(v, "\n") {
		if w := lipgloss.Width(l); w > 100 {
			t.Fatalf("line of width %d exceeds the terminal's 100: %q", w, l)
		}
	}
}

func TestShiftTabCyclesMode(t *testing.T) {
	eng := newFakeEngine()
	h := newHarness(t, eng)
	if !strings.Contains(h.m.View(), "default mode") {
		t.Fatalf("status lacks the mode:\n%s", h.m.View())
	}
	h.keys("shift+tab")
	if got := eng.recorded(); !slices.Equal(got, []string{"CycleMode"}) {
		t.Fatalf("engine calls %q, want one CycleMode", got)
	}
	if v := h.m.View(); !strings.Contains(v, "acceptEdits mode") || !strings.Contains(v, "model fake-model") {
		t.Fatalf("status does not show the new mode and the model:\n%s", v)
	}

	// Not while a dialog is open.
	r := &request{id: 1, approval: bashApproval("ls")}
	h.open(r)
	h.keys("shift+tab")
	if got := eng.recorded(); len(got) != 1 {
		t.Fatalf("Shift+Tab in a dialog called the engine: %q", got)
	}
	if _, ok := replied(r); ok {
		t.Fatal("Shift+Tab answered the dialog")
	}
}

func TestPromptEditing(t *testing.T) {
	eng := newFakeEngine()
	h := newHarness(t, eng)
	h.keys("line one", "alt+enter", "line two", "ctrl+j", "line three")
	if got := h.m.input.Value(); got != "line one\nline two\nline three" {
		t.Fatalf("prompt %q, want three lines", got)
	}
	if len(eng.recorded()) != 0 {
		t.Fatalf("a new line submitted the prompt: %q", eng.recorded())
	}
	h.keys("enter")
	h.waitIdle()
	if got := eng.recorded(); !slices.Equal(got, []string{"Submit(line one\nline two\nline three)"}) {
		t.Fatalf("engine calls %q", got)
	}
	if h.m.input.Value() != "" {
		t.Fatalf("the prompt is not cleared after submitting: %q", h.m.input.Value())
	}
	screen := h.screen()
	if !strings.Contains(screen, "> line one\n  line two\n  line three") || !strings.Contains(screen, "done") {
		t.Fatalf("transcript lacks the prompt or the answer:\n%s", screen)
	}

	// An empty prompt does nothing.
	h.keys("   ", "enter")
	if len(eng.recorded()) != 1 {
		t.Fatalf("a blank prompt was submitted: %q", eng.recorded())
	}
}

// blockingSubmit returns a Submit that reports a call, then blocks until
// ctx ends or release is closed (when it is not nil), recording how it
// ended.
func blockingSubmit(release chan struct{}, ended chan<- error) func(context.Context, string, func(loop.Event), func(string)) (loop.Outcome, error) {
	return func(ctx context.Context, _ string, onEvent func(loop.Event), _ func(string)) (loop.Outcome, error) {
		onEvent(loop.Event{Kind: loop.EventToolCall, CallID: "c1", Tool: "Bash", Input: map[string]any{"command": "sleep 100"}})
		select {
		case <-ctx.Done():
			ended <- ctx.Err()
			return loop.Outcome{}, ctx.Err()
		case <-release:
			ended <- nil
			return loop.Outcome{}, nil
		}
	}
}

func TestCtrlCInterruptsThenExits(t *testing.T) {
	eng := newFakeEngine()
	ended := make(chan error, 1)
	eng.submit = blockingSubmit(nil, ended)
	h := newHarness(t, eng)
	h.submit("Run bash: sleep 100")
	h.pump("the call to show", func() bool { return strings.Contains(h.m.View(), "Bash(sleep 100)") })
	if v := h.m.View(); !strings.Contains(v, "working") || !strings.Contains(v, "Ctrl+C to interrupt") {
		t.Fatalf("no running indicator:\n%s", v)
	}

	// Enter during the turn queues the prompt.
	h.keys("more", "enter")
	if !strings.Contains(h.m.View(), "queued: more") || h.m.input.Value() != "" {
		t.Fatalf("Enter during a turn: want the prompt queued:\n%s", h.m.View())
	}

	h.keys("ctrl+c")
	select {
	case err := <-ended:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Submit ended with %v, want context.Canceled", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("Ctrl+C did not cancel the context given to Submit")
	}
	h.waitIdle()
	if h.quit {
		t.Fatal("the first Ctrl+C exited")
	}
	if s := h.screen(); !strings.Contains(s, "Interrupted.") || !strings.Contains(s, "Press Ctrl+C again to exit") {
		t.Fatalf("want the interruption and a hint shown:\n%s", s)
	}
	// The interrupted turn does not run the queued prompt: it is back in
	// the prompt.
	if h.m.input.Value() != "more" || len(h.m.queue) != 0 || !strings.Contains(h.screen(), "back in the prompt") {
		t.Fatalf("queued prompt after an interruption: input %q, queue %v:\n%s", h.m.input.Value(), h.m.queue, h.screen())
	}
	if got := eng.recorded(); slices.Contains(got, "Submit(more)") {
		t.Fatalf("the queued prompt ran after the interruption: %v", got)
	}
	h.clock = h.clock.Add(time.Second)
	h.keys("ctrl+c")
	h.pump("the program to quit", func() bool { return h.quit })
}

func TestSecondCtrlCWhileStillRunningExits(t *testing.T) {
	eng := newFakeEngine()
	ended := make(chan error, 1)
	release := make(chan struct{})
	// A Submit that ignores cancellation for a while.
	eng.submit = func(ctx context.Context, p string, onEvent func(loop.Event), onText func(string)) (loop.Outcome, error) {
		<-release
		ended <- ctx.Err()
		return loop.Outcome{}, ctx.Err()
	}
	defer close(release)
	h := newHarness(t, eng)
	h.submit("hang")
	h.keys("ctrl+c")
	if h.m.quitting {
		t.Fatal("the first Ctrl+C exited")
	}
	h.clock = h.clock.Add(10 * time.Second) // no time limit while a turn runs
	h.keys("ctrl+c")
	h.pump("the program to quit", func() bool { return h.quit })
}

func TestCtrlCWhileIdle(t *testing.T) {
	tests := []struct {
		name     string
		gap      time.Duration
		wantQuit bool
	}{
		{"twice within 2 s exits", 1500 * time.Millisecond, true},
		{"twice at exactly 2 s exits", 2 * time.Second, true},
		{"twice 3 s apart does not", 3 * time.Second, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, newFakeEngine())
			h.keys("ctrl+c")
			if h.m.quitting {
				t.Fatal("one Ctrl+C exited")
			}
			if !strings.Contains(h.m.View(), "Press Ctrl+C again to exit") {
				t.Fatalf("no hint after the first Ctrl+C:\n%s", h.m.View())
			}
			h.clock = h.clock.Add(tt.gap)
			h.keys("ctrl+c")
			if h.m.quitting != tt.wantQuit {
				t.Fatalf("quitting = %v, want %v", h.m.quitting, tt.wantQuit)
			}
		})
	}
}

func TestCtrlCRefusesOpenDialog(t *testing.T) {
	eng := newFakeEngine()
	ended := make(chan error, 1)
	eng.submit = blockingSubmit(nil, ended)
	h := newHarness(t, eng)
	h.submit("go")
	r := &request{id: 1, approval: bashApproval("cat /etc/hosts")}
	h.open(r)
	q := &request{id: 2, questions: []tool.Question{{Question: "Which?", Options: []tool.Option{{Label: "a"}, {Label: "b"}}}}}
	h.open(q)
	h.keys("ctrl+c")
	if rep, ok := replied(r); !ok || rep.answer.Choice != gate.No {
		t.Fatalf("approval: got %+v, %v; want No", rep, ok)
	}
	if rep, ok := replied(q); !ok || rep.err == nil {
		t.Fatalf("question: got %+v, %v; want an error", rep, ok)
	}
	if err := <-ended; !errors.Is(err, context.Canceled) {
		t.Fatalf("Submit ended with %v, want cancelled", err)
	}
}

func TestSlashCommands(t *testing.T) {
	tests := []struct {
		name      string
		line      string
		engineErr error
		wantCalls []string
		want      []string // on screen
		wantMode  string   // in the status line, if set
	}{
		{
			name: "permissions lists the rules grouped, with scopes",
			line: "/permissions",
			want: []string{"Permission rules (mode default):", "allow:\n    Bash(echo *)  local (.gen/settings.local.json)", "ask: (none)", "deny:\n    Read(./.env)  project (.gen/settings.json)"},
		},
		{
			name:      "permissions add",
			line:      "/permissions add local allow Bash(npm run *)",
			wantCalls: []string{"AddRule(local,allow,Bash(npm run *))"},
			want:      []string{"Added Bash(npm run *) to the local allow rules."},
		},
		{
			name:      "permissions remove",
			line:      "/permissions remove user deny Read(./.env)",
			wantCalls: []string{"RemoveRule(user,deny,Read(./.env))"},
			want:      []string{"Removed Read(./.env) from the user deny rules."},
		},
		{
			name:      "permissions add project ask",
			line:      "/permissions add project ask Bash(git push *)",
			wantCalls: []string{"AddRule(project,ask,Bash(git push *))"},
		},
		{
			name: "permissions refuses the managed scope",
			line: "/permissions add managed allow Bash",
			want: []string{`✗ unknown scope "managed"`},
		},
		{
			name: "permissions refuses an unknown list",
			line: "/permissions add local maybe Bash",
			want: []string{`✗ unknown list "maybe"`},
		},
		{
			name: "permissions refuses a malformed rule before the engine sees it",
			line: "/permissions add local allow Bash(ls",
			want: []string{"✗ malformed rule", "missing closing parenthesis"},
		},
		{
			name: "permissions add without a rule shows the usage",
			line: "/permissions add local allow",
			want: []string{"✗ usage: /permissions add SCOPE LIST RULE"},
		},
		{
			name: "permissions with an unknown subcommand",
			line: "/permissions list",
			want: []string{`✗ unknown /permissions subcommand "list"`},
		},
		{
			name:      "an engine error is shown, not fatal",
			line:      "/permissions add user allow Bash(ls)",
			engineErr: errors.New("managed settings allow only managed rules"),
			wantCalls: []string{"AddRule(user,allow,Bash(ls))"},
			want:      []string{"✗ could not add Bash(ls) to the user allow rules: managed settings allow only managed rules"},
		},
		{
			name:      "add-dir",
			line:      "/add-dir ../shared docs",
			wantCalls: []string{"AddDir(../shared docs)"},
			want:      []string{"Added directory ../shared docs for this session."},
		},
		{
			name: "add-dir without a path",
			line: "/add-dir",
			want: []string{"✗ usage: /add-dir PATH"},
		},
		{
			name:      "add-dir engine error",
			line:      "/add-dir /nope",
			engineErr: errors.New("no such directory"),
			wantCalls: []string{"AddDir(/nope)"},
			want:      []string{"✗ could not add directory /nope: no such directory"},
		},
		{
			name:      "allow-pattern",
			line:      "/allow-pattern Bash(npm test)",
			wantCalls: []string{"AllowPattern(Bash(npm test))"},
			want:      []string{"Allowed Bash(npm test) for this session."},
		},
		{
			name: "allow-pattern with a malformed rule",
			line: "/allow-pattern Bash()",
			want: []string{"✗ malformed rule", "empty pattern"},
		},
		{
			name: "mode shows the mode",
			line: "/mode",
			want: []string{"Permission mode: default (modes: default, acceptEdits, plan, dontAsk, bypassPermissions, auto"},
		},
		{
			name:      "mode sets the mode",
			line:      "/mode bypassPermissions",
			wantCalls: []string{"SetMode(bypassPermissions)"},
			want:      []string{"Permission mode: bypassPermissions"},
			wantMode:  "bypassPermissions mode",
		},
		{
			name: "mode refuses an unknown name",
			line: "/mode yolo",
			want: []string{`✗ unknown permission mode "yolo"`},
		},
		{
			name:      "mode shows the engine's refusal",
			line:      "/mode bypassPermissions",
			engineErr: errors.New("disabled by managed settings"),
			wantCalls: []string{"SetMode(bypassPermissions)"},
			want:      []string{"✗ could not switch to bypassPermissions mode: disabled by managed settings"},
			wantMode:  "default mode",
		},
		{
			name: "agents",
			line: "/agents",
			want: []string{"Explore (builtin, explore mode): Read-only investigation", "reviewer (project, default mode): Reviews diffs"},
		},
		{
			name: "tools",
			line: "/tools",
			want: []string{"Tools the model sees (3): Bash, Read, Write"},
		},
		{
			name: "help",
			line: "/help",
			want: []string{"/permissions add SCOPE LIST RULE", "/add-dir PATH", "/allow-pattern RULE", "/mode [NAME]", "/agents", "/tools", "/exit", "Shift+Tab"},
		},
		{
			name: "unknown command",
			line: "/frobnicate now",
			want: []string{"✗ unknown command /frobnicate; /help lists the commands"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			eng := newFakeEngine()
			eng.err = tt.engineErr
			h := newHarness(t, eng)
			h.submit(tt.line)
			if got := eng.recorded(); !slices.Equal(got, tt.wantCalls) {
				t.Errorf("engine calls %q, want %q", got, tt.wantCalls)
			}
			screen := h.screen()
			if !strings.Contains(screen, "> "+tt.line) {
				t.Errorf("the command is not echoed:\n%s", screen)
			}
			for _, s := range tt.want {
				if !strings.Contains(screen, s) {
					t.Errorf("screen lacks %q:\n%s", s, screen)
				}
			}
			if tt.wantMode != "" && !strings.Contains(h.m.View(), tt.wantMode) {
				t.Errorf("status lacks %q:\n%s", tt.wantMode, h.m.View())
			}
			if h.m.quitting {
				t.Error("the command ended the UI")
			}
			if h.m.input.Value() != "" {
				t.Errorf("the prompt is not cleared: %q", h.m.input.Value())
			}
		})
	}
}

func TestExitCommand(t *testing.T) {
	for _, line := range []string{"/exit", "/quit"} {
		t.Run(line, func(t *testing.T) {
			h := newHarness(t, newFakeEngine())
			h.submit(line)
			h.pump("the program to quit", func() bool { return h.quit })
		})
	}
}

func TestAskQuestions(t *testing.T) {
	qs := []tool.Question{
		{Question: "Which database?", Header: "DB", Options: []tool.Option{
			{Label: "Postgres", Description: "relational"}, {Label: "SQLite"}, {Label: "None"},
		}},
		{Question: "Which extras?", Header: "Extras", MultiSelect: true, Options: []tool.Option{
			{Label: "Auth"}, {Label: "Cache"}, {Label: "Metrics"},
		}},
	}
	tests := []struct {
		name        string
		keys        []string
		want        []string // nil: no answer yet
		wantErr     error
		wantScreen  []string
		questionIdx int // the question shown when no answer is expected
	}{
		{name: "digits answer single and multi select", keys: []string{"2", "1", "3", "enter"}, want: []string{"SQLite", "Auth, Metrics"}},
		{name: "arrows, Enter and Space", keys: []string{"down", "down", "enter", "down", "space", "down", "space", "enter"}, want: []string{"None", "Cache, Metrics"}},
		{name: "a digit twice unticks", keys: []string{"1", "1", "2", "1", "enter"}, want: []string{"Postgres", "Cache"}},
		{name: "Other takes free text", keys: []string{"4", "MariaDB 11", "enter", "1", "4", "Tracing", "enter"}, want: []string{"MariaDB 11", "Auth, Tracing"}},
		{name: "digits typed into Other are text", keys: []string{"down", "down", "down", "v2", "enter", "2", "enter"}, want: []string{"v2", "Cache"}},
		{name: "Esc declines", keys: []string{"1", "esc"}, wantErr: ErrDeclined},
		{
			name: "an empty Other is refused", keys: []string{"4", "enter"},
			wantScreen: []string{"Choose an option or type an answer"}, questionIdx: 0,
		},
		{
			name: "a multi select with nothing ticked is refused", keys: []string{"1", "enter"},
			wantScreen: []string{"Choose an option or type an answer", "[ ] Auth"}, questionIdx: 1,
		},
		{
			name: "the first question is shown with its options and Other", keys: nil,
			wantScreen: []string{" DB ", "question 1 of 2", "Which database?", "❯ 1. Postgres  relational", "2. SQLite", "4. Other: "},
		},
		{
			name: "the second question shows check boxes", keys: []string{"1", "2"},
			wantScreen: []string{" Extras ", "question 2 of 2", "[ ] Auth", "[x] Cache"}, questionIdx: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, newFakeEngine())
			r := &request{id: 1, questions: qs}
			h.open(r)
			h.keys(tt.keys...)
			rep, got := replied(r)
			switch {
			case tt.wantErr != nil:
				if !got || !errors.Is(rep.err, tt.wantErr) {
					t.Fatalf("got %+v (answered %v), want error %v", rep, got, tt.wantErr)
				}
			case tt.want != nil:
				if !got || rep.err != nil || !slices.Equal(rep.answers, tt.want) {
					t.Fatalf("got %+v (answered %v), want %q", rep, got, tt.want)
				}
			default:
				if got {
					t.Fatalf("answered %+v, want the dialog open", rep)
				}
				if h.m.dlg.q != tt.questionIdx {
					t.Fatalf("showing question %d, want %d", h.m.dlg.q, tt.questionIdx)
				}
			}
			screen := h.screen()
			for _, s := range tt.wantScreen {
				if !strings.Contains(screen, s) {
					t.Errorf("screen lacks %q:\n%s", s, screen)
				}
			}
		})
	}
}

// script returns a Submit that reports events and text deltas in order.
func script(steps ...any) func(context.Context, string, func(loop.Event), func(string)) (loop.Outcome, error) {
	return func(ctx context.Context, _ string, onEvent func(loop.Event), onText func(string)) (loop.Outcome, error) {
		for _, s := range steps {
			switch s := s.(type) {
			case loop.Event:
				onEvent(s)
			case string:
				onText(s)
			case error:
				return loop.Outcome{}, s
			}
		}
		return loop.Outcome{}, nil
	}
}

func call(parent, id, toolName string, in map[string]any) loop.Event {
	return loop.Event{Kind: loop.EventToolCall, Parent: parent, CallID: id, Tool: toolName, Input: in}
}

func decision(parent, id string, d perm.Decision, reason string) loop.Event {
	return loop.Event{Kind: loop.EventDecision, Parent: parent, CallID: id, Result: perm.Result{Decision: d, Reason: reason}, Denied: d != perm.Allow}
}

func result(parent, id, output string, isErr, denied bool) loop.Event {
	return loop.Event{Kind: loop.EventToolResult, Parent: parent, CallID: id, Output: output, IsError: isErr, Denied: denied}
}

func TestTranscript(t *testing.T) {
	bash := func(cmd string) map[string]any { return map[string]any{"command": cmd} }
	tests := []struct {
		name    string
		steps   []any
		want    []string // lines or fragments on screen
		notWant []string
	}{
		{
			name: "an allowed call with its first output line",
			steps: []any{
				call("", "c1", "Bash", bash("echo hi && ls /tmp")), decision("", "c1", perm.Allow, "rule"),
				result("", "c1", "hi\nfile1\nfile2\n", false, false),
			},
			want: []string{"● Bash(echo hi && ls /tmp)  ✓ allowed\n  ⎿ hi (+2 lines)"},
		},
		{
			name: "a Bash call shows its sandbox profile",
			steps: []any{
				call("", "c1", "Bash", bash("ls")),
				loop.Event{Kind: loop.EventDecision, CallID: "c1", Result: perm.Result{Decision: perm.Allow, Reason: "read-only command", Sandbox: sandbox.ReadOnly}},
				result("", "c1", "a\n", false, false),
			},
			want: []string{"● Bash(ls)  ✓ allowed [read-only]\n  ⎿ a"},
		},
		{
			name: "a denial shows its reason and no output",
			steps: []any{
				call("", "c1", "Bash", bash("rm -rf /")), decision("", "c1", perm.Deny, "destructive command"),
				result("", "c1", "DENIED: destructive command", true, true),
			},
			want:    []string{"● Bash(rm -rf /)  ✗ DENIED: destructive command"},
			notWant: []string{"⎿ DENIED"},
		},
		{
			name: "a denial without a decision event takes the reason from the output",
			steps: []any{
				call("", "c1", "Write", map[string]any{"file_path": "x"}),
				result("", "c1", "DENIED: outside the workspace", true, true),
			},
			want: []string{"● Write(x)  ✗ DENIED: outside the workspace"},
		},
		{
			name: "an error result",
			steps: []any{
				call("", "c1", "Read", map[string]any{"file_path": "nope.txt"}), decision("", "c1", perm.Allow, ""),
				result("", "c1", "ERROR: open nope.txt: no such file", true, false),
			},
			want: []string{"● Read(nope.txt)  ✓ allowed\n  ⎿ ERROR: open nope.txt: no such file"},
		},
		{
			name: "empty output",
			steps: []any{
				call("", "c1", "Bash", bash("true")), decision("", "c1", perm.Allow, ""), result("", "c1", "", false, false),
			},
			want: []string{"⎿ (no output)"},
		},
		{
			name: "subagent calls are indented under their Agent call, even with the same call IDs",
			steps: []any{
				call("", "c1", "Agent", map[string]any{"subagent_type": "Explore", "prompt": "look"}),
				decision("", "c1", perm.Allow, ""),
				call("c1", "c1", "Read", map[string]any{"file_path": "go.mod"}),
				decision("c1", "c1", perm.Allow, ""),
				result("c1", "c1", "module x", false, false),
				call("c1", "c2", "Bash", bash("git push")),
				decision("c1", "c2", perm.Deny, "subagents cannot ask"),
				result("c1", "c2", "DENIED: subagents cannot ask", true, true),
				result("", "c1", "The module is x.", false, false),
			},
			want: []string{
				"● Agent(Explore)  ✓ allowed\n" +
					"    ● Read(go.mod)  ✓ allowed\n" +
					"      ⎿ module x\n" +
					"    ● Bash(git push)  ✗ DENIED: subagents cannot ask\n" +
					"  ⎿ The module is x.",
			},
		},
		{
			name: "parallel Agent calls each keep their children",
			steps: []any{
				call("", "a1", "Agent", map[string]any{"subagent_type": "one"}),
				call("", "a2", "Agent", map[string]any{"subagent_type": "two"}),
				call("a2", "c1", "Glob", map[string]any{"pattern": "**/*.go"}),
				call("a1", "c1", "Grep", map[string]any{"pattern": "TODO"}),
				result("a1", "c1", "x.go", false, false),
				result("a2", "c1", "y.go", false, false),
				decision("", "a1", perm.Allow, ""), decision("", "a2", perm.Allow, ""),
				result("", "a1", "one done", false, false), result("", "a2", "two done", false, false),
			},
			want: []string{
				"● Agent(one)  ✓ allowed\n    ● Grep(TODO)\n      ⎿ x.go\n  ⎿ one done",
				"● Agent(two)  ✓ allowed\n    ● Glob(**/*.go)\n      ⎿ y.go\n  ⎿ two done",
			},
		},
		{
			name: "streamed text is shown once, not again from the events",
			steps: []any{
				"Let me ", "look.", loop.Event{Kind: loop.EventText, Text: "Let me look."},
				call("", "c1", "Bash", bash("ls")), decision("", "c1", perm.Allow, ""), result("", "c1", "a", false, false),
				"All ", "done.", loop.Event{Kind: loop.EventFinal, Text: "All done."},
			},
			want:    []string{"Let me look.\n● Bash(ls)  ✓ allowed\n  ⎿ a\nAll done."},
			notWant: []string{"Let me look.\nLet me look.", "All done.\nAll done."},
		},
		{
			name:  "text and the final answer without streaming come from the events",
			steps: []any{loop.Event{Kind: loop.EventText, Text: "Thinking."}, loop.Event{Kind: loop.EventFinal, Text: "RESULT: Bash(ls) -> ALLOWED"}},
			want:  []string{"Thinking.\nRESULT: Bash(ls) -> ALLOWED"},
		},
		{
			name: "a subagent's text is not shown as the main answer",
			steps: []any{
				call("", "c1", "Agent", map[string]any{"subagent_type": "x"}),
				loop.Event{Kind: loop.EventFinal, Parent: "c1", Text: "sub answer"},
				result("", "c1", "agent output", false, false),
			},
			notWant: []string{"sub answer"},
		},
		{
			name:  "an engine error is shown and the UI goes on",
			steps: []any{call("", "c1", "Bash", bash("ls")), errors.New("loop: turn 1: model: 500 Internal Server Error")},
			want:  []string{"Error: loop: turn 1: model: 500 Internal Server Error"},
		},
		{
			name:  "a multi-line command stays on one line",
			steps: []any{call("", "c1", "Bash", bash("echo a\necho b")), result("", "c1", "a", false, false)},
			want:  []string{"● Bash(echo a ⏎ echo b)"},
		},
		{
			name:  "arguments that are not JSON are shown raw",
			steps: []any{loop.Event{Kind: loop.EventToolCall, CallID: "c1", Tool: "Bash", Text: "{oops"}, result("", "c1", "ERROR: not JSON", true, false)},
			want:  []string{"● Bash({oops)\n  ⎿ ERROR: not JSON"},
		},
		{
			name:  "an unknown tool's input is shown as JSON",
			steps: []any{call("", "c1", "mcp__x__y", map[string]any{"b": 1, "a": "z"}), result("", "c1", "ok", false, false)},
			want:  []string{`● mcp__x__y({"a":"z","b":1})`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			eng := newFakeEngine()
			eng.submit = script(tt.steps...)
			h := newHarness(t, eng)
			h.submit("go")
			h.waitIdle()
			screen := h.screen()
			for _, s := range tt.want {
				if !strings.Contains(screen, s) {
					t.Errorf("screen lacks\n%s\n--- screen:\n%s", s, screen)
				}
			}
			for _, s := range tt.notWant {
				if strings.Contains(screen, s) {
					t.Errorf("screen has %q:\n%s", s, screen)
				}
			}
			// Everything of a finished turn has been printed.
			if len(h.m.live) != 0 {
				t.Errorf("%d entries left unprinted after the turn", len(h.m.live))
			}
			// The UI takes another prompt.
			eng.submit = nil
			h.submit("again")
			h.waitIdle()
			if got := eng.recorded(); len(got) != 2 {
				t.Errorf("engine calls %q, want two turns", got)
			}
		})
	}
}

func TestCompleteCallsArePrintedDuringTheTurn(t *testing.T) {
	eng := newFakeEngine()
	release := make(chan struct{})
	ended := make(chan error, 1)
	eng.submit = func(ctx context.Context, p string, onEvent func(loop.Event), onText func(string)) (loop.Outcome, error) {
		onEvent(call("", "c1", "Bash", map[string]any{"command": "echo 1"}))
		onEvent(result("", "c1", "1", false, false))
		onEvent(call("", "c2", "Bash", map[string]any{"command": "sleep 5"}))
		return blockingSubmit(release, ended)(ctx, p, func(loop.Event) {}, onText)
	}
	h := newHarness(t, eng)
	h.submit("go")
	h.pump("the second call", func() bool { return strings.Contains(h.m.View(), "sleep 5") })
	printed := strings.Join(h.printed, "\n")
	if !strings.Contains(printed, "Bash(echo 1)") || strings.Contains(printed, "sleep 5") {
		t.Fatalf("want the finished call printed and the running one live; printed:\n%s", printed)
	}
	if v := h.m.View(); strings.Contains(v, "echo 1") || !strings.Contains(v, "Bash(sleep 5)  …") {
		t.Fatalf("view:\n%s", v)
	}
	close(release)
	h.waitIdle()
}

func TestStaleEventsAreIgnored(t *testing.T) {
	h := newHarness(t, newFakeEngine())
	h.update(eventMsg{turn: 7, ev: call("", "c1", "Bash", map[string]any{"command": "ghost"})})
	h.update(textMsg{turn: 7, delta: "ghost text"})
	h.update(turnDoneMsg{turn: 7, err: errors.New("ghost error")})
	if s := h.screen(); strings.Contains(s, "ghost") {
		t.Fatalf("events of another turn are shown:\n%s", s)
	}
}

func TestNarrowTerminal(t *testing.T) {
	eng := newFakeEngine()
	long := "echo " + strings.Repeat("x", 200)
	eng.submit = script(call("", "c1", "Bash", map[string]any{"command": long}),
		decision("", "c1", perm.Deny, "a very long reason "+strings.Repeat("y", 100)),
		result("", "c1", "DENIED: long", true, true))
	h := newHarness(t, eng)
	h.update(tea.WindowSizeMsg{Width: 80, Height: 24})
	h.submit("go")
	h.waitIdle()
	for _, l := range strings.Split(h.screen(), "\n") {
		if w := lipgloss.Width(l); w > 80 {
			t.Errorf("line of width %d in an 80-column terminal: %q", w, l)
		}
	}
	if !strings.Contains(h.screen(), "✗ DENIED: a very long reason") {
		t.Errorf("the denial is not shown:\n%s", h.screen())
	}
}

// lockedBuffer is an io.Writer safe for the program's and the test's
// goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// runUI runs a UI on eng with keys written to a pipe, and returns a
// function that types, one that waits for output, and the channel Run's
// error arrives on.
func runUI(t *testing.T, ctx context.Context, eng Engine, before ...func(*UI)) (ui *UI, typ func(string), waitOut func(string), done <-chan error) {
	t.Helper()
	pr, pw := io.Pipe()
	out := &lockedBuffer{}
	ui = New(Options{In: pr, Out: out})
	ui.guard = 0 // keys are typed as soon as a dialog shows
	for _, f := range before {
		f(ui)
	}
	errc := make(chan error, 1)
	go func() { errc <- ui.Run(ctx, eng) }()
	t.Cleanup(func() { pw.Close() })
	typ = func(s string) {
		t.Helper()
		if _, err := pw.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	waitOut = func(s string) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for !strings.Contains(out.String(), s) {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %q in the output:\n%s", s, out.String())
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	return ui, typ, waitOut, errc
}

func TestRunApproveAndAsk(t *testing.T) {
	eng := newFakeEngine()
	var ui *UI
	answers := make(chan any, 2)
	eng.submit = func(ctx context.Context, p string, onEvent func(loop.Event), onText func(string)) (loop.Outcome, error) {
		a, err := ui.Approve(ctx, *bashApproval("cat /etc/hosts", "Bash(cat /etc/hosts)"))
		answers <- a
		if err != nil {
			return loop.Outcome{}, err
		}
		got, err := ui.AskQuestions(ctx, []tool.Question{{Question: "Color?", Options: []tool.Option{{Label: "red"}, {Label: "blue"}}}})
		if err != nil {
			return loop.Outcome{}, err
		}
		answers <- got
		onText("finished " + strings.Join(got, ","))
		return loop.Outcome{}, nil
	}
	ui, typ, waitOut, done := runUI(t, context.Background(), eng)
	waitOut("default mode")
	typ("go\r")
	waitOut("Permission needed")
	typ("3")
	waitOut("Always allow: these rules")
	typ("\r")
	if a := (<-answers).(gate.Reply); a.Choice != gate.Always || !slices.Equal(a.Rules, []string{"Bash(cat /etc/hosts)"}) {
		t.Fatalf("Approve = %+v, want Always with the prefilled rule", a)
	}
	waitOut("Color?")
	typ("2")
	if got := (<-answers).([]string); !slices.Equal(got, []string{"blue"}) {
		t.Fatalf("AskQuestions = %q", got)
	}
	waitOut("finished blue")
	typ("/exit\r")
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run = %v, want nil after /exit", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("Run did not end after /exit")
	}
	// Once Run has ended, nobody can be asked: the answer is No.
	a, err := ui.Approve(context.Background(), *bashApproval("ls"))
	if !errors.Is(err, ErrClosed) || a.Choice != gate.No {
		t.Fatalf("Approve after Run = %+v, %v; want No, ErrClosed", a, err)
	}
	if _, err := ui.AskQuestions(context.Background(), []tool.Question{{Question: "x?"}}); !errors.Is(err, ErrClosed) {
		t.Fatalf("AskQuestions after Run = %v, want ErrClosed", err)
	}
}

func TestRunApprovalWithdrawnWhenContextEnds(t *testing.T) {
	eng := newFakeEngine()
	var ui *UI
	type result struct {
		a   gate.Reply
		err error
	}
	got := make(chan result, 1)
	// The approval's context ends once the dialog is up (the test ends
	// it, not a timer a loaded machine could beat the dialog to).
	actx, cancel := context.WithCancel(context.Background())
	defer cancel()
	eng.submit = func(ctx context.Context, p string, onEvent func(loop.Event), onText func(string)) (loop.Outcome, error) {
		a, err := ui.Approve(actx, *bashApproval("cat /etc/hosts"))
		got <- result{a, err}
		return loop.Outcome{}, nil
	}
	ui, typ, waitOut, done := runUI(t, context.Background(), eng)
	waitOut("default mode")
	typ("go\r")
	waitOut("Permission needed")
	cancel()
	r := <-got
	if !errors.Is(r.err, context.Canceled) || r.a.Choice != gate.No {
		t.Fatalf("Approve = %+v, %v; want No and the context's error", r.a, r.err)
	}
	waitOut("The approval for Bash was withdrawn.")
	// A late key press does not answer anything or reach the prompt as a
	// digit meant for the dialog.
	typ("\x03\x03") // Ctrl+C twice
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run = %v", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("Run did not end after Ctrl+C twice")
	}
}

func TestRunEndsWithContext(t *testing.T) {
	eng := newFakeEngine()
	ended := make(chan error, 1)
	eng.submit = blockingSubmit(nil, ended)
	ctx, cancel := context.WithCancel(context.Background())
	_, typ, waitOut, done := runUI(t, ctx, eng)
	waitOut("default mode")
	typ("go\r")
	waitOut("sleep 100")
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Run = %v, want context.Canceled", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("Run did not end with its context")
	}
	select {
	case err := <-ended:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("the turn ended with %v", err)
		}
	default:
		t.Fatal("Run returned while the turn was still running")
	}
}

func TestApproveWithoutRun(t *testing.T) {
	ui := New(Options{In: strings.NewReader(""), Out: io.Discard})
	a, err := ui.Approve(context.Background(), *bashApproval("ls"))
	if !errors.Is(err, ErrClosed) || a.Choice != gate.No {
		t.Fatalf("Approve = %+v, %v; want No, ErrClosed", a, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ui.Approve(ctx, *bashApproval("ls")); !errors.Is(err, context.Canceled) {
		t.Fatalf("Approve with a done context = %v", err)
	}
	if _, err := ui.AskQuestions(context.Background(), nil); err == nil {
		t.Fatal("AskQuestions with no questions succeeded")
	}
	if err := ui.Run(context.Background(), nil); err == nil {
		t.Fatal("Run without an Engine succeeded")
	}
}

func TestSanitize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text", "plain text"},
		{"two\nlines", "two\nlines"},
		{"tab\there", "tab    here"},
		{"esc\x1b[31mred", `esc\u{1b}[31mred`},
		{"bell\a", `bell\u{7}`},
		{"cr\rover", `cr\u{d}over`},
		{"c1\u009bx", `c1\u{9b}x`},
		{"zero\u200bwidth", `zero\u{200b}width`},
		{"rtl\u202eoverride", `rtl\u{202e}override`},
		{"bom\ufeff", `bom\u{feff}`},
		{"bad\xffutf8", `bad\u{fffd}utf8`},
		{"ünïcödé ✓", "ünïcödé ✓"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := sanitize(tt.in); got != tt.want {
				t.Errorf("sanitize(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// BenchmarkViewLargeTurn measures one frame of a turn whose Agent call has
// run many subagent calls: View runs for every frame while the turn lasts.
func BenchmarkViewLargeTurn(b *testing.B) {
	m := newModel(context.Background(), newFakeEngine(), newStyles(lipgloss.NewRenderer(io.Discard)))
	m.width = 120
	m.running, m.turn = true, 1
	m.event(call("", "a1", "Agent", map[string]any{"subagent_type": "Explore"}))
	for i := range 200 {
		id := "c" + strings.Repeat("x", i%7) + string(rune('a'+i%26))
		m.event(call("a1", id, "Bash", map[string]any{"command": "grep -rn TODO ./pkg/" + id}))
		m.event(decision("a1", id, perm.Allow, ""))
		m.event(result("a1", id, "pkg/x.go:1: TODO\npkg/y.go:2: TODO", false, false))
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = m.View()
	}
}

// TestApprovalSandbox: the dialog says under which sandbox profile an
// approved Bash call runs, and warns when it runs without one.
func TestApprovalSandbox(t *testing.T) {
	for _, tc := range []struct {
		profile sandbox.Profile
		want    string
	}{
		{sandbox.WorkspaceWrite, "Sandbox: workspace-write"},
		{sandbox.None, "Sandbox: none: the command runs without the kernel sandbox"},
	} {
		a := bashApproval("make")
		a.Result.Sandbox = tc.profile
		a.Result.Reason = "dangerouslyDisableSandbox: the command would run without the kernel sandbox"
		h := newHarness(t, newFakeEngine())
		h.open(&request{id: 1, approval: a})
		if v := h.m.View(); !strings.Contains(v, tc.want) {
			t.Errorf("view lacks %q:\n%s", tc.want, v)
		}
	}
}

// Warnings reach the transcript: those given before Run (the session's
// start) when it starts, and those given while it runs, from a turn or
// between turns, in order.
func TestRunShowsWarnings(t *testing.T) {
	eng := newFakeEngine()
	var ui *UI
	eng.submit = func(ctx context.Context, p string, onEvent func(loop.Event), onText func(string)) (loop.Outcome, error) {
		ui.Warn("hook PreToolUse: timed out")
		onText("turn done")
		return loop.Outcome{}, nil
	}
	ui, typ, waitOut, done := runUI(t, context.Background(), eng, func(u *UI) {
		u.Warn("settings.local.json:1: ignoring project allow rules")
		u.Warn("agent x.md: unknown key")
	})
	waitOut("warning: agent x.md: unknown key")
	typ("go\r")
	waitOut("turn done")
	waitOut("warning: hook PreToolUse: timed out")
	ui.Warn("settings changed")
	waitOut("warning: settings changed")
	typ("/exit\r")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	out := ui.out.(*lockedBuffer).String()
	if i, j := strings.Index(out, "ignoring project allow rules"), strings.Index(out, "unknown key"); i < 0 || j < i {
		t.Errorf("the start's warnings are not shown in order:\n%s", out)
	}
}

// A warning given as the UI ends (a turn interrupted at exit that warns
// as it stops) is printed below it, not lost.
func TestRunPrintsWarningsAtExit(t *testing.T) {
	eng := newFakeEngine()
	var ui *UI
	started := make(chan struct{})
	eng.submit = func(ctx context.Context, p string, onEvent func(loop.Event), onText func(string)) (loop.Outcome, error) {
		close(started)
		<-ctx.Done()
		// Warn once the program has ended, as Run waits for the turn.
		for {
			ui.mu.Lock()
			ended := ui.prog == nil
			ui.mu.Unlock()
			if ended {
				break
			}
			time.Sleep(time.Millisecond)
		}
		ui.Warn("the transcript could not be saved")
		return loop.Outcome{}, ctx.Err()
	}
	ui, typ, _, done := runUI(t, context.Background(), eng)
	typ("go\r")
	<-started
	typ("\x03\x03") // Ctrl+C twice: interrupt, then exit
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if out := ui.out.(*lockedBuffer).String(); !strings.Contains(out, "warning: the transcript could not be saved") {
		t.Errorf("the warning given at exit is not shown:\n%s", out)
	}
}

// Lines the printer hands a program that ends before its event loop
// receives them are written by flush, in order; lines the event loop
// received (through the filter) are the renderer's and are not written
// twice.
func TestPrinterKeepsUndeliveredLines(t *testing.T) {
	run := func(p *printer, send func(tea.Msg)) (stop func()) {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); p.run(ctx, send) }()
		return func() { cancel(); <-done }
	}
	// Never received: the program ended.
	p := newPrinter()
	handed := make(chan struct{}, 4)
	stop := run(p, func(tea.Msg) { handed <- struct{}{} })
	p.add("one")
	<-handed
	p.add("two\nthree")
	<-handed
	stop()
	p.add("four")
	var b bytes.Buffer
	p.flush(&b)
	if got, want := b.String(), "one\ntwo\nthree\nfour\n"; got != want {
		t.Errorf("flush wrote %q, want %q", got, want)
	}

	// Received: the filter turns the message into a print of the lines.
	p = newPrinter()
	got := make(chan tea.Msg, 4)
	stop = run(p, func(m tea.Msg) { got <- p.filter(nil, m) })
	p.add("five")
	if m := <-got; m == nil {
		t.Error("the filter dropped the lines it was sent")
	} else if _, still := m.(printMsg); still {
		t.Error("the filter passed printMsg on instead of printing")
	}
	stop()
	b.Reset()
	p.flush(&b)
	if b.Len() != 0 {
		t.Errorf("flush wrote received lines again: %q", b.String())
	}
	if m := p.filter(nil, tea.KeyMsg{}); m == nil {
		t.Error("the filter dropped another message")
	}
}

// endingEngine is a fakeEngine whose session ends with the UI (ender),
// warning as a SessionEnd hook's message would.
type endingEngine struct {
	*fakeEngine
	warn  func(string)
	ended chan string
}

func (e *endingEngine) End(_ context.Context, reason string) {
	e.warn("SessionEnd hook: saved the notes")
	e.ended <- reason
}

// When the person leaves the prompt the session ends, told so, and what
// its end says is printed below the transcript.
func TestRunEndsSession(t *testing.T) {
	eng := &endingEngine{fakeEngine: newFakeEngine(), ended: make(chan string, 1)}
	ui, typ, waitOut, done := runUI(t, context.Background(), eng)
	eng.warn = ui.Warn
	waitOut("default mode")
	typ("/exit\r")
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run = %v", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("Run did not end after /exit")
	}
	select {
	case r := <-eng.ended:
		if r != "prompt_input_exit" {
			t.Errorf("End(%q), want prompt_input_exit", r)
		}
	default:
		t.Fatal("Run ended without ending the session")
	}
	waitOut("warning: SessionEnd hook: saved the notes")
}

// notifyingEngine is a fakeEngine that is told when the person is awaited
// (notifier).
type notifyingEngine struct {
	*fakeEngine
	told chan string
}

func (e *notifyingEngine) Notify(_ context.Context, message, typ string) {
	e.told <- typ + ": " + message
}

// Once a turn has ended and the prompt has waited idle, the engine is
// told, once (Claude Code's idle_prompt notification).
func TestIdlePromptNotifies(t *testing.T) {
	eng := &notifyingEngine{fakeEngine: newFakeEngine(), told: make(chan string, 4)}
	_, typ, waitOut, done := runUI(t, context.Background(), eng, func(u *UI) { u.idle = time.Millisecond })
	waitOut("default mode")
	select {
	case got := <-eng.told:
		t.Fatalf("told %q before any turn", got)
	default:
	}
	typ("go\r")
	waitOut("done")
	select {
	case got := <-eng.told:
		if got != "idle_prompt: gen is waiting for your input" {
			t.Errorf("told %q", got)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("not told that the prompt waits")
	}
	typ("/exit\r")
	<-done
	if n := len(eng.told); n != 0 {
		t.Errorf("told %d more times", n)
	}
}

// An ExitPlanMode approval shows the plan as written (a Markdown list is
// not a diff) and asks to approve it: 1 leaves plan mode for default, 2
// for acceptEdits; Always is not offered.
func TestPlanApproval(t *testing.T) {
	plan := "- read the tests\n- fix the parser\n+ nothing else"
	a := &gate.Approval{
		Request:    perm.Request{Tool: "ExitPlanMode", Input: map[string]any{"plan": plan}},
		Result:     perm.Result{Decision: perm.Ask, Reason: "the plan needs the person's approval"},
		Plan:       plan,
		NoRule:     "the plan is approved each time",
		CanPersist: true,
	}
	h := newHarness(t, newFakeEngine())
	h.m.sty = colourStyles()
	r := &request{id: 1, approval: a}
	h.open(r)
	v := h.m.View()
	for _, s := range []string{"Do you approve this plan?", "- fix the parser", "1. Yes, and ask before each edit (default mode)", "2. Yes, and make the edits without asking (acceptEdits mode)", "4. No, keep planning", "PgUp/PgDn scroll the plan"} {
		if !strings.Contains(v, s) {
			t.Errorf("view lacks %q:\n%s", s, v)
		}
	}
	if strings.Contains(v, "\x1b[31m- fix") || strings.Contains(v, "\x1b[32m+ nothing") {
		t.Errorf("the plan is coloured as a diff:\n%q", v)
	}
	h.keys("3")
	if _, ok := replied(r); ok {
		t.Fatal("Always was chosen for a plan")
	}
	h.keys("2")
	if rep, ok := replied(r); !ok || rep.answer.Choice != gate.YesSession {
		t.Errorf("2 answered %+v, %v; want YesSession (acceptEdits)", rep, ok)
	}
}

// A plan's allowedPrompts (Claude Code's) are shown with it, one line
// each, whatever they hold, and the dialog says that approving the plan
// allows none of them.
func TestPlanApprovalPrompts(t *testing.T) {
	a := &gate.Approval{
		Request: perm.Request{Tool: "ExitPlanMode"},
		Result:  perm.Result{Decision: perm.Ask, Reason: "the plan needs the person's approval"},
		Plan:    "1. fix the parser",
		PlanPrompts: []gate.PlanPrompt{
			{Tool: "Bash", Prompt: "run tests"},
			{Tool: "Bash", Prompt: "install\n1. Yes, and make the edits"},
		},
		NoRule:     "the plan is approved each time",
		CanPersist: true,
	}
	h := newHarness(t, newFakeEngine())
	h.open(&request{id: 1, approval: a})
	v := h.m.View()
	for _, s := range []string{"1. fix the parser", "• Bash: run tests", "• Bash: install ⏎ 1. Yes, and make the edits", "The plan lists 2 kind(s) of command it expects to run"} {
		if !strings.Contains(v, s) {
			t.Errorf("view lacks %q:\n%s", s, v)
		}
	}
	if n := strings.Count(v, "allows none"); n != 1 {
		t.Errorf("the view says %d times that approving the plan allows none of them, want once:\n%s", n, v)
	}
}

// An EnterPlanMode approval asks about the switch: 1 switches to plan
// mode, 4 stays in the mode; neither "all this session" nor Always is
// offered, as the mode is the person's each time.
func TestEnterPlanApproval(t *testing.T) {
	a := &gate.Approval{
		Request:    perm.Request{Tool: "EnterPlanMode", Input: map[string]any{}},
		Result:     perm.Result{Decision: perm.Ask, Reason: "switching to plan mode needs the person's approval"},
		Class:      "EnterPlanMode",
		EnterPlan:  true,
		NoRule:     "the mode is switched each time",
		CanPersist: true,
	}
	h := newHarness(t, newFakeEngine())
	r := &request{id: 1, approval: a}
	h.open(r)
	v := h.m.View()
	for _, s := range []string{"Switch to plan mode?", "The model proposes plan mode", "1. Yes, switch to plan mode", "4. No, stay in default mode", "(the mode is switched each time)"} {
		if !strings.Contains(v, s) {
			t.Errorf("view lacks %q:\n%s", s, v)
		}
	}
	for _, k := range []string{"2", "3"} {
		h.keys(k)
		if rep, ok := replied(r); ok {
			t.Fatalf("%s answered %+v for a switch to plan mode", k, rep)
		}
	}
	h.keys("down")
	if c := h.m.dlg.cursor; choices[c] != gate.No {
		t.Errorf("down moved to %s, want past the options not offered to No", choices[c])
	}
	h.keys("1")
	if rep, ok := replied(r); !ok || rep.answer.Choice != gate.Yes {
		t.Errorf("1 answered %+v, %v; want Yes", rep, ok)
	}
}

// The status line follows a mode the session changes during a turn (an
// approved plan leaves plan mode), not only the person's Shift+Tab.
func TestStatusFollowsModeDuringTurn(t *testing.T) {
	eng := newFakeEngine()
	eng.mode = perm.ModePlan
	release := make(chan struct{})
	eng.submit = func(ctx context.Context, _ string, onEvent func(loop.Event), _ func(string)) (loop.Outcome, error) {
		eng.mu.Lock()
		eng.mode = perm.ModeAcceptEdits
		eng.mu.Unlock()
		onEvent(loop.Event{Kind: loop.EventToolCall, CallID: "c1", Tool: "ExitPlanMode", Input: map[string]any{"plan": "p"}})
		select {
		case <-ctx.Done():
			return loop.Outcome{}, ctx.Err()
		case <-release:
			return loop.Outcome{}, nil
		}
	}
	h := newHarness(t, eng)
	if !strings.Contains(h.m.View(), "plan mode") {
		t.Fatalf("status line before the turn:\n%s", h.m.View())
	}
	h.submit("plan it")
	h.pump("the call to show", func() bool { return strings.Contains(h.m.View(), "ExitPlanMode") })
	if v := h.m.View(); !strings.Contains(v, "acceptEdits mode") {
		t.Errorf("status line during the turn, after the session left plan mode:\n%s", v)
	}
	close(release)
	h.waitIdle()
}

// startingEngine is a fakeEngine whose session starts when the UI opens
// (starter).
type startingEngine struct {
	*fakeEngine
	started chan struct{}
}

func (e *startingEngine) Start(context.Context) { close(e.started) }

// The session starts as the UI opens, before any prompt, as Claude Code
// runs SessionStart hooks at startup.
func TestRunStartsSession(t *testing.T) {
	eng := &startingEngine{fakeEngine: newFakeEngine(), started: make(chan struct{})}
	_, typ, waitOut, done := runUI(t, context.Background(), eng)
	waitOut("default mode")
	select {
	case <-eng.started:
	case <-time.After(30 * time.Second):
		t.Fatal("the session was not started as the UI opened")
	}
	if calls := eng.recorded(); len(calls) != 0 {
		t.Errorf("the engine was asked %q before any prompt", calls)
	}
	typ("/exit\r")
	<-done
}
