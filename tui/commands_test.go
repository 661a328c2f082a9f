package tui

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/gen-run/gen/gate"
	"github.com/gen-run/gen/internal/testtree"
	"github.com/gen-run/gen/loop"
	"github.com/gen-run/gen/skill"
)

// commandsHarness is a harness whose UI has the custom commands of files,
// a project's .claude/commands.
func commandsHarness(t *testing.T, files map[string]string) (*harness, *fakeEngine, string) {
	t.Helper()
	cmds, dir := projectCommands(t, files)
	eng := newFakeEngine()
	h := newHarness(t, eng)
	h.m.cmds = cmds
	// Wide enough that no file name is wrapped.
	h.update(tea.WindowSizeMsg{Width: 1000, Height: 40})
	return h, eng, dir
}

// projectCommands loads files as a project's .claude/commands, and
// returns them and their directory.
func projectCommands(t *testing.T, files map[string]string) (*skill.Commands, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), ".claude", "commands")
	testtree.Write(t, dir, files)
	cmds, _ := skill.LoadCommands(Builtins(), skill.Location{Dir: dir, Scope: skill.ScopeProject})
	return cmds, dir
}

func TestCustomCommands(t *testing.T) {
	files := map[string]string{
		"fix-issue.md": "---\ndescription: Fix a GitHub issue\nargument-hint: <number> [priority]\nmodel: opus\n---\nFix issue #$1 at priority $2.\n",
		"git/log.md":   "Summarise the log.\n",
		"tools.md":     "A custom /tools must not hide the built-in one.\n",
		"status.md":    "State:\n!`git status`\n",
		"broken.md":    "---\ndescription: x\n  model: y\n---\nbody\n",
	}

	t.Run("expands and sends, showing what was typed", func(t *testing.T) {
		h, eng, dir := commandsHarness(t, files)
		h.submit(`/fix-issue 42 "very high"`)
		h.waitIdle()
		if got, want := eng.recorded(), []string{"Submit(Fix issue #42 at priority very high.)"}; !slices.Equal(got, want) {
			t.Errorf("engine calls %q, want %q", got, want)
		}
		screen := h.screen()
		if !strings.Contains(screen, `> /fix-issue 42 "very high"`) || strings.Contains(screen, "> Fix issue") {
			t.Errorf("the typed line is not what the transcript shows:\n%s", screen)
		}
		if want := filepath.Join(dir, "fix-issue.md") + `:4: model "opus" is ignored`; !strings.Contains(screen, want) {
			t.Errorf("screen lacks the warning %q:\n%s", want, screen)
		}
	})

	t.Run("namespaced, arguments appended", func(t *testing.T) {
		h, eng, _ := commandsHarness(t, files)
		h.submit("/git:log last week")
		h.waitIdle()
		if got, want := eng.recorded(), []string{"Submit(Summarise the log.\n\nARGUMENTS: last week)"}; !slices.Equal(got, want) {
			t.Errorf("engine calls %q, want %q", got, want)
		}
	})

	t.Run("queued while a turn runs", func(t *testing.T) {
		h, eng, _ := commandsHarness(t, files)
		release := make(chan struct{})
		first := true
		eng.submit = func(ctx context.Context, prompt string, onEvent func(loop.Event), onText func(string)) (loop.Outcome, error) {
			if first {
				first = false
				<-release
			}
			return loop.Outcome{Final: "ok"}, nil
		}
		h.submit("hello")
		h.pump("the turn to start", func() bool { return len(eng.recorded()) == 1 })
		h.submit("/git:log")
		close(release)
		h.pump("the queued command to run", func() bool { return len(eng.recorded()) == 2 && !h.m.running })
		if got, want := eng.recorded(), []string{"Submit(hello)", "Submit(Summarise the log.)"}; !slices.Equal(got, want) {
			t.Errorf("engine calls %q, want %q", got, want)
		}
	})

	// A line is expanded once, when it is submitted: a queued command
	// sends what it expanded to then, even were the commands to change.
	t.Run("expanded once, when submitted", func(t *testing.T) {
		h, eng, _ := commandsHarness(t, files)
		release := make(chan struct{})
		eng.submit = func(ctx context.Context, prompt string, onEvent func(loop.Event), onText func(string)) (loop.Outcome, error) {
			if prompt == "hello" {
				<-release
			}
			return loop.Outcome{Final: "ok"}, nil
		}
		h.submit("hello")
		h.pump("the turn to start", func() bool { return len(eng.recorded()) == 1 })
		h.submit("/git:log")
		h.m.cmds, _ = skill.LoadCommands(Builtins(), skill.Location{Dir: filepath.Join(t.TempDir(), "none"), Scope: skill.ScopeProject})
		close(release)
		h.pump("the queued command to run", func() bool { return len(eng.recorded()) == 2 && !h.m.running })
		if got, want := eng.recorded(), []string{"Submit(hello)", "Submit(Summarise the log.)"}; !slices.Equal(got, want) {
			t.Errorf("engine calls %q, want %q", got, want)
		}
	})

	refused := []struct{ name, line, want string }{
		{"built-in wins", "/tools", "Tools the model sees (3): Bash, Read, Write"},
		{"! command with no shell", "/status", "status.md:2: its `!` commands cannot run here"},
		{"broken file", "/broken", "✗ command /broken is not offered: "},
		{"unknown", "/nope", "✗ unknown command /nope; /help lists the commands"},
		{"bad quoting", "/fix-issue don't", "✗ /fix-issue: the arguments have an unclosed ' quote"},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			h, eng, _ := commandsHarness(t, files)
			h.submit(tt.line)
			if got := eng.recorded(); len(got) != 0 {
				t.Errorf("engine calls %q, want none", got)
			}
			if screen := h.screen(); !strings.Contains(screen, tt.want) || !strings.Contains(screen, "> "+tt.line) {
				t.Errorf("screen lacks %q:\n%s", tt.want, screen)
			}
		})
	}

	t.Run("help lists them", func(t *testing.T) {
		h, _, dir := commandsHarness(t, files)
		h.submit("/help")
		screen := h.screen()
		for _, want := range []string{
			"/fix-issue <number> [priority]",
			"Fix a GitHub issue (project)",
			"/git:log",
			"/status",
			"✗ " + filepath.Join(dir, "broken.md") + ":3: ",
			"warning: " + filepath.Join(dir, "tools.md") + ": command /tools is not offered: /tools is built in",
		} {
			if !strings.Contains(screen, want) {
				t.Errorf("help lacks %q:\n%s", want, screen)
			}
		}
	})
}

// Every built-in name is one the dispatcher handles, so reserving exactly
// these keeps custom commands from shadowing any built-in.
func TestBuiltinsAreHandled(t *testing.T) {
	for _, name := range Builtins() {
		h := newHarness(t, newFakeEngine())
		h.submit("/" + name)
		if strings.Contains(h.screen(), "unknown command") {
			t.Errorf("/%s is reserved but not a built-in", name)
		}
	}
}

// /help lists every built-in command, and lists none that is not one.
func TestCommandsAreListed(t *testing.T) {
	listed := map[string]bool{}
	for _, c := range commands {
		if c.usage != "" {
			name, _ := cutWord(strings.TrimPrefix(c.usage, "/"))
			listed[name] = true
		}
	}
	for _, name := range Builtins() {
		if !listed[name] && name != "quit" {
			t.Errorf("/%s is a built-in that /help does not list", name)
		}
	}
	for name := range listed {
		if !slices.Contains(Builtins(), name) {
			t.Errorf("/help lists /%s, which is not a built-in", name)
		}
	}
}

// shellEngine is a fakeEngine that runs a command's ! commands (sheller):
// "git status" prints, anything else is refused as the gate would.
type shellEngine struct {
	*fakeEngine
}

func (e shellEngine) Shell(_ context.Context, command string) (string, error) {
	e.record("Shell(%s)", command)
	if command == "git status" {
		return "On branch main", nil
	}
	return "", errors.New("permission denied: DENIED: not read-only")
}

// A custom command's ! commands run as the turn starts, through the
// engine (the permission gate's Bash calls): their output is in the
// prompt; a refused one ends the turn with its error, and nothing is
// sent.
func TestCustomCommandShell(t *testing.T) {
	cmds, _ := projectCommands(t, map[string]string{
		"status.md": "State of $1:\n!`git status`\n",
		"push.md":   "Pushed:\n!`git push`\n",
	})
	eng := shellEngine{newFakeEngine()}
	h := newHarness(t, eng.fakeEngine)
	h.m.eng, h.m.cmds = eng, cmds
	h.update(tea.WindowSizeMsg{Width: 1000, Height: 40}) // no message is wrapped
	// A project's ! commands are code from the repository: they need
	// its trust.
	h.submit("/status main")
	h.waitIdle()
	if got := eng.recorded(); len(got) != 0 || !strings.Contains(h.screen(), "status.md:2: the project is not trusted") {
		t.Fatalf("untrusted: engine calls %q\n%s", got, h.screen())
	}
	cmds.Trusted = true
	h.submit("/status main")
	h.waitIdle()
	if got, want := eng.recorded(), []string{"Shell(git status)", "Submit(State of main:\nOn branch main)"}; !slices.Equal(got, want) {
		t.Errorf("engine calls %q, want %q", got, want)
	}
	h.submit("/push")
	h.waitIdle()
	if got := eng.recorded(); len(got) != 3 || got[2] != "Shell(git push)" {
		t.Errorf("engine calls %q: want git push tried and nothing sent", got)
	}
	if screen := h.screen(); !strings.Contains(screen, "push.md:2: !`git push`: permission") || !strings.Contains(screen, "(/push is not sent)") {
		t.Errorf("screen lacks the refusal:\n%s", screen)
	}
}

// askingShell is an Engine whose ! commands the gate asks the person
// about, as session.Session.Shell does for a call no rule covers: each
// opens the approval dialog from the turn's goroutine.
type askingShell struct {
	*fakeEngine
	ui *UI
}

func (e *askingShell) Shell(ctx context.Context, command string) (string, error) {
	e.record("Shell(%s)", command)
	a, err := e.ui.Approve(ctx, *bashApproval(command))
	if err != nil {
		return "", err
	}
	if a.Choice == gate.No {
		return "", errors.New("DENIED: denied by the user")
	}
	return "pushed", nil
}

// In the real UI a ! command's Ask opens the approval dialog while the
// turn expands the command, and the answer decides it: No stops the
// command, nothing sent; Yes puts its output in the prompt. Neither
// leaves the UI waiting on itself.
func TestCustomCommandShellAsks(t *testing.T) {
	cmds, _ := projectCommands(t, map[string]string{
		"push.md":   "Pushed:\n!`git push`\n",
		"deploy.md": "Deployed:\n!`make deploy`\n",
	})
	cmds.Trusted = true
	eng := &askingShell{fakeEngine: newFakeEngine()}
	sent := make(chan string, 1)
	eng.submit = func(_ context.Context, p string, _ func(loop.Event), onText func(string)) (loop.Outcome, error) {
		sent <- p
		onText("answered")
		return loop.Outcome{}, nil
	}
	ui, typ, waitOut, done := runUI(t, context.Background(), eng, func(u *UI) { u.cmds = cmds })
	eng.ui = ui
	waitOut("default mode")
	typ("/push\r")
	waitOut("Permission needed")
	typ("4")
	waitOut("(/push is not sent)")
	if got := eng.recorded(); !slices.Equal(got, []string{"Shell(git push)"}) {
		t.Fatalf("engine calls %q: want git push asked about and nothing sent", got)
	}
	// The transcript keeps the first dialog: the second is known by its
	// command.
	typ("/deploy\r")
	waitOut("make deploy")
	typ("1")
	if p := <-sent; p != "Deployed:\npushed" {
		t.Errorf("sent %q, want the command's output in the prompt", p)
	}
	waitOut("answered")
	typ("/exit\r")
	if err := <-done; err != nil {
		t.Fatalf("Run = %v, want nil after /exit", err)
	}
}
