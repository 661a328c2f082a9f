package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/spinner"
	"github.com/charmbracelet/bubbles/textarea"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/sashabaranov/go-openai"

	"github.com/gen-run/gen/loop"
	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/skill"
)

// exitWindow is how soon a second Ctrl+C must follow the first to exit
// while no turn runs.
const exitWindow = 2 * time.Second

// defaultWidth is assumed until the terminal reports its size.
const defaultWidth = 80

// dialogGuard is how long a dialog ignores keys after it opens, and after
// each key it ignored: keys typed for the prompt as a dialog appears must
// not answer it. Only a pause this long, with the dialog on the screen,
// lets keys through.
const dialogGuard = 500 * time.Millisecond

// typeAheadWindow is how recently a key must have been pressed, when a
// dialog opens, for the person to count as typing: Enter then cannot pick
// the highlighted option until they chose one with the arrows or a digit.
const typeAheadWindow = time.Second

// Messages from other goroutines to the model.
type (
	// eventMsg and textMsg carry what a turn reports; turn tells stale
	// ones (of an interrupted turn) apart.
	eventMsg struct {
		turn int
		ev   loop.Event
	}
	textMsg struct {
		turn  int
		delta string
	}
	turnDoneMsg struct {
		turn int
		out  loop.Outcome
		err  error
	}
	// requestMsg opens a dialog; withdrawMsg closes it when its caller
	// stopped waiting.
	requestMsg  struct{ r *request }
	withdrawMsg struct{ id uint64 }
	// hintDoneMsg clears the Ctrl+C hint it was scheduled for.
	hintDoneMsg struct{ at time.Time }
	// guardDoneMsg redraws a dialog once its guard may have passed.
	guardDoneMsg struct{}
	// idleMsg says the prompt has waited idle long after the turn that
	// scheduled it; seq tells whether anything happened since.
	idleMsg struct{ seq int }
)

// model is the Bubble Tea model. It is only touched by the program's
// goroutine (and by Run once the program has ended).
type model struct {
	ctx   context.Context // parent of every turn's context
	eng   Engine
	cmds  *skill.Commands // the custom slash commands; nil for none
	sty   styles
	send  func(tea.Msg) // delivers a message from another goroutine
	print func(string)  // prints finished lines above the UI, in order
	// warnings returns the warnings to show (UI.takeWarnings); nil
	// when there are none to take.
	warnings func() []string
	now      func() time.Time
	guard    time.Duration // dialogGuard
	idle     time.Duration // idleNotice; 0 for none
	// idleSeq counts what ends the prompt's idle wait (a key, a turn):
	// an idleMsg of an earlier count is stale.
	idleSeq int

	width  int
	height int
	input  textarea.Model
	spin   spinner.Model
	mode   perm.Mode
	name   string // the model's name

	// The running turn.
	turn        int
	running     bool
	interrupted bool
	cancel      context.CancelFunc
	turnDone    chan struct{} // closed when the turn's Submit returned
	live        []*entry      // the turn's entries not yet printed
	calls       map[string]*entry
	streamed    bool // text deltas arrived since the last event
	// queue holds the lines submitted while the turn runs, in order.
	queue []typed

	// requests are the open dialogs, oldest first; only the first is
	// shown, and dlg is its state.
	requests []*request
	dlg      dialog

	hint      string
	lastCtrlC time.Time
	lastKey   time.Time // of the last key press, for type-ahead
	quitting  bool
}

func newModel(ctx context.Context, e Engine, sty styles) *model {
	m := &model{
		ctx:   ctx,
		eng:   e,
		sty:   sty,
		send:  func(tea.Msg) {},
		print: func(string) {},
		now:   time.Now,
		guard: dialogGuard,
		width: defaultWidth,
		calls: map[string]*entry{},
	}
	m.input = newTextarea(sty, "Type a prompt and press Enter · /help for commands")
	m.spin = spinner.New(spinner.WithSpinner(spinner.MiniDot), spinner.WithStyle(sty.title))
	m.mode = e.Mode()
	m.name = e.ModelName()
	m.resetDialog()
	m.resize()
	return m
}

// newTextarea returns a focused text area where Enter is left to the
// caller (it submits) and Alt+Enter or Ctrl+J insert a new line.
func newTextarea(sty styles, placeholder string) textarea.Model {
	t := textarea.New()
	t.ShowLineNumbers = false
	t.Placeholder = placeholder
	t.SetPromptFunc(2, func(line int) string {
		if line == 0 {
			return "> "
		}
		return "  "
	})
	t.KeyMap.InsertNewline = key.NewBinding(key.WithKeys("alt+enter", "ctrl+j"))
	// The default styles use adaptive colours, which make lipgloss query
	// the terminal's background: a read from the terminal we must not
	// race with.
	plain := lipgloss.NewStyle()
	st := textarea.Style{
		Base: plain, CursorLine: plain, CursorLineNumber: plain, EndOfBuffer: plain,
		LineNumber: plain, Placeholder: sty.dim, Prompt: sty.user, Text: plain,
	}
	t.FocusedStyle, t.BlurredStyle = st, st
	t.Cursor.Style = plain
	t.SetHeight(1)
	t.Focus()
	return t
}

// Init implements tea.Model.
func (m *model) Init() tea.Cmd { return textarea.Blink }

// Update implements tea.Model.
func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.resize()
		return m, nil
	case tea.KeyMsg:
		m.idleSeq++
		return m, m.key(msg)
	case idleMsg:
		m.idleNow(msg.seq)
		return m, nil
	case spinner.TickMsg:
		if !m.running {
			return m, nil // let the spinner stop
		}
		var cmd tea.Cmd
		m.spin, cmd = m.spin.Update(msg)
		return m, cmd
	case eventMsg:
		if msg.turn == m.turn && m.running {
			// The session may have changed its mode itself: an approved
			// plan (ExitPlanMode) leaves plan mode during the turn, and
			// an approved EnterPlanMode enters it.
			m.mode = m.eng.Mode()
			m.event(msg.ev)
			m.flush(false)
		}
		return m, nil
	case textMsg:
		if msg.turn == m.turn && m.running {
			m.text(msg.delta)
		}
		return m, nil
	case warnedMsg:
		m.showWarnings()
		return m, nil
	case turnDoneMsg:
		if msg.turn == m.turn {
			return m, m.finishTurn(msg.err)
		}
		return m, nil
	case requestMsg:
		return m, m.open(msg.r)
	case withdrawMsg:
		return m, m.withdraw(msg.id)
	case hintDoneMsg:
		if msg.at.Equal(m.lastCtrlC) {
			m.hint = ""
		}
		return m, nil
	case guardDoneMsg:
		return m, nil // the view is drawn again
	}
	// Anything else (cursor blinks) goes to every input: each ignores
	// what is not meant for it.
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	if len(m.requests) > 0 {
		cmd = tea.Batch(cmd, m.dlg.forward(msg))
	}
	return m, cmd
}

// forward hands msg to whichever text input has the focus.
func (m *model) forward(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	if len(m.requests) > 0 {
		return m.dlg.forward(msg)
	}
	m.input, cmd = m.input.Update(msg)
	m.fitInput()
	return cmd
}

func (m *model) resize() {
	m.input.SetWidth(max(m.width-1, 10))
	m.dlg.resize(m.width)
}

// fitInput grows the prompt with its content, up to 8 lines.
func (m *model) fitInput() { m.input.SetHeight(min(max(m.input.LineCount(), 1), 8)) }

func (m *model) key(k tea.KeyMsg) tea.Cmd {
	now := m.now()
	defer func() { m.lastKey = now }()
	if k.Type == tea.KeyCtrlC {
		return m.ctrlC()
	}
	if len(m.requests) > 0 {
		return m.dialogKey(k, now)
	}
	switch k.Type {
	case tea.KeyShiftTab:
		m.mode = m.eng.CycleMode()
		return nil
	case tea.KeyEnter:
		if k.Alt || k.Paste {
			break // a new line
		}
		return m.submit()
	}
	return m.forward(k)
}

// ctrlC interrupts a running turn, or exits when pressed again (while
// idle: within exitWindow). An open dialog is answered No first: the
// person wants things to stop, and a refusal is the safe reading.
func (m *model) ctrlC() tea.Cmd {
	for len(m.requests) > 0 {
		m.cancelRequest(errors.New("interrupted by Ctrl+C"))
	}
	now := m.now()
	switch {
	case m.running && !m.interrupted:
		m.interrupted = true
		m.cancel()
		m.lastCtrlC = now
		m.hint = "Interrupting… press Ctrl+C again to exit"
		return tea.Tick(exitWindow, func(time.Time) tea.Msg { return hintDoneMsg{now} })
	case m.running, !m.lastCtrlC.IsZero() && now.Sub(m.lastCtrlC) <= exitWindow:
		return m.quit()
	}
	m.lastCtrlC = now
	m.hint = "Press Ctrl+C again to exit"
	return tea.Tick(exitWindow, func(time.Time) tea.Msg { return hintDoneMsg{now} })
}

// quit ends the program: the running turn is interrupted and open
// dialogs are refused.
func (m *model) quit() tea.Cmd {
	m.quitting = true
	m.shutdown()
	return tea.Quit
}

// shutdown interrupts the running turn and refuses every open dialog.
func (m *model) shutdown() {
	if m.running && m.cancel != nil {
		m.cancel()
	}
	for len(m.requests) > 0 {
		m.cancelRequest(ErrClosed)
	}
}

// submit handles Enter in the prompt.
func (m *model) submit() tea.Cmd {
	text := strings.TrimSpace(m.input.Value())
	if text == "" {
		return nil
	}
	m.input.Reset()
	m.fitInput()
	c, args, err := m.cmds.Find(text)
	if err == nil && c != nil && c.Bang > 0 {
		if _, ok := m.eng.(sheller); ok {
			if err := m.cmds.CanShell(c); err != nil {
				m.print(m.userLine(text))
				m.note(errorStyle, "✗ "+err.Error())
				return nil
			}
			// Its ! commands run in the turn, where the gate may ask.
			return m.sendTyped(typed{text: text, cmd: c, args: args})
		}
	}
	// Any other line is sent as it is, a command's expanded now.
	prompt := text
	if err == nil && c != nil {
		prompt, err = c.Expand(args, nil)
	}
	switch {
	case err != nil:
		m.print(m.userLine(text))
		m.note(errorStyle, "✗ "+err.Error())
		return nil
	case c == nil && strings.HasPrefix(text, "/"):
		return m.command(text)
	}
	return m.sendTyped(typed{text: text, prompt: prompt, cmd: c})
}

// sendTyped starts t's turn, or queues it behind the running one.
func (m *model) sendTyped(t typed) tea.Cmd {
	if m.running {
		// It runs when the turn ends, after those queued before it.
		m.queue = append(m.queue, t)
		return nil
	}
	m.hint = ""
	m.lastCtrlC = time.Time{}
	return m.startTurn(t)
}

// typed is a line as it was submitted: what was typed, which the
// transcript shows, and the prompt it sends, a custom command's expanded
// once, when the line was submitted; or, for a command with ! commands,
// which run as the turn starts, the command and its arguments.
type typed struct {
	text, prompt string
	cmd          *skill.Command // the custom command text invokes, or nil
	args         string         // cmd's arguments, when prompt is still to be made
}

// sheller is an Engine that runs a custom command's ! commands as Bash
// calls its permission gate decides (session.Session.Shell).
type sheller interface {
	Shell(ctx context.Context, command string) (string, error)
}

// startTurn sends t.
func (m *model) startTurn(t typed) tea.Cmd {
	text, prompt, c := t.text, t.prompt, t.cmd
	m.turn++
	id := m.turn
	ctx, cancel := context.WithCancel(m.ctx)
	done := make(chan struct{})
	m.running, m.interrupted, m.cancel, m.turnDone = true, false, cancel, done
	m.live, m.calls, m.streamed = nil, map[string]*entry{}, false
	m.print(m.userLine(text))
	if c != nil {
		for _, w := range c.Warnings {
			m.print(m.sty.warn.Render("warning: " + w))
		}
	}

	eng, send := m.eng, m.send
	run := func() (msg tea.Msg) {
		defer close(done)
		defer func() {
			// An engine bug must not take the terminal down with it.
			if r := recover(); r != nil {
				msg = turnDoneMsg{turn: id, err: fmt.Errorf("internal error: %v", r)}
			}
		}()
		if prompt == "" && c != nil && c.Bang > 0 {
			sh := eng.(sheller)
			var err error
			if prompt, err = c.Expand(t.args, func(cmd string) (string, error) { return sh.Shell(ctx, cmd) }); err != nil {
				return turnDoneMsg{turn: id, err: err}
			}
		}
		out, err := eng.Submit(ctx, prompt,
			func(ev loop.Event) { send(eventMsg{id, ev}) },
			func(d string) { send(textMsg{id, d}) })
		return turnDoneMsg{id, out, err}
	}
	return tea.Batch(run, m.spin.Tick)
}

// finishTurn ends the turn and starts the next queued prompt. After an
// error or an interruption the queued prompts do not run: they go back
// into the prompt, to be sent again or changed.
func (m *model) finishTurn(err error) tea.Cmd {
	m.running = false
	m.cancel()
	switch {
	case err == nil:
	case errors.Is(err, context.Canceled) || m.interrupted:
		m.live = append(m.live, &entry{kind: noteEntry, style: warnStyle, text: "Interrupted."})
	default:
		m.live = append(m.live, &entry{kind: noteEntry, style: errorStyle, text: "Error: " + err.Error()})
	}
	m.flush(true)
	m.mode = m.eng.Mode()
	m.hint = ""
	if m.interrupted && m.now().Sub(m.lastCtrlC) <= exitWindow {
		m.hint = "Press Ctrl+C again to exit"
	}
	if len(m.queue) == 0 {
		return m.waitIdle()
	}
	if err != nil || m.interrupted {
		var texts []string
		for _, t := range m.queue {
			texts = append(texts, t.text)
		}
		if v := m.input.Value(); strings.TrimSpace(v) != "" {
			texts = append(texts, v)
		}
		m.queue = nil
		m.input.SetValue(strings.Join(texts, "\n"))
		m.fitInput()
		m.note(dimStyle, "The queued prompts were not sent: they are back in the prompt.")
		return m.waitIdle()
	}
	next := m.queue[0]
	m.queue = m.queue[1:]
	return m.startTurn(next)
}

// waitIdle starts the prompt's idle wait after a turn: unless a key or
// another turn comes first, the engine is told, after m.idle, that the
// person is awaited.
func (m *model) waitIdle() tea.Cmd {
	m.idleSeq++
	if m.idle <= 0 {
		return nil
	}
	seq := m.idleSeq
	return tea.Tick(m.idle, func(time.Time) tea.Msg { return idleMsg{seq} })
}

// idleNow tells the engine that the prompt has waited idle, if nothing
// happened since the wait seq began and nothing else awaits the person
// (a dialog, which told for itself).
func (m *model) idleNow(seq int) {
	n, ok := m.eng.(notifier)
	if !ok || seq != m.idleSeq || m.running || len(m.requests) > 0 || m.quitting {
		return
	}
	n.Notify(m.ctx, "gen is waiting for your input", "idle_prompt")
}

// warnedMsg says that UI.Warn has warnings to show.
type warnedMsg struct{}

// showWarnings notes the warnings not yet shown, in the order given.
func (m *model) showWarnings() {
	if m.warnings == nil {
		return
	}
	for _, w := range m.warnings() {
		m.note(warnStyle, "warning: "+w)
	}
}

// note shows a line that is not part of the model's answer: below the
// running turn, or printed right away.
func (m *model) note(st entryStyle, text string) {
	m.live = append(m.live, &entry{kind: noteEntry, style: st, text: text})
	if !m.running {
		m.flush(true)
	}
}

// View implements tea.Model. The finished part of the transcript has been
// printed above it; the view is the running turn, a dialog or the prompt,
// and the status line.
func (m *model) View() string {
	w := max(m.width, 20)
	var b strings.Builder
	for _, e := range m.live {
		b.WriteString(m.render(e, w))
		b.WriteByte('\n')
	}
	if m.quitting {
		return b.String()
	}
	for _, q := range m.queue {
		b.WriteString(clip(m.sty.dim.Render("  queued: "+oneLine(q.text)), w))
		b.WriteByte('\n')
	}
	if len(m.requests) > 0 {
		b.WriteString(m.dialogView(w))
	} else {
		b.WriteString(m.input.View())
	}
	b.WriteByte('\n')
	b.WriteString(m.status(w))
	return b.String()
}

func (m *model) status(w int) string {
	parts := []string{
		m.sty.title.Render(string(m.mode)) + " mode" + m.sty.dim.Render(" (shift+tab to cycle)"),
		"model " + m.name,
	}
	if m.running {
		s := m.spin.View() + " working… " + m.sty.dim.Render("(Ctrl+C to interrupt)")
		if m.interrupted {
			s = m.spin.View() + " interrupting…"
		}
		parts = append(parts, s)
	}
	line := strings.Join(parts, m.sty.dim.Render(" · "))
	if m.hint != "" {
		line += "\n" + m.sty.warn.Render(m.hint)
	}
	return clip(line, w)
}

func (m *model) userLine(text string) string {
	return m.sty.user.Render("> ") + indent(text, "  ")[2:]
}

// Resumed is what an Engine that continues an earlier conversation
// (--resume, --continue) also implements: the messages the model already
// sees, without the system prompt.
type Resumed interface {
	History() []openai.ChatCompletionMessage
}

// replay prints a resumed conversation, so that the person sees what the
// model sees: their prompts, the answers and, dimmed, each tool call and
// what a hook added to a prompt (not their words). Each is sanitized as
// the live transcript's entries are: a transcript holds what a model
// wrote, which a file it read may have steered into terminal escapes.
func (m *model) replay() {
	r, ok := m.eng.(Resumed)
	if !ok {
		return
	}
	msgs := r.History()
	if len(msgs) == 0 {
		return
	}
	for _, msg := range msgs {
		switch msg.Role {
		case openai.ChatMessageRoleUser:
			if msg.Name == loop.ContextName {
				m.print(m.sty.dim.Render("  ⎿ a hook added: " + truncate(oneLine(msg.Content), 80)))
				continue
			}
			m.print(m.userLine(sanitize(msg.Content)))
		case openai.ChatMessageRoleAssistant:
			if msg.Content != "" {
				m.print(sanitize(msg.Content))
			}
			for _, c := range msg.ToolCalls {
				m.print(m.sty.dim.Render("● " + sanitize(c.Function.Name) + " " + truncate(oneLine(c.Function.Arguments), 80)))
			}
		}
	}
	m.print(m.sty.dim.Render(fmt.Sprintf("(resumed: %d earlier messages)", len(msgs))))
}

// truncate cuts s to at most n runes, marking a cut with "…".
func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
